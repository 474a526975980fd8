//! Any bytes given as a SAS transport (XPT) file parse or give an error, and a parsed table
//! becomes a CsvTable or an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(table) = readout::load::xpt::parse(data) {
        let headers = table.variables.into_iter().map(|v| v.name).collect();
        let _ = readout::load::CsvTable::from_text_cells(
            std::path::Path::new("fuzz.xpt"),
            String::new(),
            headers,
            table.text,
            table.spans,
        );
    }
});
