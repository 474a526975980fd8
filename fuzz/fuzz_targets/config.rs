//! Any bytes given as a study config parse or give an error; never a panic, never a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = readout::config::parse(std::path::Path::new("fuzz.yaml"), data);
});
