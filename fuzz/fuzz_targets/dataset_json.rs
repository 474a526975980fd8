//! Any bytes given as a Dataset-JSON file (the first byte picks the form: `.json`, `.ndjson`
//! or `.dsjc`) load or give an error; a loaded table's every cell reads, and it goes through the
//! ADSL reader. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&form, bytes)) = data.split_first() else {
        return;
    };
    let name = ["fuzz.json", "fuzz.ndjson", "fuzz.dsjc"][usize::from(form % 3)];
    let Ok(table) = readout::load::dataset_json::from_bytes(std::path::Path::new(name), bytes) else {
        return;
    };
    for row in 0..table.len() {
        for column in 0..table.headers().len() {
            let _ = table.cell_text(row, column);
        }
    }
    let _ = readout::load::read_adsl(&table, None);
});
