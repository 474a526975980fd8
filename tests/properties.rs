//! Property tests of the parsers (issue 8): any bytes given as a config, a CSV or an XPT file
//! either load or give an error; never a panic. Arbitrary bytes find little past the first
//! check, so each parser also gets valid input with random damage (bytes replaced, inserted,
//! cut) and, for the ADaM readers, CSV built from real column names and hostile cell values.
//! The cargo-fuzz targets in `fuzz/` (docs/FUZZING.md) search the same properties for longer.

use std::collections::HashSet;
use std::path::Path;

use proptest::prelude::*;
use readout::load::{self, CsvTable, KnownSubjects};

const CONFIG: &str = include_str!("fixtures/documents/study.yaml");
const ADSL: &str = include_str!("fixtures/documents/adsl.csv");
const ADRS: &str = include_str!("fixtures/documents/adrs.csv");
const ADAE: &str = include_str!("fixtures/documents/adae.csv");
const ADTR: &str = include_str!("fixtures/documents/adtr.csv");
const ADTTE: &str = "USUBJID,PARAMCD,AVAL,AVALU,CNSR,STARTDT,ADT\n\
                     S-001,OS,334,DAYS,1,2021-01-04,2021-12-03\n\
                     S-002,PFS,2.5,MONTHS,0,2021-02-01,2021-04-16\n";

/// Runs every reader on a table; each returns Ok or Err, and that is all that is asked.
fn read_everything(bytes: &[u8]) {
    let Ok(table) = CsvTable::from_bytes(Path::new("prop.csv"), bytes) else {
        return;
    };
    let _ = load::read_adsl(&table, None);
    let _ = load::read_adsl(&table, Some("EFFFL"));
    // Every subject in the table counts as known, so the readers get past that check.
    let ids: Vec<String> = match table.column("USUBJID") {
        Some(c) => (0..table.len())
            .filter_map(|r| table.cell_text(r, c).ok().map(str::to_string))
            .collect(),
        None => Vec::new(),
    };
    let known: KnownSubjects<'_> = ids.iter().map(String::as_str).collect();
    let related: HashSet<String> = ["Y".to_string()].into();
    let mut warnings = Vec::new();
    let _ = load::read_adrs(
        &table,
        &known,
        &readout::config::DEFAULT_ADRS_PARAMCDS,
        &readout::criteria::Vocabulary::default(),
    );
    let _ = load::read_adtte(&table, &known);
    let _ = load::read_adae(&table, &known, &related, &mut warnings);
    let _ = load::read_adtr(&table, &known, "SDIAM");
}

/// Damage to a valid file: replace, insert or delete bytes at positions given as fractions of
/// its length (so the damage lands anywhere whatever the file's size).
#[derive(Debug, Clone)]
enum Damage {
    Replace(f64, u8),
    Insert(f64, Vec<u8>),
    Delete(f64, usize),
    Truncate(f64),
}

fn damage() -> impl Strategy<Value = Damage> {
    let pos = 0.0..1.0f64;
    prop_oneof![
        (pos.clone(), any::<u8>()).prop_map(|(p, b)| Damage::Replace(p, b)),
        (
            pos.clone(),
            prop_oneof![
                prop::collection::vec(any::<u8>(), 1..8),
                Just(b"\"".to_vec()),
                Just(b"\r\n".to_vec()),
                Just(b",".to_vec()),
                Just(b"\xEF\xBB\xBF".to_vec()),
                Just(b"&a ".to_vec()),
                Just(b"*a".to_vec()),
                Just(b"{".to_vec()),
                Just(b"- ".to_vec()),
            ]
        )
            .prop_map(|(p, bytes)| Damage::Insert(p, bytes)),
        (pos.clone(), 1usize..16).prop_map(|(p, n)| Damage::Delete(p, n)),
        pos.prop_map(Damage::Truncate),
    ]
}

fn apply(original: &str, damages: &[Damage]) -> Vec<u8> {
    let mut bytes = original.as_bytes().to_vec();
    let at = |len: usize, p: f64| ((len as f64 * p) as usize).min(len);
    for d in damages {
        let len = bytes.len();
        match d {
            Damage::Replace(p, b) => {
                if let Some(slot) = bytes.get_mut(at(len, *p)) {
                    *slot = *b;
                }
            }
            Damage::Insert(p, new) => {
                let i = at(len, *p);
                bytes.splice(i..i, new.iter().copied());
            }
            Damage::Delete(p, n) => {
                let i = at(len, *p);
                bytes.drain(i..(i + n).min(len));
            }
            Damage::Truncate(p) => bytes.truncate(at(len, *p)),
        }
    }
    bytes
}

/// A cell value from the kinds that trip parsers: dates good and bad, numbers, codes, quotes,
/// non-ASCII and Latin-1 bytes, very long text.
fn cell() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        "S-00[0-9]".prop_map(String::into_bytes),
        "(19|20|99|00)[0-9]{2}-[0-1][0-9]-[0-3][0-9](T[0-9]{2}:[0-9]{2})?"
            .prop_map(String::into_bytes),
        "-?[0-9]{0,6}(\\.[0-9]{0,4})?(e[+-]?[0-9]{1,3})?".prop_map(String::into_bytes),
        prop::sample::select(vec![
            "OVR",
            "SDIAM",
            "PFS",
            "OS",
            "DOR",
            "CR",
            "PR",
            "SD",
            "PD",
            "NE",
            "ND",
            "NON-CR/NON-PD",
            "Y",
            "N",
            "NaN",
            "inf",
            "-0",
            "1e308",
            "1e309",
            "GRADE 3",
            "3.0",
            "MILD",
            "SEVERE",
            "FATAL",
            "DAYS",
            "MONTHS",
            "YEARS",
            "2021-02-30",
            "0000-01-01",
            "\"quoted, with comma\"",
            "\"\"",
            "é",
            "日本",
            "\u{feff}",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..12),
        Just(vec![0xE9, b'd', b'e', b'm', b'e']),
    ]
}

fn csv_table() -> impl Strategy<Value = Vec<u8>> {
    let columns = prop::sample::subsequence(
        vec![
            "USUBJID", "PARAMCD", "ADT", "AVALC", "AVAL", "AVALU", "CNSR", "STARTDT", "TRTSDT",
            "TRTEDT", "ENRLDT", "DTHDT", "LSTALVDT", "SAFFL", "EFFFL", "SITEID", "AEDECOD",
            "AEBODSYS", "ATOXGR", "ASEV", "AREL", "ASTDT", "TRTEMFL", "AESER", "AEOUT", "BASE",
            "PCHG",
        ],
        1..12,
    );
    (columns, 0usize..6, any::<bool>()).prop_flat_map(|(columns, rows, crlf)| {
        let width = columns.len();
        prop::collection::vec(prop::collection::vec(cell(), width..=width), rows).prop_map(
            move |rows| {
                let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
                let mut out = columns.join(",").into_bytes();
                out.extend_from_slice(end);
                for row in rows {
                    out.extend_from_slice(&row.join(&b","[..]));
                    out.extend_from_slice(end);
                }
                out
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_as_config_parse_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = readout::config::parse(Path::new("prop.yaml"), &bytes);
    }

    #[test]
    fn a_damaged_config_parses_or_fails(damages in prop::collection::vec(damage(), 1..6)) {
        let _ = readout::config::parse(Path::new("prop.yaml"), &apply(CONFIG, &damages));
    }

    #[test]
    fn any_bytes_as_csv_load_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        read_everything(&bytes);
    }

    #[test]
    fn a_damaged_adam_file_loads_or_fails(
        file in prop::sample::select(vec![ADSL, ADRS, ADAE, ADTR, ADTTE]),
        damages in prop::collection::vec(damage(), 1..6),
    ) {
        read_everything(&apply(file, &damages));
    }

    #[test]
    fn csv_of_adam_columns_and_hostile_cells_loads_or_fails(bytes in csv_table()) {
        read_everything(&bytes);
    }

    #[test]
    fn any_text_as_a_date_parses_or_is_none(text in "\\PC{0,24}") {
        let _ = readout::model::parse_iso_date(&text);
    }

    /// The parser (with its cache of recent dates) agrees with chrono's `%Y-%m-%d` on dates
    /// near and past the ends of months and years, asked twice in any order, then as
    /// datetimes.
    #[test]
    fn dates_agree_with_chrono_when_asked_again(
        dates in prop::collection::vec((1990u32..2031, 0u32..15, 0u32..40), 1..40),
    ) {
        for round in 0..3 {
            for &(y, m, d) in &dates {
                let date = format!("{y:04}-{m:02}-{d:02}");
                let expected = chrono::NaiveDate::parse_from_str(&date, "%Y-%m-%d").ok();
                // The third round asks for datetimes and a date with a wrong separator after it.
                let text = if round < 2 { date.clone() } else { format!("{date}T08:30") };
                prop_assert_eq!(readout::model::parse_iso_date(&format!("{date}x")), None);
                prop_assert_eq!(readout::model::parse_iso_date(&text), expected, "{} (round {})", text, round);
            }
        }
    }

    #[test]
    fn any_bytes_as_xpt_parse_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..1200)) {
        let _ = readout::load::xpt::parse(&bytes);
    }
}

/// A value that parses as a date is a real calendar date in `YYYY-MM-DD` (or a datetime's date).
#[test]
fn dates_that_parse_are_real_dates() {
    assert!(readout::model::parse_iso_date("2021-02-29").is_none());
    assert!(readout::model::parse_iso_date("2024-02-29").is_some());
    assert!(readout::model::parse_iso_date("2021-01-04T10:00").is_some());
    assert!(readout::model::parse_iso_date("2021-01-04x").is_none());
    assert!(readout::model::parse_iso_date("2021-1-4").is_none());
    assert!(readout::model::parse_iso_date("２０２１-01-04").is_none());
    // A day past the month's end, after the month's last day was parsed (and cached).
    assert!(readout::model::parse_iso_date("2020-01-31").is_some());
    assert!(readout::model::parse_iso_date("2020-01-45").is_none());
    assert!(readout::model::parse_iso_date("2020-13-31").is_none());
}
