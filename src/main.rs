//! The `readout` binary: a thin front end over [`readout::cmd`].

use std::process::ExitCode;

/// mimalloc keeps freed memory for reuse instead of returning it to the system: a 10^6-subject
/// build allocates and frees large vectors per cohort, and with the system allocator each of
/// them came back as fresh pages the kernel had to zero (a fifth of the build's time).
#[global_allocator]
static GLOBAL: readout::profile::meter::Metered<mimalloc::MiMalloc> =
    readout::profile::meter::Metered(mimalloc::MiMalloc);

fn main() -> ExitCode {
    readout::cmd::main()
}
