//! The `readout` binary: a thin front end over [`readout::cmd`].

use std::ffi::{c_int, c_long};
use std::process::ExitCode;

/// mimalloc keeps freed memory for reuse instead of returning it to the system: a 10^6-subject
/// build allocates and frees large vectors per cohort, and with the system allocator each of
/// them came back as fresh pages the kernel had to zero (a fifth of the build's time).
#[global_allocator]
static GLOBAL: readout::profile::meter::Metered<mimalloc::MiMalloc> =
    readout::profile::meter::Metered(mimalloc::MiMalloc);

unsafe extern "C" {
    /// mimalloc's `mi_option_set` (in every build of it; the `mimalloc` crate declares it only
    /// with its `extended` feature).
    fn mi_option_set(option: c_int, value: c_long);
}

/// mimalloc's `mi_option_purge_delay` (15 in mimalloc 2 and 3 alike).
const PURGE_DELAY: c_int = 15;

fn main() -> ExitCode {
    // Freed memory is never handed back during a build (mimalloc's default: after a second):
    // handed back, it returned as fresh pages the kernel zeroed again (docs/PERFORMANCE.md).
    // SAFETY: sets one integer option of the allocator; any thread may, at any time.
    unsafe { mi_option_set(PURGE_DELAY, -1) };
    readout::cmd::main()
}
