//! `tables.xlsx`: the report's tables as Excel sheets (docs/OUTPUTS.md, "tables.xlsx"), one
//! per numbered table, with the numbers stored as numbers. A printed cell such as
//! "54 (36.0%)" or "8.3 (6.0, 9.8)" is split into its numbers, each in a column of its own
//! under the report's column header, shown with the decimals (and percent sign) the document
//! prints; what is not a number ("NE", "NR", "< 0.001", a range with a censoring mark "1.4+")
//! stays text in its place. Deterministic: the workbook is dated at the cut-off.

use rust_xlsxwriter::{DocProperties, ExcelDateTime, Format, FormatAlign, Workbook, Worksheet};

use crate::documents::report::{Block, Report, Row, Table};

/// A piece of a printed cell: a number (its value, decimals, percent) or text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    /// A number as printed: "36.0%" is `value` 0.36, 1 decimal, percent.
    Number {
        value: f64,
        decimals: usize,
        percent: bool,
        grouped: bool,
    },
    /// A value printed as words or with a mark ("NE", "NR", "1.4+", "< 0.001").
    Text(String),
}

/// The values of a number cell, left to right; the brackets, commas and dashes between them
/// are dropped (the column header says what the cell holds).
pub(crate) fn pieces(text: &str) -> Vec<Piece> {
    let text = text.trim();
    // A p-value below what is printed is a bound, not a number; a date or a range of dates
    // ("March 5, 2021 to August 31, 2022", "2021-03-05") is one text, not its numbers.
    if text.starts_with(['<', '>', '≤', '≥']) || text.starts_with("p <") || is_date_text(text) {
        return vec![Piece::Text(text.to_string())];
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let minus = (c == '\u{2212}' || c == '-')
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && (i == 0 || matches!(chars[i - 1], ' ' | '(' | '['));
        // A number after a bound sign ("(< 0.001)") is the bound, as printed.
        let bound = if c.is_ascii_digit() {
            let mut k = i;
            while k > 0 && chars[k - 1] == ' ' {
                k -= 1;
            }
            (k > 0 && matches!(chars[k - 1], '<' | '>' | '≤' | '≥')).then_some(k - 1)
        } else {
            None
        };
        if let Some(sign) = bound {
            let mut end = i;
            while end < chars.len() && (chars[end].is_ascii_digit() || chars[end] == '.') {
                end += 1;
            }
            out.push(Piece::Text(chars[sign..end].iter().collect()));
            i = end;
            continue;
        }
        if c.is_ascii_digit() || minus {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], '.' | ',')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let token: String = chars[start..i].iter().collect();
            let percent = chars.get(i) == Some(&'%');
            if percent {
                i += 1;
            }
            // A censoring mark, or a number run into letters ("3a"): text as printed.
            if chars.get(i).is_some_and(|c| *c == '+' || c.is_alphabetic()) {
                let mut end = i;
                while end < chars.len() && !matches!(chars[end], ' ' | ',' | ')' | '–') {
                    end += 1;
                }
                out.push(Piece::Text(chars[start..end].iter().collect()));
                i = end;
                continue;
            }
            out.push(number(&token, percent));
        } else if c.is_alphabetic() {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '-') {
                i += 1;
            }
            out.push(Piece::Text(chars[start..i].iter().collect()));
        } else {
            i += 1;
        }
    }
    // A cell of words (not a value printed as words) stays whole.
    if !out.iter().any(|p| matches!(p, Piece::Number { .. })) && out.len() > 1 {
        return vec![Piece::Text(text.to_string())];
    }
    out
}

/// Whether a cell prints a date: an ISO date (`2021-03-05`) or a month's name followed by a
/// day ("March 5, 2021").
fn is_date_text(text: &str) -> bool {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let iso = text.as_bytes().windows(10).any(|w| {
        w.iter().enumerate().all(|(k, b)| match k {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
    });
    iso || MONTHS.iter().any(|m| {
        text.match_indices(m).any(|(at, _)| {
            text[at + m.len()..]
                .strip_prefix(' ')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

fn number(token: &str, percent: bool) -> Piece {
    let plain: String = token
        .chars()
        .filter(|c| *c != ',')
        .map(|c| if c == '\u{2212}' { '-' } else { c })
        .collect();
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
    // A percentage read as its fraction from the digits ("42.7" as 0.427, not 42.7 / 100,
    // which is 0.42700000000000005).
    let value: f64 = if percent {
        format!("{plain}e-2").parse()
    } else {
        plain.parse()
    }
    .unwrap_or(f64::NAN);
    if !value.is_finite() {
        return Piece::Text(token.to_string());
    }
    Piece::Number {
        value,
        decimals,
        percent,
        grouped: token.contains(','),
    }
}

/// The most characters a cell holds (Excel's limit).
const MAX_CELL_CHARS: usize = 32_767;

/// `text` as a cell holds it: cut to Excel's limit with an ellipsis (a text that long is a
/// label from the data, whose start names it; the report keeps it whole, and [`cut_tables`]
/// says which table had one).
fn in_cell(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_CELL_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some(_) => {
            let cut: String = text.chars().take(MAX_CELL_CHARS - 1).collect();
            std::borrow::Cow::Owned(cut + "…")
        }
    }
}

/// The captions of the report's tables with a text longer than a cell holds, for a warning.
pub fn cut_tables(report: &Report) -> Vec<String> {
    captioned(report)
        .iter()
        .filter(|t| {
            std::iter::once(t.caption)
                .chain(t.notes.iter().copied())
                .chain(
                    t.table
                        .head
                        .iter()
                        .chain(&t.table.body)
                        .flat_map(|r| r.cells.iter().map(|c| c.text.as_str())),
                )
                .any(|text| text.chars().nth(MAX_CELL_CHARS).is_some())
        })
        .map(|t| t.caption.to_string())
        .collect()
}

/// The Excel number format of a printed number: "0.0%", "#,##0", "0.00".
fn num_format(decimals: usize, percent: bool, grouped: bool) -> String {
    let mut f = String::from(if grouped { "#,##0" } else { "0" });
    if decimals > 0 {
        f.push('.');
        f.push_str(&"0".repeat(decimals));
    }
    if percent {
        f.push('%');
    }
    f
}

/// A table of the report with its caption and the notes under it.
struct Captioned<'a> {
    caption: &'a str,
    table: &'a Table,
    notes: Vec<&'a str>,
}

fn captioned(report: &Report) -> Vec<Captioned<'_>> {
    let mut out: Vec<Captioned<'_>> = Vec::new();
    for section in &report.sections {
        let mut caption = section.heading.as_str();
        let mut last_was_table = false;
        for block in &section.blocks {
            match block {
                Block::Caption { text, .. } | Block::Subheading { text } => caption = text,
                Block::Table(table) => out.push(Captioned {
                    caption,
                    table,
                    notes: Vec::new(),
                }),
                Block::Note { text } if last_was_table => {
                    if let Some(last) = out.last_mut() {
                        last.notes.push(text);
                    }
                }
                _ => {}
            }
            last_was_table = matches!(block, Block::Table(_) | Block::Note { .. });
        }
    }
    out
}

/// Each cell's place in the grid: (row in the table, first column, columns, rows spanned);
/// a cell spanning rows holds its columns in the rows below it.
fn grid(rows: &[Row]) -> Vec<Vec<(usize, usize, usize)>> {
    let mut held: Vec<usize> = Vec::new(); // rows still held, per column
    let mut places = Vec::with_capacity(rows.len());
    for row in rows {
        let mut col = 0;
        let mut cells = Vec::with_capacity(row.cells.len());
        for cell in &row.cells {
            while held.get(col).is_some_and(|h| *h > 0) {
                col += 1;
            }
            let span = cell.colspan.max(1) as usize;
            if held.len() < col + span {
                held.resize(col + span, 0);
            }
            for h in &mut held[col..col + span] {
                *h = cell.rowspan.max(1) as usize;
            }
            cells.push((col, span, cell.rowspan.max(1) as usize));
            col += span;
        }
        places.push(cells);
        for h in &mut held {
            *h = h.saturating_sub(1);
        }
    }
    places
}

/// The workbook of a cohort's report tables; `cutoff` dates it.
pub fn tables_xlsx(report: &Report, cutoff: Option<chrono::NaiveDate>) -> Result<Vec<u8>, String> {
    let e = |e: rust_xlsxwriter::XlsxError| e.to_string();
    let mut book = Workbook::new();
    let (y, m, d) = cutoff.map_or((2000, 1, 1), |d| {
        use chrono::Datelike;
        (
            d.year().clamp(1900, 9999) as u16,
            d.month() as u8,
            d.day() as u8,
        )
    });
    book.set_properties(
        &DocProperties::new()
            .set_author("readout")
            .set_creation_datetime(&ExcelDateTime::from_ymd(y, m, d).map_err(e)?),
    );
    let tables = captioned(report);
    for (i, t) in tables.iter().enumerate() {
        let sheet = book.add_worksheet();
        // "Table 3. Title" names its sheet "Table 3"; unnumbered ones by their place.
        let name = t
            .caption
            .split_once(". ")
            .map(|(n, _)| n.to_string())
            .filter(|n| n.len() <= 31 && n.starts_with("Table "))
            .unwrap_or_else(|| format!("Table {}", i + 1));
        sheet.set_name(name).map_err(e)?;
        write_table(sheet, t).map_err(e)?;
    }
    if tables.is_empty() {
        book.add_worksheet()
            .write_string(0, 0, "The report has no tables.")
            .map_err(e)?;
    }
    book.save_to_buffer().map_err(e)
}

fn write_table(sheet: &mut Worksheet, t: &Captioned<'_>) -> Result<(), rust_xlsxwriter::XlsxError> {
    let table = t.table;
    let head = grid(&table.head);
    let body = grid(&table.body);
    let columns = head
        .iter()
        .chain(&body)
        .flat_map(|r| r.iter().map(|(c, s, _)| c + s))
        .max()
        .unwrap_or(0);
    // How many Excel columns each report column takes: the most values a body cell holds.
    let body_pieces: Vec<Vec<Vec<Piece>>> = table
        .body
        .iter()
        .map(|row| {
            row.cells
                .iter()
                .map(|cell| {
                    if cell.num {
                        pieces(&cell.text)
                    } else {
                        vec![Piece::Text(cell.text.clone())]
                    }
                })
                .collect()
        })
        .collect();
    let mut width = vec![1usize; columns];
    for (places, cells) in body.iter().zip(&body_pieces) {
        for ((col, span, _), p) in places.iter().zip(cells) {
            if *span == 1 {
                width[*col] = width[*col].max(p.len());
            }
        }
    }
    let start: Vec<u16> = width
        .iter()
        .scan(0usize, |at, w| {
            let s = *at;
            *at += w;
            Some(s as u16)
        })
        .collect();
    let end = |col: usize, span: usize| -> u16 {
        start[col + span - 1] + width[col + span - 1] as u16 - 1
    };
    let bold = Format::new().set_bold();
    let head_format = Format::new()
        .set_bold()
        .set_text_wrap()
        .set_align(FormatAlign::Center)
        .set_align(FormatAlign::Top);
    let mut chars = vec![0usize; start.last().map_or(0, |s| *s as usize + width[columns - 1])];
    sheet.write_string_with_format(0, 0, in_cell(t.caption), &bold)?;
    let top = 1u32;
    for (r, (row, places)) in table.head.iter().zip(&head).enumerate() {
        for (cell, (col, span, rows)) in row.cells.iter().zip(places) {
            let (r0, c0) = (top + r as u32, start[*col]);
            let (r1, c1) = (r0 + *rows as u32 - 1, end(*col, *span));
            if r1 > r0 || c1 > c0 {
                sheet.merge_range(r0, c0, r1, c1, &in_cell(&cell.text), &head_format)?;
            } else {
                sheet.write_string_with_format(r0, c0, in_cell(&cell.text), &head_format)?;
            }
        }
    }
    let first_body = top + table.head.len() as u32;
    let indent = Format::new().set_indent(1);
    for (r, ((row, places), cells)) in table.body.iter().zip(&body).zip(&body_pieces).enumerate() {
        let excel_row = first_body + r as u32;
        let group = row.class == Some("group") || row.class == Some("total");
        for ((cell, (col, span, _)), values) in row.cells.iter().zip(places).zip(cells) {
            let c0 = start[*col];
            if !cell.num || *span > 1 {
                let format = if group {
                    &bold
                } else if cell.level {
                    &indent
                } else {
                    &Format::new()
                };
                let c1 = end(*col, *span);
                if c1 > c0 {
                    sheet.merge_range(
                        excel_row,
                        c0,
                        excel_row,
                        c1,
                        &in_cell(&cell.text),
                        format,
                    )?;
                } else {
                    sheet.write_string_with_format(excel_row, c0, in_cell(&cell.text), format)?;
                }
                chars[c0 as usize] = chars[c0 as usize].max(cell.text.chars().count() + 2);
                continue;
            }
            for (k, piece) in values.iter().enumerate() {
                let c = c0 + k as u16;
                match piece {
                    Piece::Number {
                        value,
                        decimals,
                        percent,
                        grouped,
                    } => {
                        let format =
                            Format::new().set_num_format(num_format(*decimals, *percent, *grouped));
                        sheet.write_number_with_format(excel_row, c, *value, &format)?;
                        let shown = value.abs().max(1.0).log10() as usize + 3 + decimals;
                        chars[c as usize] = chars[c as usize].max(shown);
                    }
                    Piece::Text(text) => {
                        let right = Format::new().set_align(FormatAlign::Right);
                        sheet.write_string_with_format(excel_row, c, in_cell(text), &right)?;
                        chars[c as usize] = chars[c as usize].max(text.chars().count() + 1);
                    }
                }
            }
        }
    }
    let below = first_body + table.body.len() as u32 + 1;
    for (row, note) in (below..).zip(&t.notes) {
        sheet.write_string(row, 0, in_cell(note))?;
    }
    for (c, n) in chars.iter().enumerate() {
        // The label column as wide as its longest label (up to 60), the values at least 8.
        let w = if c == 0 {
            (*n).clamp(12, 60)
        } else {
            (*n).clamp(8, 30)
        };
        sheet.set_column_width(c as u16, w as f64)?;
    }
    sheet.set_freeze_panes(first_body, 1)?;
    Ok(())
}

/// The text a cell's pieces came from, for the tests: each number printed as the document does.
#[cfg(test)]
fn shown(pieces: &[Piece]) -> Vec<String> {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Number {
                value,
                decimals,
                percent,
                ..
            } => {
                let v = if *percent { value * 100.0 } else { *value };
                format!(
                    "{}{}",
                    crate::format::fixed(v, *decimals),
                    if *percent { "%" } else { "" }
                )
            }
            Piece::Text(t) => t.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::report::Cell;

    #[test]
    fn bounds_and_dates_stay_as_printed() {
        let text = |t: &str| Piece::Text(t.to_string());
        assert_eq!(pieces("< 0.001"), [text("< 0.001")]);
        assert_eq!(
            pieces("0.59 (< 0.001)"),
            [
                Piece::Number {
                    value: 0.59,
                    decimals: 2,
                    percent: false,
                    grouped: false
                },
                text("< 0.001")
            ]
        );
        assert_eq!(
            pieces("March 5, 2021 to August 31, 2022"),
            [text("March 5, 2021 to August 31, 2022")]
        );
        assert_eq!(pieces("2021-03-05"), [text("2021-03-05")]);
    }

    #[test]
    fn printed_cells_split_into_their_numbers() {
        for (text, expected) in [
            ("54 (36.0%)", vec!["54", "36.0%"]),
            ("12 (8.1%) [15]", vec!["12", "8.1%", "15"]),
            ("8.3 (6.0, 9.8)", vec!["8.3", "6.0", "9.8"]),
            ("NR (14.2, NE)", vec!["NR", "14.2", "NE"]),
            ("0.59 (0.45–0.76)", vec!["0.59", "0.45", "0.76"]),
            ("1.4+–20.3", vec!["1.4+", "20.3"]),
            (
                "\u{2212}0.5 (\u{2212}1.2, 0.3)",
                vec!["\u{2212}0.5", "\u{2212}1.2", "0.3"],
            ),
            ("1,234", vec!["1234"]),
            ("p < 0.001", vec!["p < 0.001"]),
            ("< 0.001", vec!["< 0.001"]),
            ("–", vec![]),
            ("Reference", vec!["Reference"]),
            ("NE (beyond follow-up)", vec!["NE (beyond follow-up)"]),
            ("31.5%, 47.6%", vec!["31.5%", "47.6%"]),
        ] {
            assert_eq!(shown(&pieces(text)), expected, "{text}");
        }
        assert_eq!(
            pieces("36.0%"),
            vec![Piece::Number {
                value: 0.36,
                decimals: 1,
                percent: true,
                grouped: false
            }]
        );
        assert_eq!(num_format(1, true, false), "0.0%");
        assert_eq!(num_format(0, false, true), "#,##0");
    }

    #[test]
    fn the_grid_places_spanning_cells() {
        let cell = |colspan: u32, rowspan: u32| Cell {
            text: String::new(),
            num: false,
            level: false,
            colspan,
            rowspan,
        };
        let rows = vec![
            Row {
                class: None,
                cells: vec![cell(1, 2), cell(2, 1), cell(1, 1)],
            },
            Row {
                class: None,
                cells: vec![cell(1, 1), cell(1, 1), cell(1, 1)],
            },
        ];
        assert_eq!(
            grid(&rows),
            vec![
                vec![(0, 1, 2), (1, 2, 1), (3, 1, 1)],
                vec![(1, 1, 1), (2, 1, 1), (3, 1, 1)]
            ]
        );
    }
}
