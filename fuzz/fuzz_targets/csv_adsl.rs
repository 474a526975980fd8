//! Any bytes given as ADSL CSV load or give an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use readout::load::CsvTable;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = CsvTable::from_bytes(std::path::Path::new("adsl.csv"), data) else {
        return;
    };
    let _ = readout::load::read_adsl(&table, None);
    let _ = readout::load::read_adsl(&table, Some("EFFFL"));
});
