//! Unit tests of the CSV engine and the table readers.
use super::*;
use crate::model::endpoint::{OS, PFS};
use proptest::prelude::*;

/// Headers, rows as text and line numbers of a table.
type Reading = (Vec<String>, Vec<Vec<String>>, Vec<u64>);

/// The rows of a table as text, or the error message.
fn via(parsed: Result<CsvTable>) -> std::result::Result<Reading, String> {
    let table = parsed.map_err(|e| e.to_string())?;
    let width = table.headers().len();
    let rows = (0..table.len())
        .map(|r| {
            (0..width)
                .map(|c| String::from_utf8_lossy(table.cell(r, c)).into_owned())
                .collect()
        })
        .collect();
    let lines = (0..table.len()).map(|r| table.line(r)).collect();
    Ok((table.headers().to_vec(), rows, lines))
}

/// The `csv` crate's reading of the same bytes (the quoted path), as a table.
fn quoted(bytes: &[u8]) -> Result<CsvTable> {
    CsvTable::from_vec_as(Path::new("t.csv"), bytes.to_vec(), false)
}

proptest! {
    /// A file without quotes reads the same through the in-place splitter as through the
    /// `csv` crate: cells, line numbers and errors.
    #[test]
    fn plain_splitter_agrees_with_the_csv_crate(
        text in proptest::collection::vec(
            prop_oneof![Just("a"), Just("bc"), Just(","), Just("\n"), Just("\r\n"), Just(" "), Just("\r"), Just("-"), Just("é"), Just(",,,,,,,,,")],
            0..60,
        ),
        bom in any::<bool>(),
    ) {
        let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        bytes.extend(text.concat().bytes());
        let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
        let csv = via(quoted(&bytes));
        prop_assert_eq!(plain, csv);
    }
}

/// A file read in parts of `part_bytes`, put back together: headers, rows, lines (or the
/// error), and the SHA-256 given for the file.
fn via_parts(path: &Path, part_bytes: usize) -> (std::result::Result<Reading, String>, String) {
    let mut reading: Reading = Default::default();
    let input = CsvTable::read_parts(path, part_bytes, |table, first_row, _| {
        reading.1.truncate(first_row);
        reading.2.truncate(first_row);
        let (headers, rows, lines) = via(Ok(clone_table(table))).unwrap();
        if first_row > 0 {
            assert_eq!(headers, reading.0, "every part has the file's header");
        }
        reading.0 = headers;
        reading.1.extend(rows);
        reading.2.extend(lines);
        Ok(true)
    });
    match input {
        Ok(input) => (Ok(reading), input.sha256),
        Err(e) => (Err(e.to_string()), String::new()),
    }
}

/// A copy of a table (tests only).
fn clone_table(table: &CsvTable) -> CsvTable {
    CsvTable {
        path: table.path.clone(),
        sha256: table.sha256.clone(),
        headers: table.headers.clone(),
        index: table.index.clone(),
        cells: Cells::new(table.cells.all().to_vec()),
        layout: match &table.layout {
            Layout::Cells(spans) => Layout::Cells(spans.clone()),
            Layout::Rows(rows) => Layout::Rows(rows.clone()),
        },
        lines: table.lines.clone(),
    }
}

proptest! {
    /// A file read in parts gives the cells, line numbers, errors and SHA-256 of the file
    /// read whole, whatever the part size (parts of a few bytes cut every line).
    #[test]
    fn a_file_read_in_parts_reads_as_the_whole_file(
        text in proptest::collection::vec(
            prop_oneof![Just("a"), Just("bc"), Just(","), Just("\n"), Just("\n"), Just("\r\n"), Just(" "), Just("-"), Just("é"), Just("1,2\n"), Just("\""), Just("\r")],
            0..80,
        ),
        header in prop_oneof![Just("A,B\n"), Just("A\n"), Just("\n\nA,B\r\n"), Just("")],
        part_bytes in 1usize..24,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let bytes = format!("{header}{}", text.concat()).into_bytes();
        std::fs::write(&path, &bytes).unwrap();
        let whole = via(CsvTable::read(&path));
        let (parts, sha256) = via_parts(&path, part_bytes);
        prop_assert_eq!(&parts, &whole);
        if whole.is_ok() {
            prop_assert_eq!(sha256, sha256_hex(&bytes));
        }
    }
}

/// A date, or an ISO 8601 datetime whose date is taken; anything else after the date is not.
#[test]
fn dates_and_datetimes() {
    let d = |y, m, day| Date::from_ymd_opt(y, m, day);
    for text in [
        "2021-01-04",
        "2021-01-04T09",
        "2021-01-04T09:30",
        "2021-01-04 09:30:59",
        "2021-01-04T23:59:60",
        "2021-01-04T09:30:00.25",
        "2021-01-04T09:30:00,5Z",
        "2021-01-04T09:30:00+02:00",
        "2021-01-04T09:30-0500",
        "2021-01-04T09:30:00+02",
    ] {
        assert_eq!(crate::model::parse_iso_date(text), d(2021, 1, 4), "{text}");
    }
    for text in [
        "2021-01-04T",
        "2021-01-04Tgarbage",
        "2021-01-04T24:00",
        "2021-01-04T09:60",
        "2021-01-04T09:30:00.",
        "2021-01-04T09:30:00+2",
        "2021-01-04T09:30 UTC",
        "2021-01-04x",
        "2021-02-30",
    ] {
        assert_eq!(crate::model::parse_iso_date(text), None, "{text}");
    }
    assert!(!is_plausible_date(d(1899, 12, 31).unwrap()));
    assert!(is_plausible_date(d(1900, 1, 1).unwrap()));
    assert!(is_plausible_date(d(2100, 12, 31).unwrap()));
    assert!(!is_plausible_date(d(2101, 1, 1).unwrap()));
}

/// An estimate of a file's rows far beyond what memory holds (a file whose first part has
/// short rows and the rest long ones) reserves nothing rather than aborting.
#[test]
fn a_wild_row_estimate_reserves_nothing() {
    let mut rows: Vec<Subject> = Vec::new();
    reserve_rows(&mut rows, usize::MAX);
    reserve_rows(&mut rows, 1 << 40);
    assert!(rows.capacity() < 1 << 40);
    reserve_rows(&mut rows, 800);
    assert!(rows.capacity() >= 900);
}

/// ADSL and ADTTE read in parts give the subjects, records and errors of the files read
/// whole: a repeated subject whose first row is parts earlier, a bad cell in a later
/// part, a repeated ADTTE record across parts.
#[test]
fn adsl_and_adtte_read_in_parts_agree_with_the_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let adsl_text = |edit: &dyn Fn(usize, String) -> String| {
        let mut t = String::from("USUBJID,COHORT,TRTSDT,SAFFL\n");
        for i in 0..3000 {
            t += &edit(
                i,
                format!("S{i:05},{},2020-01-{:02},Y\n", i % 3, 1 + i % 28),
            );
            if i % 700 == 0 {
                t += "\n"; // blank lines shift the line numbers
            }
        }
        t
    };
    // The file with row `k` replaced by `text`.
    let with_row =
        |k: usize, text: &str| adsl_text(&|i, row| if i == k { text.to_string() } else { row });
    let adsl_cases: Vec<(&str, String)> = vec![
        ("clean", adsl_text(&|_, row| row)),
        ("repeat", with_row(2500, "S00042,1,2020-01-01,Y\n")),
        ("bad date", with_row(2200, "S02200,1,2020-13-01,Y\n")),
        ("unsorted", with_row(10, "S99999,1,2020-01-01,Y\n")),
        ("ragged", with_row(2900, "S02900,1\n")),
    ];
    let read_parts = |path: &Path| -> std::result::Result<Vec<Subject>, String> {
        let mut reader = AdslReader::new(None, None, false, &[]);
        CsvTable::read_parts(path, 4096, |t, first, expected| {
            reader.part(t, first, expected)
        })
        .map_err(|e| e.to_string())?;
        let subjects = std::mem::take(&mut reader.subjects);
        reader.check(path, &subjects).map_err(|e| e.to_string())?;
        Ok(subjects)
    };
    for (case, text) in &adsl_cases {
        let path = dir.path().join(format!("adsl-{case}.csv"));
        std::fs::write(&path, text).unwrap();
        let whole = CsvTable::read(&path)
            .and_then(|t| read_adsl(&t, None))
            .map_err(|e| e.to_string());
        let parts = read_parts(&path);
        assert_eq!(parts, whole, "{case}");
        match *case {
            "clean" | "unsorted" => assert_eq!(parts.map(|s| s.len()), Ok(3000), "{case}"),
            _ => assert!(parts.is_err(), "{case}"),
        }
    }
    let whole_err = read_parts(&dir.path().join("adsl-repeat.csv")).unwrap_err();
    assert!(
        whole_err.contains("line 2506,") && whole_err.contains("first on line 45)"),
        "{whole_err}"
    );

    let subjects = read_parts(&dir.path().join("adsl-clean.csv")).unwrap();
    let known = KnownSubjects::of_subjects(&subjects).unwrap();
    let adtte_text = |repeat: bool| {
        let mut t = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
        for i in 0..3000 {
            t += &format!("S{i:05},OS,{},{}\n", 10 + i, i % 2);
        }
        if repeat {
            t += "S00007,OS,1,0\n";
        }
        t
    };
    for repeat in [false, true] {
        let path = dir.path().join(format!("adtte-{repeat}.csv"));
        std::fs::write(&path, adtte_text(repeat)).unwrap();
        let table = CsvTable::read(&path).unwrap();
        let whole = read_adtte(&table, &known).map_err(|e| e.to_string());
        let mut reader = TteReader::default();
        let parts = CsvTable::read_parts(&path, 4096, |t, first, expected| {
            reader.part(t, &known, first, expected)
        })
        .and_then(|input| {
            assert_eq!(input.sha256, table.sha256);
            reader.finish(&path, &known)
        })
        .map_err(|e| e.to_string());
        assert_eq!(parts, whole, "repeat {repeat}");
        assert_eq!(parts.is_err(), repeat);
    }
}

/// `data.where` keeps the same rows of a file read whole, in parts or with quotes (a table
/// of cell spans), and the line numbers of errors stay the file's.
#[test]
fn row_filters_keep_the_same_rows_whole_and_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let mut adsl = String::from("USUBJID\n");
    let mut adtte = String::from("USUBJID,PARAMCD,PARCAT1,AVAL,CNSR\n");
    for i in 0..3000 {
        adsl += &format!("S{i:05}\n");
        adtte += &format!("S{i:05},OS,INV,{},{}\n", 10 + i, i % 2);
        adtte += &format!("S{i:05},OS,IRC,{},{}\n", 20 + i, (i + 1) % 2);
    }
    let subjects = read_adsl(
        &CsvTable::from_bytes(Path::new("adsl.csv"), adsl.as_bytes()).unwrap(),
        None,
    )
    .unwrap();
    let known = KnownSubjects::of_subjects(&subjects).unwrap();
    let filter = || RowFilter::new("adtte", [("PARCAT1".to_string(), vec!["IRC".to_string()])]);
    let quoted = adtte.replacen("USUBJID,", "\"USUBJID\",", 1);
    for (name, text) in [("plain", &adtte), ("quoted", &quoted)] {
        let path = dir.path().join(format!("adtte-{name}.csv"));
        std::fs::write(&path, text).unwrap();
        let mut table = CsvTable::read(&path).unwrap();
        let mut whole_filter = filter();
        whole_filter.apply(&mut table).unwrap();
        assert_eq!(table.len(), 3000);
        assert_eq!(table.line(0), 3, "row 0 kept is line 3 of the file");
        let whole = read_adtte(&table, &known).unwrap();
        let (kept, warnings) = whole_filter.finish(&path).unwrap();
        let kept = kept.unwrap();
        assert_eq!((kept.kept, kept.dropped), (3000, 3000));
        assert!(warnings.is_empty());
        let mut parts_filter = filter();
        let mut reader = TteReader::default();
        let mut calls = 0;
        CsvTable::read_parts_where(&path, 4096, &mut parts_filter, |t, first, expected| {
            calls += 1;
            reader.part(t, &known, first, expected)
        })
        .unwrap();
        let parts = reader.finish(&path, &known).unwrap();
        assert_eq!(parts, whole, "{name}");
        if name == "plain" {
            assert!(calls > 10, "read in parts: {calls}");
        }
        assert_eq!(parts_filter.finish(&path).unwrap().0.unwrap().kept, 3000);
        let first = whole.records.first().map(|r| (r.days, r.line));
        assert_eq!(first, Some((20.0, 3)), "the IRC row's AVAL and line");
    }
}

/// The whole-number shortcut reads what the full parser reads, and leaves the rest to it.
#[test]
fn small_integers_read_as_the_full_parser_reads_them() {
    for text in [
        "0",
        "7",
        "0042",
        "581",
        "999999999999999",
        "123456789012345",
    ] {
        assert_eq!(small_integer(text), text.parse::<f64>().ok(), "{text}");
    }
    for text in [
        "",
        "-3",
        "+3",
        "1.5",
        "1e3",
        "1234567890123456",
        "12a",
        " 1",
        "٣",
    ] {
        assert_eq!(small_integer(text), None, "{text}");
    }
}

proptest! {
    #[test]
    fn any_digit_string_reads_as_the_full_parser_reads_it(
        digits in 1u32..=18,
        n in any::<u64>(),
        zeros in 0usize..3,
    ) {
        // As many cases of each length, 1 to 18 digits (the shortcut takes up to 15).
        let text = format!("{}{}", "0".repeat(zeros), n % 10u64.pow(digits));
        if let Some(x) = small_integer(&text) {
            prop_assert_eq!(x.to_bits(), text.parse::<f64>().unwrap().to_bits());
        } else {
            prop_assert!(text.len() > 15);
        }
    }
}

/// Subjects `S0`, `S1`, ... with no data.
fn numbered_subjects(n: usize) -> Vec<Subject> {
    (0..n)
        .map(|i| Subject {
            usubjid: format!("S{i}").into(),
            ..Subject::placeholder()
        })
        .collect()
}

/// Parallel jobs number the parameters as they meet them; the table numbers them in order
/// of first appearance in the file, whatever the jobs did.
#[test]
fn adtte_parameters_are_numbered_in_file_order() {
    let subjects = numbered_subjects(6000);
    let known = KnownSubjects::of_subjects(&subjects).unwrap();
    let mut text = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    for (param, cnsr) in [(PFS, 1), (OS, 0)] {
        for i in 0..6000 {
            text += &format!("S{i},{param},{},{cnsr}\n", i + 1);
        }
    }
    let table = CsvTable::from_bytes(Path::new("adtte.csv"), text.as_bytes()).unwrap();
    // A job that met OS first (as the second half of the rows would) numbered it 0.
    let mut reader = TteReader::default();
    assert_eq!(reader.params.number(OS), 0);
    reader.part(&table, &known, 0, table.len()).unwrap();
    let tte = reader.finish(Path::new("adtte.csv"), &known).unwrap();
    let whole = read_adtte(&table, &known).unwrap();
    for t in [&tte, &whole] {
        assert_eq!(t.params, [Arc::from(PFS), Arc::from(OS)]);
        assert_eq!(t.param(OS), Some(1));
        let first = &t.records[0];
        let last = &t.records[11_999];
        assert_eq!((t.paramcd(first), first.param, first.cnsr), (PFS, 0, 1));
        assert_eq!((t.paramcd(last), last.param, last.cnsr), (OS, 1, 0));
        assert_eq!(last.status(), crate::model::Status::Event);
        assert_eq!(last.days, 6000.0);
        assert!(t.records[..6000].iter().all(|r| r.param == 0));
        assert!(t.records[6000..].iter().all(|r| r.param == 1));
    }
    assert_eq!(tte, whole);
}

/// A repeated (subject, parameter) is found with one parameter, a few, and past the 64
/// kept as bits; the same subject under different parameters is not a repeat.
#[test]
fn a_repeated_adtte_record_is_found_whatever_the_number_of_parameters() {
    let subjects = numbered_subjects(5);
    let known = KnownSubjects::of_subjects(&subjects).unwrap();
    let read = |params: usize, repeat: Option<(usize, usize)>| {
        let mut text = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
        for p in 0..params {
            for i in 0..5 {
                text += &format!("S{i},P{p},{},0\n", p + i);
            }
        }
        if let Some((i, p)) = repeat {
            text += &format!("S{i},P{p},1,1\n");
        }
        let table = CsvTable::from_bytes(Path::new("adtte.csv"), text.as_bytes()).unwrap();
        read_adtte(&table, &known).map_err(|e| e.to_string())
    };
    for params in [1, 3, 64, 70] {
        let table = read(params, None).unwrap();
        assert_eq!(table.records.len(), 5 * params);
        assert_eq!(table.params.len(), params);
        for p in [0, params / 2, params - 1] {
            let e = read(params, Some((4, p))).unwrap_err();
            let line = 5 * params + 2;
            assert!(
                e.contains(&format!("line {line},")) && e.contains(&format!("`S4` has two `P{p}`")),
                "{params} parameters, repeat of P{p}: {e}"
            );
        }
    }
}

#[test]
fn a_large_plain_file_is_split_in_chunks_with_the_right_line_numbers() {
    let mut text = String::from("A,B\r\n");
    for i in 0..300_000 {
        text.push_str(&format!("id{i},{}\r\n", i % 7));
        if i % 1000 == 0 {
            text.push_str("\r\n"); // a blank line now and then
        }
    }
    let bytes = text.into_bytes();
    assert!(bytes.len() > 3 << 20, "several chunks");
    let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
    let csv = via(quoted(&bytes));
    assert!(plain == csv, "the two readings differ");
    let (_, rows, lines) = plain.unwrap();
    assert_eq!(rows.len(), 300_000);
    assert_eq!(rows[299_999], ["id299999", "0"]);
    // 300,000 rows, 300 blank lines, the header: the last row is on line 300,301.
    assert_eq!(lines.last(), Some(&300_301));
}

/// Rows of any width (one reader's buffer of commas reused from narrow rows to wide ones
/// and back): cells agree with the `csv` crate's reading; a column past the last is empty.
#[test]
fn cells_of_rows_of_any_width_are_found() {
    let mut commas = Vec::new();
    for width in [1, 8, 9, 64, 65, 192, 3] {
        let header: Vec<String> = (0..width).map(|c| format!("C{c}")).collect();
        let mut text = header.join(",") + "\n";
        for r in 0..3 {
            let cells: Vec<String> = (0..width)
                .map(|c| {
                    if c % 5 == 4 {
                        String::new()
                    } else {
                        format!("r{r}c{c}")
                    }
                })
                .collect();
            text += &(cells.join(",") + "\r\n");
        }
        let bytes = text.into_bytes();
        let plain = via(CsvTable::from_bytes(Path::new("t.csv"), &bytes));
        assert!(
            plain == via(quoted(&bytes)),
            "width {width}: the readings differ"
        );
        let table = CsvTable::from_bytes(Path::new("t.csv"), &bytes).unwrap();
        let last = width - 1;
        let expected = if last % 5 == 4 {
            String::new()
        } else {
            format!("r2c{last}")
        };
        assert_eq!(table.cell(2, last), expected.as_bytes(), "width {width}");
        assert_eq!(
            table.cell(2, width),
            b"",
            "width {width}: past the last column"
        );
        let row = table.row(1, &mut commas);
        for c in 0..width {
            let expected = if c % 5 == 4 {
                String::new()
            } else {
                format!("r1c{c}")
            };
            assert_eq!(row.text(Some(c)).unwrap(), expected, "width {width}");
        }
        assert_eq!(row.text(Some(width)).unwrap(), "");
    }
}

/// Regression: the `csv` crate counts lines wrongly after CRLF line ends and blank lines,
/// so an error in a Windows file named the wrong line. Both readings now name line 4.
#[test]
fn errors_name_the_line_an_editor_shows_after_crlf_and_blank_lines() {
    for text in [
        "A,B\r\n\"x\",1\r\n\r\ny,2,3\r\n",
        "A,B\r\nx,1\r\n\r\ny,2,3\r\n",
        "A,B\nx,1\n\ny,2,3\n",
    ] {
        let err = CsvTable::from_bytes(Path::new("t.csv"), text.as_bytes())
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err, "t.csv: line 4: the row has 3 fields; expected 2 like the header",
            "{text:?}"
        );
    }
}

/// Rows are converted in parallel; of several bad rows, the error is the first in the file.
#[test]
fn the_first_bad_row_in_the_file_is_reported_when_rows_convert_in_parallel() {
    // 50,000 subjects; `id` and `date` give row i's cells.
    let adsl_of = |id: &dyn Fn(usize) -> String, date: &dyn Fn(usize) -> &'static str| {
        let mut t = String::from("USUBJID,TRTSDT\n");
        for i in 0..50_000 {
            t.push_str(&format!("{},{}\n", id(i), date(i)));
        }
        CsvTable::from_bytes(Path::new("adsl.csv"), t.as_bytes()).unwrap()
    };
    let bad_date =
        |at: usize, text: &'static str| move |i: usize| if i == at { text } else { "2020-01-01" };
    // ADSL with the id of row `at` replaced by `id_there` and a bad date at another.
    let adsl_with = |at: usize, id_there: &str, bad_date_at: usize, date: &'static str| {
        let id = |i: usize| {
            if i == at {
                id_there.to_string()
            } else {
                format!("S{i:06}")
            }
        };
        adsl_of(&id, &bad_date(bad_date_at, date))
    };
    let adsl =
        |dup_at: usize, bad_date_at: usize| adsl_with(dup_at, "S000007", bad_date_at, "2020-13-01");
    let err = |t: &CsvTable| read_adsl(t, None).map(|_| ()).unwrap_err().to_string();
    let with_empty_id =
        |empty_at: usize, bad_date_at: usize| adsl_with(empty_at, "", bad_date_at, "2020-02-30");
    // (table, what its error names): the first error in file order.
    let cases = [
        (adsl(20_000, 30_000), ["line 20002,", "appears again"]),
        (adsl(40_000, 30_000), ["line 30002,", "2020-13-01"]),
        // Both on one row: the id is read first, so the repeat is the row's error.
        (adsl(20_000, 20_000), ["line 20002,", "appears again"]),
        // An empty id is an error on its row, reported in file order with the others.
        (
            with_empty_id(25_000, 45_000),
            ["line 25002, column `USUBJID`", "USUBJID is empty"],
        ),
        (with_empty_id(45_000, 25_000), ["line 25002,", "2020-02-30"]),
    ];
    for (table, named) in &cases {
        let e = err(table);
        assert!(named.iter().all(|n| e.contains(n)), "{e}");
    }

    let table = adsl(usize::MAX, usize::MAX);
    let subjects = read_adsl(&table, None).unwrap();
    let known: KnownSubjects<'_> = subjects.iter().map(|s| &*s.usubjid).collect();
    let adtte = |dup_at: usize, bad_at: usize| {
        let mut t = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
        for i in 0..50_000 {
            let id = if i == dup_at { i - 1 } else { i };
            let aval = if i == bad_at { "x" } else { "10" };
            t.push_str(&format!("S{id:06},OS,{aval},0\n"));
        }
        CsvTable::from_bytes(Path::new("adtte.csv"), t.as_bytes()).unwrap()
    };
    let err = |t: &CsvTable| read_adtte(t, &known).map(|_| ()).unwrap_err().to_string();
    let e = err(&adtte(10_000, 30_000));
    assert!(
        e.contains("line 10002,") && e.contains("subject `S009999` has two `OS` records"),
        "{e}"
    );
    let e = err(&adtte(40_000, 30_000));
    assert!(e.contains("line 30002,") && e.contains("`x`"), "{e}");
}

/// AVALU converts AVAL to days in any case, singular or plural; another unit is an error.
#[test]
fn avalu_units_convert_to_days() {
    let adsl =
        CsvTable::from_bytes(Path::new("adsl.csv"), b"USUBJID\nS1\nS2\nS3\nS4\nS5\n").unwrap();
    let subjects = read_adsl(&adsl, None).unwrap();
    let known: KnownSubjects<'_> = subjects.iter().map(|s| &*s.usubjid).collect();
    let adtte = CsvTable::from_bytes(
        Path::new("adtte.csv"),
        b"USUBJID,PARAMCD,AVAL,AVALU,CNSR\nS1,OS,2,days,0\nS2,OS,2,Week,0\nS3,OS,2,MONTHS,0\nS4,OS,2,year,0\nS5,OS,2,,0\n",
    )
    .unwrap();
    let days: Vec<f64> = read_adtte(&adtte, &known)
        .unwrap()
        .records
        .iter()
        .map(|r| r.days)
        .collect();
    assert_eq!(days, [2.0, 14.0, 60.875, 730.5, 2.0]);
    let bad = CsvTable::from_bytes(
        Path::new("adtte.csv"),
        b"USUBJID,PARAMCD,AVAL,AVALU,CNSR\nS1,OS,2,fortnight,0\n",
    )
    .unwrap();
    let err = read_adtte(&bad, &known)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("`FORTNIGHT` is not a time unit"), "{err}");
}

/// The randomised example's subjects share their lists of ADSL columns by value, and TRTSDT
/// is not among them: kept as a column, a date different for nearly every subject gave each
/// subject a list of its own, and the arms' per-list look-ups cost 2 s at 10^7
/// (docs/PERFORMANCE.md).
#[test]
fn subjects_share_their_column_lists_by_value() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cfg = crate::config::load(&root.join("config/rand-example.yaml")).expect("config");
    let study = load_study(&cfg).expect("loaded");
    let lists: std::collections::HashSet<usize> =
        study.subjects.iter().map(|s| s.columns.list_id()).collect();
    let values: std::collections::HashSet<String> = study
        .subjects
        .iter()
        .map(|s| format!("{:?}", s.columns))
        .collect();
    assert!(study.subjects.len() >= 300);
    // One list per distinct set of values (one parallel job reads 300 rows).
    assert_eq!(lists.len(), values.len());
    // TRTSDT is each subject's `trt_start`, not one of its columns.
    assert!(study
        .subjects
        .iter()
        .all(|s| s.columns.get("TRTSDT").is_none()));
    assert!(study.subjects.iter().any(|s| s.trt_start.is_some()));
}
