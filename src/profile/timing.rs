//! Stage timings for profiling: with `READOUT_PROFILE=1` in the environment, each timed stage
//! prints its wall time to stderr. Costs one environment look-up when off.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("READOUT_PROFILE").is_some_and(|v| v != "0"))
}

/// Runs `f`, printing `label`, its wall time, when it started (since the first timed stage
/// began: where a stage waits on another shows) and on which thread, when profiling is on.
pub fn stage<T>(label: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    static FIRST: OnceLock<Instant> = OnceLock::new();
    let start = Instant::now();
    let first = *FIRST.get_or_init(|| start);
    let out = f();
    eprintln!(
        "[profile] {label}: {:.1} ms from {:.1} ms on {:?}{}",
        start.elapsed().as_secs_f64() * 1e3,
        start.duration_since(first).as_secs_f64() * 1e3,
        std::thread::current().id(),
        memory()
    );
    out
}

/// The process's resident and peak resident memory, read from `/proc/self/status` (empty
/// where there is none).
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    format!(
        " (resident {} MiB, peak {} MiB)",
        field("VmRSS:"),
        field("VmHWM:")
    )
}
