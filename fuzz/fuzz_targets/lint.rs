//! Any bytes, read as text, go through the abstract's self-check (`readout lint`): never a
//! panic; at most 20 disagreements listed, none more than the count, each on a line of the
//! text and each message of bounded length (docs/LINT.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

use readout::documents::lint::{check_proportions, MAX_LISTED};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let found = check_proportions(&text);
    assert!(found.listed.len() <= MAX_LISTED.min(found.count));
    let lines = text.matches('\n').count() + 1;
    for d in &found.listed {
        assert!(d.line >= 1 && d.line <= lines, "line {} of {lines}", d.line);
        let message = d.to_string();
        // The pair (80 characters), its sentence (100 either side), two u64, two percentages.
        assert!(message.chars().count() < 600, "{} characters", message.len());
    }
});
