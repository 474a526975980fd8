//! Any text given as `analysis.response_criteria` (a set's name, or a mapping defining one)
//! resolves to a criteria set with a vocabulary, or is refused with a reason; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = format!(
        "study: {{ id: F }}\ndata: {{ adsl: a.csv }}\nanalysis:\n  response_criteria: {text}\ncohorts: [ {{ id: a }} ]\n"
    );
    if let Ok(study) = readout::config::parse(std::path::Path::new("fuzz.yaml"), config.as_bytes()) {
        if let Some(criteria) = &study.analysis.response_criteria {
            if let Ok(set) = criteria.resolve() {
                let vocabulary = readout::criteria::Vocabulary::new([&set]).expect("one set fits");
                for category in &set.categories {
                    assert!(vocabulary.code(&category.code).is_some());
                }
            }
        }
    }
});
