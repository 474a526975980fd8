//! Word documents (`abstract.docx`, `report.docx`) with docx-rs: real headings (Word's
//! "Heading 1" styles), real tables, and the figures as PNG images rasterised from the same
//! SVGs as the HTML. Numbers are formatted by the same functions as the templates' filters
//! ([`crate::format::fmt_pct`] ...), so the Word and HTML reports agree to the digit.
//!
//! The output is deterministic: docx-rs stamps no dates, and the picture and paragraph ids are
//! set per document here (docx-rs's own counters are process-wide).

use std::io::Cursor;

use docx_rs::{
    AlignmentType, Docx, LineSpacing, Paragraph, Pic, Run, RunFonts, Style, StyleType, Table,
    TableBorder, TableBorderPosition, TableBorders, TableCell, TableCellBorder,
    TableCellBorderPosition, TableCellBorders, TableRow, WidthType,
};

use crate::endpoints::{BaselineSummary, Estimate};
use crate::error::{Error, Result};
use crate::format::{fixed, fmt_count_pct, fmt_limits, fmt_pct, fmt_plain, long_date};
use crate::plots;
use crate::render::DocumentContext;

/// Largest figure width on the page: 6 inches in EMU (914,400 per inch).
const MAX_FIGURE_WIDTH_EMU: u64 = 6 * 914_400;
/// Largest figure height: 8 inches, so a figure and its caption fit one Letter or A4 page.
const MAX_FIGURE_HEIGHT_EMU: u64 = 8 * 914_400;

/// `abstract.docx` from the plain-text abstract: the first paragraph is the title, and a
/// paragraph's leading "Label:" (Background, Methods, ...) is set in bold.
pub fn abstract_docx(plain: &str, cohort: &str, styles: Option<&[u8]>) -> Result<Vec<u8>> {
    let ids = Ids::default();
    let mut doc = with_styles(Docx::new());
    let mut paragraphs = plain
        .split("\n\n")
        .map(|p| p.trim().replace('\n', " "))
        .filter(|p| !p.is_empty());
    if let Some(title) = paragraphs.next() {
        doc = doc.add_paragraph(ids.p().style("Title").add_run(Run::new().add_text(title)));
    }
    for text in paragraphs {
        doc = doc.add_paragraph(labelled_paragraph(&ids, &text));
    }
    pack(doc, cohort, "abstract.docx", styles)
}

/// "Results: ..." → a paragraph with "Results:" in bold.
fn labelled_paragraph(ids: &Ids, text: &str) -> Paragraph {
    let label = text.split_once(": ").filter(|(label, _)| {
        !label.is_empty()
            && label.chars().count() <= 30
            && !label.contains('.')
            && label.chars().next().is_some_and(char::is_uppercase)
    });
    match label {
        Some((label, rest)) => ids
            .p()
            .add_run(Run::new().add_text(format!("{label}:")).bold())
            .add_run(Run::new().add_text(format!(" {rest}"))),
        None => ids.p().add_run(Run::new().add_text(text)),
    }
}

/// `report.docx`: the full cohort report, the same sections and numbers as `report.html`.
pub fn report_docx(
    ctx: &DocumentContext<'_>,
    cohort: &str,
    styles: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let ids = Ids::default();
    let a = ctx.analysis;
    let c = ctx.cohort;
    let f = Formats {
        pd: a.percent_decimals,
        td: a.time_decimals,
        level: a.ci_percent(),
        unit: a.time_unit.name(),
    };
    let mut doc = with_styles(Docx::new());
    doc = doc.add_paragraph(
        ids.p()
            .style("Title")
            .add_run(Run::new().add_text(ctx.text.title.clone())),
    );
    let mut header = format!("Study {}", ctx.study.id);
    if let Some(r) = &ctx.study.registry_id {
        header.push_str(&format!(" ({r})"));
    }
    header.push_str(&format!(" · cohort {} ({})", c.id, c.label));
    header.push_str(&match c.cutoff {
        Some(d) => format!(" · data cut-off {}", long_date(&d.to_string())),
        None => " · no data cut-off".to_string(),
    });
    doc = doc.add_paragraph(text(&ids, &header));

    // Populations.
    doc = doc.add_paragraph(heading(&ids, "Disposition and populations"));
    let mut rows = vec![
        vec!["Enrolled".to_string(), c.n.enrolled.to_string()],
        vec![
            match &c.n.efficacy_flag {
                Some(flag) => format!("Efficacy population ({flag} = Y)"),
                None => "Efficacy population (every subject)".to_string(),
            },
            c.n.efficacy.to_string(),
        ],
        vec![
            match &c.n.safety_flag {
                Some(flag) => format!("Safety population ({flag} = Y)"),
                None => "Safety population (every subject)".to_string(),
            },
            c.n.safety.to_string(),
        ],
    ];
    if let (Some(first), Some(last)) = (c.enrolment.first, c.enrolment.last) {
        rows.push(vec![
            "Enrolment".to_string(),
            format!(
                "{} to {}",
                long_date(&first.to_string()),
                long_date(&last.to_string())
            ),
        ]);
    }
    if let Some(centres) = c.enrolment.centres {
        rows.push(vec!["Centres".to_string(), centres.to_string()]);
    }
    doc = doc.add_table(table(&ids, &["Population", "Subjects"], &rows));

    // Baseline.
    if !c.baseline.is_empty() {
        doc = doc.add_paragraph(heading(&ids, "Baseline characteristics"));
        let n = c.n.enrolled as u64;
        doc = doc.add_table(table(
            &ids,
            &["Characteristic", &format!("All subjects (N = {n})")],
            &baseline_rows(&c.baseline, &f),
        ));
    }

    // Response.
    if let Some(r) = &c.response {
        doc = doc.add_paragraph(heading(
            &ids,
            if r.confirmed {
                "Best overall response (confirmed, RECIST 1.1)"
            } else {
                "Best overall response (unconfirmed, RECIST 1.1)"
            },
        ));
        let total = r.orr.total as u64;
        let mut rows: Vec<Vec<String>> = r
            .bor
            .iter()
            .map(|(code, n)| {
                vec![
                    response_label(code).to_string(),
                    fmt_count_pct(*n as u64, total, f.pd),
                    String::new(),
                ]
            })
            .collect();
        for (name, p) in [
            ("Objective response rate (CR + PR)", &r.orr),
            ("Disease control rate", &r.dcr),
        ] {
            rows.push(vec![
                name.to_string(),
                fmt_count_pct(p.n as u64, p.total as u64, f.pd),
                fmt_limits(p.lower, p.upper, f.pd, true),
            ]);
        }
        doc = doc.add_table(table(
            &ids,
            &[
                "Best overall response",
                &format!("n (%), N = {total}"),
                &format!("{}% CI", f.level),
            ],
            &rows,
        ));
    }

    // Time to event.
    if !c.tte.is_empty() {
        doc = doc.add_paragraph(heading(&ids, "Time-to-event endpoints"));
        let rows: Vec<Vec<String>> = c
            .tte
            .iter()
            .map(|(name, t)| {
                vec![
                    name.clone(),
                    t.n.to_string(),
                    fmt_count_pct(t.events as u64, t.n as u64, f.pd),
                    f.estimate(&t.median),
                    f.estimate(&t.q25),
                    f.estimate(&t.q75),
                ]
            })
            .collect();
        doc = doc.add_table(table(
            &ids,
            &[
                "Endpoint",
                "N",
                "Events, n (%)",
                &format!("Median, {} ({}% CI)", f.unit, f.level),
                &format!("25th percentile ({}% CI)", f.level),
                &format!("75th percentile ({}% CI)", f.level),
            ],
            &rows,
        ));
        let landmarks: Vec<Vec<String>> = c
            .tte
            .iter()
            .flat_map(|(name, t)| {
                t.landmarks.iter().map(move |l| {
                    vec![
                        name.clone(),
                        format!("{} {}", fmt_plain(l.time), f.unit),
                        l.n_risk.to_string(),
                        if l.beyond_last_followup {
                            "NE (beyond follow-up)".to_string()
                        } else {
                            fmt_pct(Some(l.surv), f.pd)
                        },
                        if l.beyond_last_followup {
                            String::new()
                        } else {
                            fmt_limits(l.lower, l.upper, f.pd, true)
                        },
                    ]
                })
            })
            .collect();
        if !landmarks.is_empty() {
            doc = doc.add_paragraph(subheading(&ids, "Landmark rates (Kaplan–Meier)"));
            doc = doc.add_table(table(
                &ids,
                &[
                    "Endpoint",
                    "Time",
                    "At risk",
                    "Rate",
                    &format!("{}% CI", f.level),
                ],
                &landmarks,
            ));
        }
    }
    if let Some(fu) = &c.followup {
        doc = doc.add_paragraph(heading(&ids, "Follow-up"));
        doc = doc.add_paragraph(text(
            &ids,
            &format!(
                "Median follow-up (reverse Kaplan–Meier, {}): {} ({}% CI: {}).",
                fu.label,
                match fu.estimate {
                    Some(x) => format!("{} {}", fixed(x, f.td), f.unit),
                    None => "not reached".to_string(),
                },
                f.level,
                fmt_limits(fu.lower, fu.upper, f.td, false)
            ),
        ));
    }

    // Safety.
    if let Some(s) = &c.safety {
        let total = s.total as u64;
        doc = doc.add_paragraph(heading(
            &ids,
            &format!("Adverse events (safety population, N = {total})"),
        ));
        let g = s.grading;
        let severity = g == crate::endpoints::AeGrading::Severity;
        let summary = [
            (g.any(), s.teae.any, s.trae.any),
            (g.severe(), s.teae.grade3plus, s.trae.grade3plus),
            ("Grade ≥4", s.teae.grade4plus, s.trae.grade4plus),
            ("Serious", s.teae.serious, s.trae.serious),
            (
                if severity { "Fatal" } else { "Fatal (grade 5)" },
                s.teae.fatal,
                s.trae.fatal,
            ),
        ];
        let rows: Vec<Vec<String>> = summary
            .iter()
            // Severity has no grade 4.
            .filter(|(name, _, _)| !(severity && name.starts_with("Grade ≥4")))
            .map(|(name, teae, trae)| {
                vec![
                    name.to_string(),
                    fmt_count_pct(*teae as u64, total, f.pd),
                    fmt_count_pct(*trae as u64, total, f.pd),
                ]
            })
            .collect();
        doc = doc.add_table(table(
            &ids,
            &["Subjects with", "TEAE, n (%)", "TRAE, n (%)"],
            &rows,
        ));
        if !s.by_term.is_empty() {
            doc = doc.add_paragraph(subheading(
                &ids,
                &format!(
                    "By preferred term (each subject counted once, at the {})",
                    g.worst()
                ),
            ));
            let rows: Vec<Vec<String>> = s
                .by_term
                .iter()
                .map(|t| {
                    vec![
                        t.term.clone(),
                        t.soc.clone().unwrap_or_default(),
                        fmt_count_pct(t.teae_any as u64, total, f.pd),
                        fmt_count_pct(t.teae_grade3plus as u64, total, f.pd),
                        fmt_count_pct(t.trae_any as u64, total, f.pd),
                        fmt_count_pct(t.trae_grade3plus as u64, total, f.pd),
                    ]
                })
                .collect();
            doc = doc.add_table(table(
                &ids,
                &[
                    "Preferred term",
                    "System organ class",
                    &format!("TEAE {}", g.any().to_lowercase()),
                    &format!("TEAE {}", g.severe().to_lowercase()),
                    &format!("TRAE {}", g.any().to_lowercase()),
                    &format!("TRAE {}", g.severe().to_lowercase()),
                ],
                &rows,
            ));
        }
    }

    doc = doc.add_paragraph(heading(&ids, "Methods"));
    doc = doc.add_paragraph(text(&ids, &ctx.methods_statistics));

    if !c.warnings.is_empty() {
        doc = doc.add_paragraph(heading(&ids, "Warnings"));
        for w in &c.warnings {
            doc = doc.add_paragraph(text(&ids, &format!("• {w}")));
        }
    }

    if !ctx.figures.is_empty() {
        doc = doc.add_paragraph(heading(&ids, "Figures"));
        for (i, fig) in ctx.figures.iter().enumerate() {
            // The figure's PNG when the build made one (at the same scale), else drawn here.
            let png = match &fig.png {
                Some(png) => png.to_vec(),
                None => plots::figure_png(&fig.svg).map_err(|e| Error::Analysis {
                    cohort: cohort.to_string(),
                    message: format!("figure {} for report.docx: {e}", fig.name),
                })?,
            };
            let Some((w, h)) = png_size(&png) else {
                return Err(Error::Analysis {
                    cohort: cohort.to_string(),
                    message: format!("figure {}: the rasterised PNG has no size", fig.name),
                });
            };
            let (w_emu, h_emu) = fit_page(w, h);
            let pic = Pic::new_with_dimensions(png, w, h)
                .size(w_emu, h_emu)
                .id(format!("rIdImage{}", i + 1));
            doc = doc.add_paragraph(ids.p().add_run(Run::new().add_image(pic)));
            doc = doc.add_paragraph(
                ids.p()
                    .style("Caption")
                    .add_run(Run::new().add_text(format!("Figure {}. {}", i + 1, fig.caption))),
            );
        }
    }
    pack(doc, cohort, "report.docx", styles)
}

/// Paragraph ids (`w14:paraId`) numbered per document: docx-rs's own counter is per thread
/// and never reset, which would make a document depend on what the thread built before.
#[derive(Default)]
struct Ids(std::cell::Cell<u32>);

impl Ids {
    /// A new paragraph with the next id.
    fn p(&self) -> Paragraph {
        let id = self.0.get() + 1;
        self.0.set(id);
        Paragraph::new().id(format!("{id:08X}"))
    }
}

/// Number formats of one cohort.
struct Formats {
    pd: usize,
    td: usize,
    level: f64,
    unit: &'static str,
}

impl Formats {
    /// "8.41 (2.83, NE)"; "NR (2.83, NE)" when not reached.
    fn estimate(&self, e: &Estimate) -> String {
        let point = match e.estimate {
            Some(x) => fixed(x, self.td),
            None => "NR".to_string(),
        };
        format!("{point} ({})", fmt_limits(e.lower, e.upper, self.td, false))
    }
}

fn baseline_rows(baseline: &[BaselineSummary], f: &Formats) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for b in baseline {
        match (&b.stats, b.levels.is_empty()) {
            (Some(s), _) => {
                rows.push(vec![
                    format!("{}, median (range)", b.label),
                    format!(
                        "{} ({}–{})",
                        fmt_plain(s.median),
                        fmt_plain(s.min),
                        fmt_plain(s.max)
                    ),
                ]);
            }
            (None, false) => {
                rows.push(vec![format!("{}, n (%)", b.label), String::new()]);
                for l in &b.levels {
                    rows.push(vec![
                        format!("    {}", l.value),
                        fmt_count_pct(l.n as u64, l.total as u64, f.pd),
                    ]);
                }
            }
            (None, true) => rows.push(vec![b.label.clone(), "no data".to_string()]),
        }
        if b.missing > 0 {
            rows.push(vec!["    Missing".to_string(), b.missing.to_string()]);
        }
    }
    rows
}

/// The words of a BOR code for tables.
pub fn response_label(code: &str) -> &str {
    match code {
        "CR" => "Complete response (CR)",
        "PR" => "Partial response (PR)",
        "SD" => "Stable disease (SD)",
        "NON-CR/NON-PD" => "Non-CR/non-PD",
        "PD" => "Progressive disease (PD)",
        "NE" => "Not evaluable (NE)",
        other => other,
    }
}

/// The house style of a study report: a sans font at 10 pt for the text, headings with room
/// above and below them (sizes in half-points, spacing in twentieths of a point).
fn with_styles(doc: Docx) -> Docx {
    const FONT: &str = "Arial";
    doc.default_fonts(
        RunFonts::new()
            .ascii(FONT)
            .hi_ansi(FONT)
            .cs(FONT)
            .east_asia(FONT),
    )
    .default_size(20)
    .add_style(
        Style::new("Title", StyleType::Paragraph)
            .name("Title")
            .bold()
            .size(32)
            .line_spacing(LineSpacing::new().after(240)),
    )
    .add_style(
        Style::new("Heading1", StyleType::Paragraph)
            .name("Heading 1")
            .bold()
            .size(28)
            .outline_lvl(0)
            .line_spacing(LineSpacing::new().before(360).after(120)),
    )
    .add_style(
        Style::new("Heading2", StyleType::Paragraph)
            .name("Heading 2")
            .bold()
            .size(24)
            .outline_lvl(1)
            .line_spacing(LineSpacing::new().before(240).after(120)),
    )
    .add_style(
        Style::new("Caption", StyleType::Paragraph)
            .name("Caption")
            .italic()
            .size(18),
    )
}

fn heading(ids: &Ids, t: &str) -> Paragraph {
    ids.p().style("Heading1").add_run(Run::new().add_text(t))
}

fn subheading(ids: &Ids, t: &str) -> Paragraph {
    ids.p().style("Heading2").add_run(Run::new().add_text(t))
}

fn text(ids: &Ids, t: &str) -> Paragraph {
    ids.p().add_run(Run::new().add_text(t))
}

/// A three-line table, as study reports set them: a rule above the bold header row, one below
/// it and one under the last row, no other lines; numbers (every column after the first)
/// right-aligned.
fn table(ids: &Ids, header: &[&str], rows: &[Vec<String>]) -> Table {
    let cell = |t: &str, bold: bool, right: bool| {
        let mut run = Run::new().add_text(t).size(18);
        if bold {
            run = run.bold();
        }
        let mut p = ids.p().add_run(run);
        if right {
            p = p.align(AlignmentType::Right);
        }
        let cell = TableCell::new().add_paragraph(p);
        if bold {
            cell.set_borders(
                TableCellBorders::with_empty()
                    .set(TableCellBorder::new(TableCellBorderPosition::Bottom).size(6)),
            )
        } else {
            cell
        }
    };
    let mut all = vec![TableRow::new(
        header
            .iter()
            .enumerate()
            .map(|(i, h)| cell(h, true, i > 0))
            .collect(),
    )];
    all.extend(rows.iter().map(|r| {
        TableRow::new(
            r.iter()
                .enumerate()
                .map(|(i, t)| cell(t, false, i > 0))
                .collect(),
        )
    }));
    let rules = TableBorders::with_empty()
        .set(TableBorder::new(TableBorderPosition::Top).size(12))
        .set(TableBorder::new(TableBorderPosition::Bottom).size(12));
    Table::new(all)
        .width(5000, WidthType::Pct)
        .set_borders(rules)
}

/// Width and height of a PNG from its IHDR chunk.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let w = png.get(16..20)?;
    let h = png.get(20..24)?;
    Some((
        u32::from_be_bytes(w.try_into().ok()?),
        u32::from_be_bytes(h.try_into().ok()?),
    ))
}

/// EMU size of a picture rasterised at [`plots::PNG_SCALE`], shrunk (keeping its shape) to
/// be no wider than the text column and no taller than a page's text (an adverse-event chart
/// of many terms is several pages tall at its own size).
fn fit_page(w: u32, h: u32) -> (u32, u32) {
    // 9,525 EMU per CSS pixel at the figure's own (unscaled) size.
    let w_emu = f64::from(w) / f64::from(plots::PNG_SCALE) * 9525.0;
    let h_emu = f64::from(h) / f64::from(plots::PNG_SCALE) * 9525.0;
    let ratio = [
        1.0,
        MAX_FIGURE_WIDTH_EMU as f64 / w_emu.max(1.0),
        MAX_FIGURE_HEIGHT_EMU as f64 / h_emu.max(1.0),
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min);
    (
        (w_emu * ratio).round() as u32,
        (h_emu * ratio).round() as u32,
    )
}

fn pack(doc: Docx, cohort: &str, file: &str, styles: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut buf = Cursor::new(Vec::new());
    let failed = |e: &dyn std::fmt::Display| Error::Analysis {
        cohort: cohort.to_string(),
        message: format!("cannot write {file}: {e}"),
    };
    doc.build().pack(&mut buf).map_err(|e| failed(&e))?;
    match styles {
        Some(styles) => with_reference_styles(&buf.into_inner(), styles).map_err(|e| failed(&e)),
        None => Ok(buf.into_inner()),
    }
}

/// The styles part a Word file takes from `output.docx_reference`.
const STYLES_PART: &str = "word/styles.xml";

/// `word/styles.xml` of a reference document's bytes; the error says what is wrong with it.
pub fn reference_styles(docx: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(docx))
        .map_err(|e| format!("not a .docx (a zip archive): {e}"))?;
    let mut part = archive
        .by_name(STYLES_PART)
        .map_err(|_| format!("no {STYLES_PART} in it; expected a Word document"))?;
    let mut styles = Vec::new();
    std::io::Read::read_to_end(&mut part, &mut styles)
        .map_err(|e| format!("cannot read its {STYLES_PART}: {e}"))?;
    Ok(styles)
}

/// `docx` with its styles part replaced by `styles` (every other part copied as it is).
fn with_reference_styles(docx: &[u8], styles: &[u8]) -> zip::result::ZipResult<Vec<u8>> {
    use std::io::Write;
    let mut archive = zip::ZipArchive::new(Cursor::new(docx))?;
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        // A fixed time, so the same inputs give the same bytes.
        .last_modified_time(zip::DateTime::default());
    for i in 0..archive.len() {
        let mut part = archive.by_index(i)?;
        let name = part.name().to_string();
        out.start_file(name.as_str(), options)?;
        if name == STYLES_PART {
            out.write_all(styles)?;
        } else {
            std::io::copy(&mut part, &mut out)?;
        }
    }
    Ok(out.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_recognised() {
        let p = labelled_paragraph(&Ids::default(), "Results: 13 pts achieved PR.");
        assert_eq!(p.children.len(), 2);
        let p = labelled_paragraph(&Ids::default(), "Ratio 1.5: something");
        assert_eq!(p.children.len(), 1);
    }

    #[test]
    fn figures_fit_the_text_column_and_the_page() {
        // Wider than the column: 6 in wide, the shape kept.
        let (w, h) = fit_page(1600, 1000);
        assert_eq!(w as u64, MAX_FIGURE_WIDTH_EMU);
        assert_eq!(
            h,
            (MAX_FIGURE_WIDTH_EMU as f64 * 1000.0 / 1600.0).round() as u32
        );
        // Small: its own size (100 CSS pixels at scale 2 = 952,500 EMU).
        assert_eq!(fit_page(200, 100), (952_500, 476_250));
        // Taller than a page (an adverse-event chart of 100 terms): 8 in tall.
        let (w, h) = fit_page(1120, 23_000);
        assert_eq!(h as u64, MAX_FIGURE_HEIGHT_EMU);
        assert_eq!(
            w,
            (MAX_FIGURE_HEIGHT_EMU as f64 * 1120.0 / 23_000.0).round() as u32
        );
    }

    #[test]
    fn png_size_reads_the_header() {
        let mut png = vec![0u8; 24];
        png[16..20].copy_from_slice(&640u32.to_be_bytes());
        png[20..24].copy_from_slice(&480u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((640, 480)));
        assert_eq!(png_size(&png[..10]), None);
    }
}
