//! The `readout` binary: a thin front end over [`readout::cmd`].

use std::ffi::{c_int, c_long};
use std::process::ExitCode;
use std::sync::OnceLock;

/// mimalloc keeps freed memory for reuse instead of returning it to the system: a 10^6-subject
/// build allocates and frees large vectors per cohort, and with the system allocator each of
/// them came back as fresh pages the kernel had to zero (a fifth of the build's time).
#[global_allocator]
static GLOBAL: readout::profile::meter::Metered<mimalloc::MiMalloc> =
    readout::profile::meter::Metered(mimalloc::MiMalloc);

unsafe extern "C" {
    // mimalloc's options (in every build of it; the `mimalloc` crate declares them only with
    // its `extended` feature).
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_option_set(option: c_int, value: c_long);
}

/// mimalloc's `mi_option_purge_delay` (15 in mimalloc 2 and 3 alike).
const PURGE_DELAY: c_int = 15;

/// mimalloc's own purge delay, restored for large inputs.
static DEFAULT_PURGE_DELAY: OnceLock<c_long> = OnceLock::new();

fn main() -> ExitCode {
    // A build keeps the memory it frees (mimalloc hands it back after a delay, and it came
    // back as fresh pages the kernel zeroed again), unless its inputs are large: at 10^7
    // subjects keeping it all tripled the peak (docs/PERFORMANCE.md, item 48).
    // SAFETY: reads and sets one integer option of the allocator; any thread may, any time.
    let _ = DEFAULT_PURGE_DELAY.set(unsafe { mi_option_get(PURGE_DELAY) });
    // SAFETY: as above.
    unsafe { mi_option_set(PURGE_DELAY, -1) };
    readout::profile::meter::on_large_inputs(|| {
        if let Some(&default) = DEFAULT_PURGE_DELAY.get() {
            // SAFETY: as above.
            unsafe { mi_option_set(PURGE_DELAY, default) };
        }
    });
    readout::cmd::main()
}
