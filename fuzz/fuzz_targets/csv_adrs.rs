//! Any bytes given as ADRS CSV load or give an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use readout::load::CsvTable;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = CsvTable::from_bytes(std::path::Path::new("adrs.csv"), data) else {
        return;
    };
    // Every subject named in the file is "in ADSL", so the reader gets past that check.
    let known = known_subjects(&table);
    let known: readout::load::KnownSubjects<'_> = known.iter().map(String::as_str).collect();
    let vocabulary = readout::criteria::Vocabulary::default();
    let _ = readout::load::read_adrs(
        &table,
        &known,
        &readout::config::DEFAULT_ADRS_PARAMCDS,
        &vocabulary,
    );
});

fn known_subjects(table: &CsvTable) -> Vec<String> {
    let Some(column) = table.column("USUBJID") else {
        return Vec::new();
    };
    (0..table.len())
        .filter_map(|row| table.cell_text(row, column).ok().map(str::to_string))
        .collect()
}
