//! Word documents (`abstract.docx`, `report.docx`) with docx-rs: real headings (Word's
//! "Heading 1" styles), real tables, and the figures as PNG images rasterised from the same
//! SVGs as the HTML. `report.docx` is written from the same document model as `report.html`
//! ([`crate::report`]), so the Word and HTML reports have the same tables to the digit.
//!
//! The output is deterministic: docx-rs stamps no dates, and the picture and paragraph ids are
//! set per document here (docx-rs's own counters are process-wide).

use std::io::Cursor;

use docx_rs::{
    AlignmentType, Docx, LineSpacing, Paragraph, Pic, Run, RunFonts, Style, StyleType, Table,
    TableBorder, TableBorderPosition, TableBorders, TableCell, TableCellBorder,
    TableCellBorderPosition, TableCellBorders, TableRow, VMergeType, WidthType,
};

use crate::error::{Error, Result};
use crate::plots;
use crate::render::DocumentContext;
use crate::report::{self, Block};

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

/// `report.docx`: the cohort report written from the same document model as `report.html`
/// ([`crate::report::Report`]): its facts, sections, tables and figures.
pub fn report_docx(
    ctx: &DocumentContext<'_>,
    cohort: &str,
    styles: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let ids = Ids::default();
    let report = &ctx.report;
    // A reference document with a table style `Table` (as pandoc's) styles every table;
    // otherwise the tables carry the house rules themselves.
    let rules = !styles.is_some_and(has_table_style);
    let mut doc = with_styles(Docx::new());
    doc = doc.add_paragraph(text(&ids, &report.kicker));
    doc = doc.add_paragraph(
        ids.p()
            .style("Title")
            .add_run(Run::new().add_text(ctx.text.title.clone())),
    );
    for fact in &report.facts {
        doc = doc.add_paragraph(
            ids.p()
                .add_run(Run::new().add_text(format!("{}: ", fact.label)).bold())
                .add_run(Run::new().add_text(fact.value.clone())),
        );
    }
    for section in &report.sections {
        doc = doc.add_paragraph(heading(&ids, &section.heading));
        for block in &section.blocks {
            doc = match block {
                Block::Table(t) => doc.add_table(table(&ids, t, rules)),
                Block::Subheading { text } => doc.add_paragraph(subheading(&ids, text)),
                Block::Paragraph { text: t } => doc.add_paragraph(text(&ids, t)),
                Block::Note { text: t } => doc.add_paragraph(
                    ids.p()
                        .style("Caption")
                        .add_run(Run::new().add_text(t.clone())),
                ),
                Block::List { items } => items.iter().fold(doc, |doc, item| {
                    doc.add_paragraph(text(&ids, &format!("• {item}")))
                }),
                Block::Figures => add_figures(doc, &ids, ctx, cohort)?,
            };
        }
    }
    pack(doc, cohort, "report.docx", styles)
}

/// The cohort's figures as PNG pictures, each with its numbered caption.
fn add_figures(mut doc: Docx, ids: &Ids, ctx: &DocumentContext<'_>, cohort: &str) -> Result<Docx> {
    for (i, fig) in ctx.figures.iter().enumerate() {
        // The figure's PNG when the build made one (at the same scale), else drawn here.
        let png = match &fig.png {
            Some(png) => png.to_vec(),
            None => plots::figure_png(&fig.svg).map_err(|source| Error::Figure {
                cohort: Some(cohort.to_string()),
                figure: format!("{} for report.docx", fig.name),
                source,
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
    Ok(doc)
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
        Style::new(TABLE_STYLE, StyleType::Table)
            .name(TABLE_STYLE)
            .set_borders(
                TableBorders::with_empty()
                    .set(TableBorder::new(TableBorderPosition::Top).size(12))
                    .set(TableBorder::new(TableBorderPosition::Bottom).size(12)),
            ),
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

/// The table style every table names: a reference document's, when it has one.
const TABLE_STYLE: &str = "Table";

/// Whether a styles part defines the table style [`TABLE_STYLE`].
fn has_table_style(styles: &[u8]) -> bool {
    let needle = format!("w:styleId=\"{TABLE_STYLE}\"");
    styles.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// A table of the document model. With `rules`, a three-line table as study reports set them:
/// a rule above the bold header, one below it and one under the last row, no other lines;
/// without, the reference document's table style alone. Number cells right-aligned, levels
/// indented; spans as the model gives them.
fn table(ids: &Ids, t: &report::Table, rules: bool) -> Table {
    let columns = t
        .head
        .iter()
        .chain(&t.body)
        .map(|r| r.cells.iter().map(|c| c.colspan as usize).sum::<usize>())
        .max()
        .unwrap_or(1);
    // Cells a row span covers in the rows below: (row, column) → columns spanned.
    let mut covered: Vec<(usize, usize, usize)> = Vec::new();
    let last_head = t.head.len().saturating_sub(1);
    let mut rows = Vec::new();
    for (r, row) in t.head.iter().chain(&t.body).enumerate() {
        let head = r < t.head.len();
        let mut cells = Vec::new();
        let mut column = 0;
        let mut source = row.cells.iter();
        while column < columns {
            if let Some(&(_, _, span)) = covered.iter().find(|c| c.0 == r && c.1 == column) {
                let mut cell = TableCell::new()
                    .vertical_merge(VMergeType::Continue)
                    .add_paragraph(ids.p());
                if span > 1 {
                    cell = cell.grid_span(span);
                }
                cells.push(rule_below(cell, rules && head && r == last_head));
                column += span;
                continue;
            }
            let Some(c) = source.next() else { break };
            let span = (c.colspan as usize).max(1);
            let mut run = Run::new().add_text(c.text.clone()).size(18);
            if head {
                run = run.bold();
            }
            let mut p = ids.p().add_run(run);
            if c.num {
                p = p.align(AlignmentType::Right);
            }
            if c.level {
                p = p.indent(Some(240), None, None, None);
            }
            let mut cell = TableCell::new().add_paragraph(p);
            if span > 1 {
                cell = cell.grid_span(span);
            }
            if c.rowspan > 1 {
                cell = cell.vertical_merge(VMergeType::Restart);
                for below in 1..c.rowspan as usize {
                    covered.push((r + below, column, span));
                }
            }
            let bottom = head && (r == last_head || r + c.rowspan as usize > last_head);
            cells.push(rule_below(cell, rules && bottom));
            column += span;
        }
        // A row is not split across pages.
        rows.push(TableRow::new(cells).cant_split());
    }
    let grid = grid(t, columns);
    if rules {
        Table::new(rows)
            .style(TABLE_STYLE)
            .set_grid(grid)
            .width(5000, WidthType::Pct)
            .set_borders(
                TableBorders::with_empty()
                    .set(TableBorder::new(TableBorderPosition::Top).size(12))
                    .set(TableBorder::new(TableBorderPosition::Bottom).size(12)),
            )
    } else {
        // No lines of its own: the style's apply.
        Table::without_borders(rows)
            .style(TABLE_STYLE)
            .set_grid(grid)
            .width(5000, WidthType::Pct)
    }
}

/// Column widths in twentieths of a point, filling the text column (9,000): each column in
/// proportion to its longest unspanned cell, counted between 16 characters (a count and its
/// percentage, with the cell margins) and 22: a column of terms is wider than one of counts,
/// but does not take the whole width.
fn grid(t: &report::Table, columns: usize) -> Vec<usize> {
    let mut longest = vec![16usize; columns];
    for row in t.head.iter().chain(&t.body) {
        let mut column = 0;
        for c in &row.cells {
            if c.colspan == 1 && c.rowspan == 1 {
                if let Some(l) = longest.get_mut(column) {
                    *l = (*l).max(c.text.chars().count().min(22));
                }
            }
            column += c.colspan.max(1) as usize;
        }
    }
    let total: usize = longest.iter().sum();
    longest.iter().map(|l| 9000 * l / total.max(1)).collect()
}

/// A header cell with the rule under the header.
fn rule_below(cell: TableCell, rule: bool) -> TableCell {
    if rule {
        cell.set_borders(
            TableCellBorders::with_empty()
                .set(TableCellBorder::new(TableCellBorderPosition::Bottom).size(6)),
        )
    } else {
        cell
    }
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
