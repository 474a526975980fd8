//! Any bytes given as a company PowerPoint template (`output.pptx_reference`) are read as a
//! template or refused with a reason; never a panic, never a hang. Seeds: a zip of the house
//! template's parts is the useful start (`docs/FUZZING.md`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = readout::documents::slides::SlideTemplate::from_reference(data);
});
