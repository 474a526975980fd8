//! Word documents (`abstract.docx`, `report.docx`), written as WordprocessingML: real headings
//! (Word's "Heading 1" styles), real tables, and the figures as PNG pictures rasterised from the
//! same SVGs as the HTML. `report.docx` is written from the same document model as
//! `report.html` ([`crate::documents::report`]), so the Word and HTML reports have the same tables to the
//! digit. The package holds only what Word needs (content types, relationships, document,
//! styles, settings, core properties and the pictures) and is deterministic: no dates, ids
//! numbered per document.

use std::fmt::Write as _;
use std::io::Cursor;

use crate::config::Numbering;
use crate::documents::render::DocumentContext;
use crate::documents::report::{self, Block};
use crate::error::{Error, Result};
use crate::plots;

/// Largest figure width on the page: 6 inches in EMU (914,400 per inch).
const MAX_FIGURE_WIDTH_EMU: u64 = 6 * 914_400;
/// Largest figure height: 8 inches, so a figure and its caption fit one Letter or A4 page.
const MAX_FIGURE_HEIGHT_EMU: u64 = 8 * 914_400;

/// `abstract.docx` from the plain-text abstract: the first paragraph is the title, and a
/// paragraph's leading "Label:" (Background, Methods, ...) is set in bold.
pub fn abstract_docx(plain: &str, cohort: &str, styles: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut body = Body::default();
    let mut paragraphs = plain
        .split("\n\n")
        .map(|p| p.trim().replace('\n', " "))
        .filter(|p| !p.is_empty());
    if let Some(title) = paragraphs.next() {
        body.paragraph(Para::style("Title"), &[Span::plain(&title)]);
        body.title = Some(title);
    }
    for text in paragraphs {
        body.paragraph(Para::default(), &labelled(&text));
    }
    package(body, cohort, "abstract.docx", styles)
}

/// A redline of two abstracts as a Word file with tracked changes: per paragraph, its pieces
/// kept, inserted or deleted (author "readout", dated `date`, an ISO 8601 date); the first
/// paragraph is the title. Word's Accept All gives the later text, Reject All the earlier.
pub fn redline_docx(
    paragraphs: &[Vec<(Option<Revision>, String)>],
    date: Option<&str>,
    cohort: &str,
) -> Result<Vec<u8>> {
    let mut body = Body {
        revision_date: date.map(|d| format!("{d}T00:00:00Z")),
        title: paragraphs
            .first()
            .map(|pieces| pieces.iter().map(|(_, text)| text.as_str()).collect()),
        ..Body::default()
    };
    for (i, pieces) in paragraphs.iter().enumerate() {
        let spans: Vec<Span<'_>> = pieces
            .iter()
            .map(|(revision, text)| Span {
                revision: *revision,
                ..Span::plain(text)
            })
            .collect();
        let mut para = if i == 0 {
            Para::style("Title")
        } else {
            Para::default()
        };
        // A paragraph inserted or deleted whole: its mark is too.
        let whole = pieces.first().and_then(|(r, _)| *r);
        if whole.is_some() && pieces.iter().all(|(r, _)| *r == whole) {
            para.mark = whole;
        }
        body.paragraph(para, &spans);
    }
    package(body, cohort, "abstract-redline.docx", None)
}

/// "Results: ..." → "Results:" in bold, then the rest.
fn labelled(text: &str) -> Vec<Span<'_>> {
    let label = text.split_once(": ").filter(|(label, _)| {
        !label.is_empty()
            && label.chars().count() <= 30
            && !label.contains('.')
            && label.chars().next().is_some_and(char::is_uppercase)
    });
    match label {
        Some((label, _)) => {
            let (head, rest) = text.split_at(label.len() + 1);
            vec![Span::bold(head), Span::plain(rest)]
        }
        None => vec![Span::plain(text)],
    }
}

/// `report.docx`: the cohort report written from the same document model as `report.html`
/// ([`crate::documents::report::Report`]): its facts, sections, tables and figures.
pub fn report_docx(
    ctx: &DocumentContext<'_>,
    cohort: &str,
    styles: Option<&[u8]>,
    own_running: &[Option<std::sync::Arc<[u8]>>; 2],
) -> Result<Vec<u8>> {
    let report = &ctx.report;
    // A reference document with a table style `Table` (as pandoc's) styles every table;
    // otherwise the tables carry the house rules themselves.
    let rules = !styles.is_some_and(has_table_style);
    let cutoff = ctx
        .cohort
        .cutoff
        .map_or("no cut-off".to_string(), |d| format!("data cut-off {d}"));
    let mut body = Body {
        running: Some(format!(
            "{} · {} · {}",
            ctx.study.id, cutoff, ctx.cohort.label
        )),
        own_running: own_running.clone(),
        title: Some(ctx.text.title.clone()),
        ..Body::default()
    };
    body.paragraph(Para::default(), &[Span::plain(&report.kicker)]);
    body.paragraph(Para::style("Title"), &[Span::plain(&ctx.text.title)]);
    for fact in &report.facts {
        let label = format!("{}: ", fact.label);
        body.paragraph(
            Para::default(),
            &[Span::bold(&label), Span::plain(&fact.value)],
        );
    }
    let headings: Vec<&str> = report.sections.iter().map(|s| s.heading.as_str()).collect();
    body.contents(&headings);
    let numbering = report.numbering;
    // The Lists of Tables and of Figures, Word's TOC fields over the captions' SEQ fields.
    let tables: Vec<&str> = report
        .sections
        .iter()
        .flat_map(|s| &s.blocks)
        .filter_map(|b| match b {
            Block::Caption { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let figures: Vec<String> = figure_captions(ctx).collect();
    for (heading, label, entries) in [
        ("List of Tables", "Table", tables),
        (
            "List of Figures",
            "Figure",
            figures.iter().map(String::as_str).collect(),
        ),
    ] {
        if !entries.is_empty() {
            body.list_of(heading, label, &entries);
        }
    }
    let table_fields = seq_fields("Table");
    for (i, section) in report.sections.iter().enumerate() {
        body.paragraph(
            Para {
                bookmark: Some(i + 1),
                ..Para::style("Heading1")
            },
            &[Span::plain(&section.heading)],
        );
        // What a table is named by for screen readers (`w:tblCaption`): its caption, else the
        // heading above it.
        let mut title = section.heading.as_str();
        for block in &section.blocks {
            match block {
                Block::Table(t) => {
                    body.table(t, rules, title);
                    title = section.heading.as_str();
                }
                Block::Subheading { text } => {
                    body.paragraph(Para::style("Heading2"), &[Span::plain(text)]);
                    title = text;
                }
                // Kept with the table below it.
                Block::Caption {
                    text,
                    number,
                    title: own,
                } => {
                    body.paragraph(
                        Para {
                            keep_next: true,
                            ..Para::style("Caption")
                        },
                        &caption_spans(("Table", number, own), &table_fields, numbering),
                    );
                    title = text;
                }
                Block::Paragraph { text } => body.paragraph(Para::default(), &[Span::plain(text)]),
                Block::Note { text } => {
                    body.paragraph(Para::style("TableNote"), &[Span::plain(text)])
                }
                Block::List { items } => {
                    for item in items {
                        let item = format!("• {item}");
                        body.paragraph(Para::default(), &[Span::plain(&item)]);
                    }
                }
                Block::Figures => add_figures(&mut body, ctx, cohort)?,
            }
        }
    }
    package(body, cohort, "report.docx", styles)
}

/// The cohort's figures as PNG pictures, each with its numbered caption.
fn add_figures(body: &mut Body, ctx: &DocumentContext<'_>, cohort: &str) -> Result<()> {
    let figure_fields = seq_fields("Figure");
    for (i, fig) in ctx.figures.iter().enumerate() {
        // The figure's PNG when the build made one (at the same scale), else drawn here.
        let png = match &fig.png {
            Some(png) => png.clone(),
            None => plots::figure_png(&fig.svg)
                .map_err(|source| Error::Figure {
                    cohort: Some(cohort.to_string()),
                    figure: format!("{} for report.docx", fig.name),
                    source,
                })?
                .into(),
        };
        let Some((w, h)) = png_size(&png) else {
            return Err(Error::Analysis {
                cohort: cohort.to_string(),
                message: format!("figure {}: the rasterised PNG has no size", fig.name),
            });
        };
        let alt = if fig.alt.is_empty() {
            &fig.caption
        } else {
            &fig.alt
        };
        body.picture(png, fit_page(w, h), &fig.name, alt);
        let number = figure_number(ctx, i);
        body.paragraph(
            Para::style("Caption"),
            &caption_spans(
                ("Figure", &number, &fig.caption),
                &figure_fields,
                ctx.report.numbering,
            ),
        );
    }
    Ok(())
}

/// The number of the report's figure `i` (from 0), as `output.numbering` gives it.
fn figure_number(ctx: &DocumentContext<'_>, i: usize) -> String {
    ctx.report
        .figure_numbers
        .get(i)
        .cloned()
        .unwrap_or_else(|| (i + 1).to_string())
}

/// Each figure's caption as the report prints it ("Figure 2. ...").
fn figure_captions<'c>(ctx: &'c DocumentContext<'_>) -> impl Iterator<Item = String> + 'c {
    ctx.figures
        .iter()
        .enumerate()
        .map(|(i, f)| format!("Figure {}. {}", figure_number(ctx, i), f.caption))
}

/// A paragraph's properties: its style, right alignment (numbers), indentation (levels).
#[derive(Default, Clone, Copy)]
struct Para<'a> {
    style: Option<&'a str>,
    right: bool,
    indent: bool,
    /// The paragraph mark itself tracked: a paragraph inserted or deleted whole, so that
    /// accepting (or rejecting) the change leaves no empty paragraph.
    mark: Option<Revision>,
    /// Kept on the page of the next paragraph or table (a table's caption).
    keep_next: bool,
    /// The paragraph marked by bookmark `_Toc<n>`, where the table of contents points.
    bookmark: Option<usize>,
}

impl<'a> Para<'a> {
    fn style(style: &'a str) -> Para<'a> {
        Para {
            style: Some(style),
            ..Para::default()
        }
    }
}

/// A run of text: bold or not, in a size of its own (half-points) or the style's.
#[derive(Clone, Copy)]
struct Span<'a> {
    text: &'a str,
    bold: bool,
    size: Option<u32>,
    /// A tracked change: the run inserted or deleted ([`Revision`]).
    revision: Option<Revision>,
    /// A field whose instruction this is (` SEQ Table \* ARABIC `), its last result `text`.
    field: Option<&'a str>,
}

/// Whether a run of a redline is kept, inserted or deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// Inserted (`w:ins`).
    Inserted,
    /// Deleted (`w:del`).
    Deleted,
}

impl<'a> Span<'a> {
    fn plain(text: &'a str) -> Span<'a> {
        Span {
            text,
            bold: false,
            size: None,
            revision: None,
            field: None,
        }
    }

    fn bold(text: &'a str) -> Span<'a> {
        Span {
            bold: true,
            ..Span::plain(text)
        }
    }

    /// The same as the last result of the field `instruction`.
    fn field(self, instruction: &'a str) -> Span<'a> {
        Span {
            field: Some(instruction),
            ..self
        }
    }
}

/// A caption's runs in bold: `label` ("Table", "Figure"), its number as a SEQ field Word
/// counts and its List of Tables or Figures finds (a section number such as 14.3.1.2 written
/// out, with a hidden SEQ field beside it), then the title.
fn caption_spans<'a>(
    (label, number, title): (&'a str, &'a str, &'a str),
    instructions: &'a [String; 2],
    numbering: Numbering,
) -> Vec<Span<'a>> {
    let [counted, hidden] = instructions;
    let number = match numbering {
        Numbering::Sequential => vec![Span::bold(number).field(counted)],
        Numbering::Csr => vec![Span::bold(number), Span::bold("").field(hidden)],
    };
    let mut spans = vec![Span::bold(label), Span::bold(" ")];
    spans.extend(number);
    spans.push(Span::bold(". "));
    spans.push(Span::bold(title));
    spans
}

/// The SEQ fields of a caption of `label`: counted, and hidden beside a number written out.
fn seq_fields(label: &str) -> [String; 2] {
    [
        format!(" SEQ {label} \\* ARABIC "),
        format!(" SEQ {label} \\h "),
    ]
}

/// The body of `word/document.xml` as it is written, and the pictures it refers to.
#[derive(Default)]
struct Body {
    xml: String,
    pictures: Vec<crate::figures::Png>,
    /// Tracked changes so far (each `w:ins`/`w:del` has its own id), and their author's date.
    revisions: usize,
    revision_date: Option<String>,
    /// The running header of every page (study, cut-off, population), with a footer "Page X
    /// of Y"; none: neither.
    running: Option<String>,
    /// The reference document's own header and footer parts, used instead of readout's
    /// ([`reference_running`]).
    own_running: [Option<std::sync::Arc<[u8]>>; 2],
    /// The document's title, for its properties (`dc:title`).
    title: Option<String>,
}

impl Body {
    fn paragraph(&mut self, para: Para<'_>, spans: &[Span<'_>]) {
        self.xml.push_str("<w:p>");
        let mut props = String::new();
        if let Some(style) = para.style {
            let _ = write!(props, "<w:pStyle w:val=\"{style}\" />");
        }
        if para.keep_next {
            props.push_str("<w:keepNext />");
        }
        if para.indent {
            props.push_str("<w:ind w:left=\"240\" />");
        }
        if para.right {
            props.push_str("<w:jc w:val=\"right\" />");
        }
        if let Some(revision) = para.mark {
            let _ = write!(
                props,
                "<w:rPr>{}</w:rPr>",
                self.revision_tag(revision, true)
            );
        }
        if !props.is_empty() {
            let _ = write!(self.xml, "<w:pPr>{props}</w:pPr>");
        }
        if let Some(n) = para.bookmark {
            let _ = write!(
                self.xml,
                "<w:bookmarkStart w:id=\"{n}\" w:name=\"_Toc{n}\" />"
            );
        }
        for span in spans {
            if let Some(revision) = span.revision {
                let open = self.revision_tag(revision, false);
                self.xml.push_str(&open);
            }
            if let Some(instruction) = span.field {
                self.xml.push_str("<w:fldSimple w:instr=\"");
                escape_into(&mut self.xml, instruction);
                self.xml.push_str("\">");
            }
            self.xml.push_str("<w:r>");
            if span.bold || span.size.is_some() {
                self.xml.push_str("<w:rPr>");
                if span.bold {
                    self.xml.push_str("<w:b /><w:bCs />");
                }
                if let Some(size) = span.size {
                    let _ = write!(
                        self.xml,
                        "<w:sz w:val=\"{size}\" /><w:szCs w:val=\"{size}\" />"
                    );
                }
                self.xml.push_str("</w:rPr>");
            }
            let text = match span.revision {
                Some(Revision::Deleted) => "w:delText",
                _ => "w:t",
            };
            let _ = write!(self.xml, "<{text} xml:space=\"preserve\">");
            escape_into(&mut self.xml, span.text);
            let _ = write!(self.xml, "</{text}></w:r>");
            if span.field.is_some() {
                self.xml.push_str("</w:fldSimple>");
            }
            match span.revision {
                Some(Revision::Inserted) => self.xml.push_str("</w:ins>"),
                Some(Revision::Deleted) => self.xml.push_str("</w:del>"),
                None => {}
            }
        }
        if let Some(n) = para.bookmark {
            let _ = write!(self.xml, "<w:bookmarkEnd w:id=\"{n}\" />");
        }
        self.xml.push_str("</w:p>");
    }

    /// A table of contents: Word's TOC field over the headings, marked to be updated when the
    /// document opens (Word then adds the page numbers); its entries are written already, each
    /// a link to its heading's bookmark, for readers that show a field's last result as it is.
    fn contents(&mut self, headings: &[&str]) {
        self.xml.push_str(concat!(
            r#"<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents" />"#,
            r#"<w:docPartUnique /></w:docPartObj></w:sdtPr><w:sdtContent>"#,
            r#"<w:p><w:pPr><w:pStyle w:val="TOCHeading" /></w:pPr><w:r><w:t>Contents</w:t></w:r></w:p>"#,
        ));
        const FIELD_START: &str = concat!(
            r#"<w:r><w:fldChar w:fldCharType="begin" w:dirty="true" /></w:r>"#,
            r#"<w:r><w:instrText xml:space="preserve"> TOC \o "1-1" \h \z \u </w:instrText></w:r>"#,
            r#"<w:r><w:fldChar w:fldCharType="separate" /></w:r>"#
        );
        for (i, heading) in headings.iter().enumerate() {
            let n = i + 1;
            self.xml
                .push_str(r#"<w:p><w:pPr><w:pStyle w:val="TOC1" /></w:pPr>"#);
            if i == 0 {
                self.xml.push_str(FIELD_START);
            }
            let _ = write!(
                self.xml,
                r#"<w:hyperlink w:anchor="_Toc{n}" w:history="1"><w:r><w:t xml:space="preserve">"#
            );
            escape_into(&mut self.xml, heading);
            self.xml.push_str("</w:t></w:r></w:hyperlink></w:p>");
        }
        if headings.is_empty() {
            let _ = write!(self.xml, "<w:p>{FIELD_START}</w:p>");
        }
        self.xml.push_str(concat!(
            r#"<w:p><w:r><w:fldChar w:fldCharType="end" /></w:r></w:p>"#,
            r#"</w:sdtContent></w:sdt>"#
        ));
    }

    /// A List of Tables or of Figures after the contents: Word's TOC field over the captions
    /// of `label` (their SEQ fields), marked to be updated when the document opens (Word then
    /// adds the page numbers); its `entries` written already, for readers that show a field's
    /// last result as it is.
    fn list_of(&mut self, heading: &str, label: &str, entries: &[&str]) {
        self.xml
            .push_str(r#"<w:p><w:pPr><w:pStyle w:val="TOCHeading" /></w:pPr><w:r><w:t>"#);
        escape_into(&mut self.xml, heading);
        self.xml.push_str("</w:t></w:r></w:p>");
        for (i, entry) in entries.iter().enumerate() {
            self.xml
                .push_str(r#"<w:p><w:pPr><w:pStyle w:val="TableofFigures" /></w:pPr>"#);
            if i == 0 {
                let _ = write!(
                    self.xml,
                    r#"<w:r><w:fldChar w:fldCharType="begin" w:dirty="true" /></w:r><w:r><w:instrText xml:space="preserve"> TOC \h \z \c "{label}" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate" /></w:r>"#
                );
            }
            self.xml.push_str(r#"<w:r><w:t xml:space="preserve">"#);
            escape_into(&mut self.xml, entry);
            self.xml.push_str("</w:t></w:r>");
            if i + 1 == entries.len() {
                self.xml
                    .push_str(r#"<w:r><w:fldChar w:fldCharType="end" /></w:r>"#);
            }
            self.xml.push_str("</w:p>");
        }
    }

    /// The opening tag of a tracked change (`<w:ins w:id=.. w:author="readout" w:date=..>`),
    /// each with an id of its own; `empty` closes it at once (a paragraph mark's).
    fn revision_tag(&mut self, revision: Revision, empty: bool) -> String {
        self.revisions += 1;
        let tag = match revision {
            Revision::Inserted => "w:ins",
            Revision::Deleted => "w:del",
        };
        let mut xml = format!("<{tag} w:id=\"{}\" w:author=\"readout\"", self.revisions);
        if let Some(date) = &self.revision_date {
            let _ = write!(xml, " w:date=\"{date}\"");
        }
        xml.push_str(if empty { " />" } else { ">" });
        xml
    }

    /// A picture in a paragraph of its own, `size` in EMU; its relationship is `rIdImageN`.
    /// `alt` is the picture's description for screen readers (`wp:docPr/@descr`).
    fn picture(&mut self, png: crate::figures::Png, (cx, cy): (u32, u32), name: &str, alt: &str) {
        self.pictures.push(png);
        let n = self.pictures.len();
        let mut name_xml = String::new();
        escape_into(&mut name_xml, name);
        let mut alt_xml = String::new();
        escape_into(&mut alt_xml, alt);
        let _ = write!(
            self.xml,
            "<w:p><w:r><w:drawing><wp:inline distT=\"0\" distB=\"0\" distL=\"0\" distR=\"0\">\
             <wp:extent cx=\"{cx}\" cy=\"{cy}\" /><wp:docPr id=\"{n}\" name=\"{name_xml}\" descr=\"{alt_xml}\" />\
             <wp:cNvGraphicFramePr><a:graphicFrameLocks noChangeAspect=\"1\" /></wp:cNvGraphicFramePr>\
             <a:graphic><a:graphicData uri=\"http://schemas.openxmlformats.org/drawingml/2006/picture\">\
             <pic:pic><pic:nvPicPr><pic:cNvPr id=\"{n}\" name=\"image{n}.png\" /><pic:cNvPicPr /></pic:nvPicPr>\
             <pic:blipFill><a:blip r:embed=\"rIdImage{n}\" /><a:stretch><a:fillRect /></a:stretch></pic:blipFill>\
             <pic:spPr><a:xfrm><a:off x=\"0\" y=\"0\" /><a:ext cx=\"{cx}\" cy=\"{cy}\" /></a:xfrm>\
             <a:prstGeom prst=\"rect\"><a:avLst /></a:prstGeom></pic:spPr></pic:pic>\
             </a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"
        );
    }

    /// A table of the document model. With `rules`, a three-line table as study reports set
    /// them: a rule above the bold header, one below it and one under the last row, no other
    /// lines; without, the reference document's table style alone. Number cells right-aligned,
    /// levels indented; spans as the model gives them; no row split across pages.
    /// `caption` names the table for screen readers (`w:tblCaption`).
    fn table(&mut self, t: &report::Table, rules: bool, caption: &str) {
        let columns = t
            .head
            .iter()
            .chain(&t.body)
            .map(|r| r.cells.iter().map(|c| c.colspan as usize).sum::<usize>())
            .max()
            .unwrap_or(1);
        let _ = write!(
            self.xml,
            "<w:tbl><w:tblPr><w:tblStyle w:val=\"{TABLE_STYLE}\" /><w:tblW w:w=\"5000\" w:type=\"pct\" />"
        );
        if rules {
            self.xml.push_str(
                "<w:tblBorders><w:top w:val=\"single\" w:sz=\"12\" w:space=\"0\" w:color=\"000000\" />\
                 <w:bottom w:val=\"single\" w:sz=\"12\" w:space=\"0\" w:color=\"000000\" /></w:tblBorders>",
            );
        }
        self.xml.push_str("<w:tblCaption w:val=\"");
        escape_into(&mut self.xml, caption);
        self.xml.push_str("\" /></w:tblPr><w:tblGrid>");
        for width in grid(t, columns) {
            let _ = write!(self.xml, "<w:gridCol w:w=\"{width}\" />");
        }
        self.xml.push_str("</w:tblGrid>");
        // Cells a row span covers in the rows below: (row, column, columns spanned).
        let mut covered: Vec<(usize, usize, usize)> = Vec::new();
        let last_head = t.head.len().saturating_sub(1);
        for (r, row) in t.head.iter().chain(&t.body).enumerate() {
            let head = r < t.head.len();
            // Header rows, a class's row above its terms and a total row in bold, as in HTML.
            let bold = head || matches!(row.class, Some("group" | "total"));
            // No row split across pages; header rows repeated atop each page the table spans.
            if head {
                self.xml
                    .push_str("<w:tr><w:trPr><w:cantSplit /><w:tblHeader /></w:trPr>");
            } else {
                self.xml.push_str("<w:tr><w:trPr><w:cantSplit /></w:trPr>");
            }
            let mut column = 0;
            let mut source = row.cells.iter();
            while column < columns {
                if let Some(&(_, _, span)) = covered.iter().find(|c| c.0 == r && c.1 == column) {
                    let rule = rules && head && r == last_head;
                    self.cell_start(span, Some("continue"), rule);
                    self.xml.push_str("<w:p /></w:tc>");
                    column += span;
                    continue;
                }
                let Some(c) = source.next() else { break };
                let span = (c.colspan as usize).max(1);
                let merge = (c.rowspan > 1).then_some("restart");
                for below in 1..c.rowspan as usize {
                    covered.push((r + below, column, span));
                }
                let bottom = head && (r == last_head || r + c.rowspan as usize > last_head);
                self.cell_start(span, merge, rules && bottom);
                let para = Para {
                    right: c.num,
                    indent: c.level,
                    ..Para::default()
                };
                let unbroken = if c.num && !head && c.text.chars().count() <= UNBROKEN_CHARS {
                    unbreakable(&c.text)
                } else {
                    std::borrow::Cow::Borrowed(c.text.as_str())
                };
                let text = Span {
                    bold,
                    size: Some(18),
                    ..Span::plain(&unbroken)
                };
                self.paragraph(para, &[text]);
                self.xml.push_str("</w:tc>");
                column += span;
            }
            self.xml.push_str("</w:tr>");
        }
        self.xml.push_str("</w:tbl>");
    }

    /// `<w:tc>` and its properties: columns spanned, vertical merge, the rule under a header.
    fn cell_start(&mut self, span: usize, merge: Option<&str>, rule: bool) {
        self.xml.push_str("<w:tc>");
        let mut props = String::new();
        if span > 1 {
            let _ = write!(props, "<w:gridSpan w:val=\"{span}\" />");
        }
        if let Some(merge) = merge {
            let _ = write!(props, "<w:vMerge w:val=\"{merge}\" />");
        }
        if rule {
            props.push_str(
                "<w:tcBorders><w:bottom w:val=\"single\" w:sz=\"6\" w:space=\"0\" w:color=\"000000\" /></w:tcBorders>",
            );
        }
        if !props.is_empty() {
            let _ = write!(self.xml, "<w:tcPr>{props}</w:tcPr>");
        }
    }
}

/// The longest number cell kept on one line: counts with percentages and estimates with
/// intervals are shorter; a date range is longer and breaks at its spaces.
const UNBROKEN_CHARS: usize = 24;

/// A number cell's text that Word does not break: "148 (100.0%)" and "0.69 (0.38–1.25)" wrapped
/// at their spaces and after the dash; spaces become no-break spaces and a word joiner follows
/// each dash, so a cell too narrow widens its column instead. The one place it may break is
/// before an event count ("12 (14.0%) [26]"), which then goes under its subjects.
fn unbreakable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains([' ', '–', '-']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' if chars.peek() == Some(&'[') => out.push(' '),
            ' ' => out.push('\u{a0}'),
            '–' => out.push_str("–\u{2060}"),
            '-' => out.push('\u{2011}'),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` escaped for XML, leaving out the characters XML 1.0 cannot hold
/// ([`crate::model::text::escape_xml_into`]).
fn escape_into(out: &mut String, text: &str) {
    crate::model::text::escape_xml_into(out, text);
}

/// The table style every table names: a reference document's, when it has one.
const TABLE_STYLE: &str = "Table";

/// Whether a styles part defines the table style [`TABLE_STYLE`].
fn has_table_style(styles: &[u8]) -> bool {
    let needle = format!("w:styleId=\"{TABLE_STYLE}\"");
    styles.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Column widths in twentieths of a point, filling the text column (9,000). A column of
/// numbers is as wide as its widest cell, which never breaks (see [`unbreakable`]), and as its
/// header's longest word; the text columns share the rest in proportion to their longest
/// cell (40 characters at most), an inch at least. Only when the numbers alone are wider than
/// the page does every column shrink in proportion.
fn grid(t: &report::Table, columns: usize) -> Vec<usize> {
    // 9 pt Arial: digits are 5 pt wide (100 twips); cell margins and a little air, 240.
    const TEXT_WIDTH: usize = 9000;
    const PER_CHAR: usize = 100;
    const MARGINS: usize = 240;
    const MIN_TEXT: usize = 1440;
    let mut number = vec![false; columns];
    let mut need = vec![0usize; columns];
    let mut longest_text = vec![0usize; columns];
    for (r, row) in t.head.iter().chain(&t.body).enumerate() {
        let head = r < t.head.len();
        let mut column = 0;
        for c in &row.cells {
            if c.colspan <= 1 {
                let chars = c.text.chars().count();
                if let (Some(n), Some(w), Some(l)) = (
                    number.get_mut(column),
                    need.get_mut(column),
                    longest_text.get_mut(column),
                ) {
                    if head {
                        let word = c.text.split(' ').map(|w| w.chars().count()).max();
                        *w = (*w).max(word.unwrap_or(0) * PER_CHAR + MARGINS);
                    } else if c.num {
                        *n = true;
                        // An event count may go under its subjects: the longer part counts.
                        let unbroken = c
                            .text
                            .split(" [")
                            .map(|part| part.chars().count() + 1)
                            .max()
                            .unwrap_or(chars);
                        *w = (*w).max(unbroken.min(UNBROKEN_CHARS) * PER_CHAR + MARGINS);
                    } else {
                        *l = (*l).max(chars.min(40));
                    }
                }
            }
            column += c.colspan.max(1) as usize;
        }
    }
    let fixed: usize = (0..columns).filter(|&k| number[k]).map(|k| need[k]).sum();
    let text: Vec<usize> = (0..columns).filter(|&k| !number[k]).collect();
    let share: usize = text.iter().map(|&k| longest_text[k].max(1)).sum();
    let left = TEXT_WIDTH.saturating_sub(fixed);
    let mut widths: Vec<usize> = (0..columns)
        .map(|k| {
            if number[k] {
                need[k]
            } else {
                (left * longest_text[k].max(1) / share.max(1)).max(MIN_TEXT.max(need[k]))
            }
        })
        .collect();
    let total: usize = widths.iter().sum();
    if total > TEXT_WIDTH {
        for w in &mut widths {
            *w = *w * TEXT_WIDTH / total;
        }
    }
    widths
}

/// Width and height of a PNG from its IHDR chunk.
pub(crate) fn png_size(png: &[u8]) -> Option<(u32, u32)> {
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

const XML_DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

const CONTENT_TYPES: &str = concat!(
    r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#,
    r#"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />"#,
    r#"<Default Extension="xml" ContentType="application/xml" />"#,
    r#"<Default Extension="png" ContentType="image/png" />"#,
    r#"<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml" />"#,
    r#"<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml" />"#,
    r#"<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml" />"#,
    r#"<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml" />"#,
    r#"</Types>"#
);

const PACKAGE_RELATIONSHIPS: &str = concat!(
    r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
    r#"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml" />"#,
    r#"<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml" />"#,
    r#"</Relationships>"#
);

/// The language Word files declare (`dc:language`, and the house style's `w:lang`), as the
/// decks do.
const LANGUAGE: &str = "en-GB";

/// Core properties: the title, the language, readout as the creator; no dates, so that the
/// same inputs give the same bytes.
fn core_properties(title: Option<&str>) -> String {
    let mut xml = String::from(concat!(
        r#"<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" "#,
        r#"xmlns:dc="http://purl.org/dc/elements/1.1/">"#
    ));
    if let Some(title) = title {
        xml.push_str("<dc:title>");
        escape_into(&mut xml, title);
        xml.push_str("</dc:title>");
    }
    let _ = write!(
        xml,
        "<dc:language>{LANGUAGE}</dc:language><dc:creator>readout</dc:creator></cp:coreProperties>"
    );
    xml
}

const SETTINGS: &str = concat!(
    r#"<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">"#,
    r#"<w:defaultTabStop w:val="720" /><w:compat>"#,
    r#"<w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15" />"#,
    r#"</w:compat></w:settings>"#
);

const DOCUMENT_START: &str = concat!(
    r#"<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" "#,
    r#"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" "#,
    r#"xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" "#,
    r#"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" "#,
    r#"xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>"#
);

/// A4 with 1-inch margins: a text column of 9,026 twentieths of a point (6.27 in), which holds
/// the tables' 9,000 and the figures' 6 in, and a page of text 9.7 in tall (figures up to 8 in).
const SECTION: &str = concat!(
    r#"<w:pgSz w:w="11906" w:h="16838" />"#,
    r#"<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0" />"#,
    r#"</w:sectPr></w:body></w:document>"#
);

/// The running header and footer's references, first in the section properties.
const RUNNING_REFERENCES: &str = concat!(
    r#"<w:headerReference w:type="default" r:id="rIdHeader1" />"#,
    r#"<w:footerReference w:type="default" r:id="rIdFooter1" />"#
);

/// The footer: "Page X of Y" as Word fields, centred.
const FOOTER: &str = concat!(
    r#"<w:ftr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">"#,
    r#"<w:p><w:pPr><w:jc w:val="center" /></w:pPr><w:r><w:t xml:space="preserve">Page </w:t></w:r>"#,
    r#"<w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple>"#,
    r#"<w:r><w:t xml:space="preserve"> of </w:t></w:r>"#,
    r#"<w:fldSimple w:instr=" NUMPAGES "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p></w:ftr>"#
);

/// The house style of a study report: a sans font at 10 pt for the text, headings with room
/// above and below them (sizes in half-points, spacing in twentieths of a point), three-line
/// tables and small italic captions.
const HOUSE_STYLES: &str = concat!(
    r#"<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">"#,
    r#"<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:eastAsia="Arial" w:cs="Arial" />"#,
    r#"<w:sz w:val="20" /><w:szCs w:val="20" /><w:lang w:val="en-GB" /></w:rPr></w:rPrDefault><w:pPrDefault /></w:docDefaults>"#,
    r#"<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal" /><w:qFormat /></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title" /><w:basedOn w:val="Normal" /><w:qFormat />"#,
    r#"<w:pPr><w:spacing w:after="240" /></w:pPr><w:rPr><w:b /><w:bCs /><w:sz w:val="32" /><w:szCs w:val="32" /></w:rPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1" /><w:basedOn w:val="Normal" /><w:next w:val="Normal" /><w:qFormat />"#,
    r#"<w:pPr><w:keepNext /><w:spacing w:before="360" w:after="120" /><w:outlineLvl w:val="0" /></w:pPr>"#,
    r#"<w:rPr><w:b /><w:bCs /><w:sz w:val="28" /><w:szCs w:val="28" /></w:rPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2" /><w:basedOn w:val="Normal" /><w:next w:val="Normal" /><w:qFormat />"#,
    r#"<w:pPr><w:keepNext /><w:spacing w:before="240" w:after="120" /><w:outlineLvl w:val="1" /></w:pPr>"#,
    r#"<w:rPr><w:b /><w:bCs /><w:sz w:val="24" /><w:szCs w:val="24" /></w:rPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="TOCHeading"><w:name w:val="TOC Heading" /><w:basedOn w:val="Heading1" /><w:next w:val="Normal" />"#,
    r#"<w:pPr><w:outlineLvl w:val="9" /></w:pPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1" /><w:basedOn w:val="Normal" /><w:next w:val="Normal" />"#,
    r#"<w:pPr><w:spacing w:after="60" /></w:pPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="Caption"><w:name w:val="caption" /><w:basedOn w:val="Normal" /><w:qFormat />"#,
    r#"<w:rPr><w:i /><w:iCs /><w:sz w:val="18" /><w:szCs w:val="18" /></w:rPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="TableNote"><w:name w:val="Table Note" /><w:basedOn w:val="Normal" /><w:qFormat />"#,
    r#"<w:pPr><w:spacing w:after="120" /></w:pPr><w:rPr><w:sz w:val="16" /><w:szCs w:val="16" /></w:rPr></w:style>"#,
    r#"<w:style w:type="paragraph" w:styleId="TableofFigures"><w:name w:val="table of figures" /><w:basedOn w:val="Normal" /><w:next w:val="Normal" />"#,
    r#"<w:pPr><w:spacing w:after="60" /></w:pPr></w:style>"#,
    r#"<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table" />"#,
    r#"<w:tblPr><w:tblInd w:w="0" w:type="dxa" /><w:tblCellMar><w:top w:w="0" w:type="dxa" /><w:left w:w="108" w:type="dxa" />"#,
    r#"<w:bottom w:w="0" w:type="dxa" /><w:right w:w="108" w:type="dxa" /></w:tblCellMar></w:tblPr></w:style>"#,
    r#"<w:style w:type="table" w:styleId="Table"><w:name w:val="Table" /><w:basedOn w:val="TableNormal" />"#,
    r#"<w:tblPr><w:tblBorders><w:top w:val="single" w:sz="12" w:space="0" w:color="000000" />"#,
    r#"<w:bottom w:val="single" w:sz="12" w:space="0" w:color="000000" /></w:tblBorders></w:tblPr></w:style>"#,
    r#"</w:styles>"#
);

/// The Word package around `body`: its styles the house's, or a reference document's styles
/// part (`output.docx_reference`) as it is.
fn package(body: Body, cohort: &str, file: &str, styles: Option<&[u8]>) -> Result<Vec<u8>> {
    let failed = |e: &dyn std::fmt::Display| Error::Analysis {
        cohort: cohort.to_string(),
        message: format!("cannot write {file}: {e}"),
    };
    let mut relationships = String::from(concat!(
        r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
        r#"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml" />"#,
        r#"<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml" />"#,
    ));
    for n in 1..=body.pictures.len() {
        let _ = write!(
            relationships,
            r#"<Relationship Id="rIdImage{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image{n}.png" />"#
        );
    }
    // A running header and a footer with page numbers.
    let header = body.running.as_ref().map(|text| {
        let mut xml = String::from(
            r#"<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:p><w:pPr><w:jc w:val="right" /></w:pPr><w:r><w:rPr><w:sz w:val="16" /></w:rPr><w:t xml:space="preserve">"#,
        );
        escape_into(&mut xml, text);
        xml.push_str("</w:t></w:r></w:p></w:hdr>");
        xml
    });
    let mut types = CONTENT_TYPES.to_string();
    if header.is_some() {
        relationships.push_str(concat!(
            r#"<Relationship Id="rIdHeader1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml" />"#,
            r#"<Relationship Id="rIdFooter1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml" />"#,
        ));
        types = types.replace(
            "</Types>",
            concat!(
                r#"<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml" />"#,
                r#"<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml" />"#,
                "</Types>"
            ),
        );
    }
    relationships.push_str("</Relationships>");
    let declaration = XML_DECLARATION.as_bytes();
    let core = core_properties(body.title.as_deref());
    let styles = match styles {
        Some(reference) => vec![reference],
        None => vec![declaration, HOUSE_STYLES.as_bytes()],
    };
    let references = if header.is_some() {
        RUNNING_REFERENCES
    } else {
        ""
    };
    // Each XML part as the pieces it is written from, in the package's order.
    let mut parts: Vec<(&str, Vec<&[u8]>)> = vec![
        ("[Content_Types].xml", vec![declaration, types.as_bytes()]),
        (
            "_rels/.rels",
            vec![declaration, PACKAGE_RELATIONSHIPS.as_bytes()],
        ),
        ("docProps/core.xml", vec![declaration, core.as_bytes()]),
        (
            "word/document.xml",
            vec![
                declaration,
                DOCUMENT_START.as_bytes(),
                body.xml.as_bytes(),
                b"<w:sectPr>",
                references.as_bytes(),
                SECTION.as_bytes(),
            ],
        ),
        (
            "word/_rels/document.xml.rels",
            vec![declaration, relationships.as_bytes()],
        ),
        (STYLES_PART, styles),
        ("word/settings.xml", vec![declaration, SETTINGS.as_bytes()]),
    ];
    if let Some(header) = &header {
        // The reference's own parts as they are (their XML declaration with them), else ours.
        let [own_header, own_footer] = &body.own_running;
        parts.push((
            "word/header1.xml",
            match own_header {
                Some(own) => vec![own.as_ref()],
                None => vec![declaration, header.as_bytes()],
            },
        ));
        parts.push((
            "word/footer1.xml",
            match own_footer {
                Some(own) => vec![own.as_ref()],
                None => vec![declaration, FOOTER.as_bytes()],
            },
        ));
    }
    zip_parts(&parts, &body.pictures).map_err(|e| failed(&e))
}

/// A zip archive of the XML parts (deflated) and the pictures `word/media/imageN.png` (stored:
/// PNGs are compressed already), with a fixed time on each.
fn zip_parts(
    parts: &[(&str, Vec<&[u8]>)],
    pictures: &[crate::figures::Png],
) -> zip::result::ZipResult<Vec<u8>> {
    let pictures: Vec<(String, &[u8])> = pictures
        .iter()
        .enumerate()
        .map(|(i, png)| (format!("word/media/image{}.png", i + 1), &png[..]))
        .collect();
    super::archive::archive(parts, &pictures)
}

/// The styles part a Word file takes from `output.docx_reference`.
const STYLES_PART: &str = "word/styles.xml";

/// The largest reference document read (`output.docx_reference`); real ones, fonts embedded,
/// are a few MiB.
pub const MAX_REFERENCE_BYTES: u64 = 64 << 20;

/// The largest styles part a reference may decompress to; Word's own are under 1 MiB. Read
/// through a cap, whatever size the archive declares.
pub const MAX_STYLES_BYTES: u64 = 16 << 20;

/// The namespaces of a WordprocessingML styles part (transitional, and strict OOXML).
const WORDPROCESSINGML: [&str; 2] = [
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "http://purl.oclc.org/ooxml/wordprocessingml/main",
];

/// `word/styles.xml` of a reference document's bytes, checked before it goes into every Word
/// file: at most [`MAX_STYLES_BYTES`] decompressed, UTF-8 XML without a DTD (so no entity
/// can be declared, expanded or fetched), a `w:styles` root. The error says what is wrong.
pub fn reference_styles(docx: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(docx))
        .map_err(|e| format!("not a .docx (a zip archive): {e}"))?;
    let unsupported = |method: u16| {
        format!(
            "its {STYLES_PART} is compressed with {}, which readout does not read; expected \
             deflate or stored, as Word writes them",
            compression_name(method)
        )
    };
    let part = archive.by_name(STYLES_PART).map_err(|e| match e {
        zip::result::ZipError::FileNotFound => {
            format!("no {STYLES_PART} in it; expected a Word document")
        }
        zip::result::ZipError::CompressionMethodNotSupported(method) => unsupported(method),
        other => format!("cannot read its {STYLES_PART}: {other}"),
    })?;
    let styles = part_bytes(part).map_err(|problem| match problem {
        PartProblem::Method(method) => unsupported(method),
        PartProblem::Read(e) => format!("cannot read its {STYLES_PART}: {e}"),
        PartProblem::TooLarge => format!(
            "its {STYLES_PART} decompresses to more than {} MiB; expected a styles part of at \
             most that (Word's are under 1 MiB)",
            MAX_STYLES_BYTES >> 20
        ),
    })?;
    check_styles(&styles)?;
    Ok(styles)
}

/// Why a reference's part could not be read.
enum PartProblem {
    /// Compressed with a method readout does not read (its number).
    Method(u16),
    /// Larger than [`MAX_STYLES_BYTES`] decompressed.
    TooLarge,
    /// The archive could not be read.
    Read(std::io::Error),
}

/// A reference's part, stored or deflated (checked before reading: the archive reads a part's
/// method only when it is read), read through a cap of [`MAX_STYLES_BYTES`] whatever size the
/// archive declares.
fn part_bytes(part: zip::read::ZipFile<'_, Cursor<&[u8]>>) -> Result<Vec<u8>, PartProblem> {
    match part.compression() {
        zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated => {}
        other => {
            // The method's number as the archive writes it (zip has no other getter).
            #[allow(deprecated)]
            let method = other.to_u16();
            return Err(PartProblem::Method(method));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(part, MAX_STYLES_BYTES + 1),
        &mut bytes,
    )
    .map_err(PartProblem::Read)?;
    if bytes.len() as u64 > MAX_STYLES_BYTES {
        return Err(PartProblem::TooLarge);
    }
    Ok(bytes)
}

/// XML parsing without a DTD: one could declare entities to expand or fetch, and Word never
/// writes one.
fn without_dtd() -> roxmltree::ParsingOptions {
    roxmltree::ParsingOptions {
        allow_dtd: false,
        ..roxmltree::ParsingOptions::default()
    }
}

/// Why `styles` is not a styles part readout copies into Word files, if it is not one.
fn check_styles(styles: &[u8]) -> std::result::Result<(), String> {
    check_part(styles, STYLES_PART, "styles")
}

/// Why `bytes` (the part `name` of a reference) is not a WordprocessingML part with the root
/// element `root` that readout copies into Word files: not UTF-8, a DTD, not well-formed.
fn check_part(bytes: &[u8], name: &str, root_name: &str) -> std::result::Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "its {name} is not UTF-8 text (byte {}); expected the XML Word writes",
            e.valid_up_to()
        )
    })?;
    let document = roxmltree::Document::parse_with_options(text, without_dtd()).map_err(|e| {
        let why = match e {
            roxmltree::Error::DtdDetected => {
                "holds a DTD (<!DOCTYPE>), which could declare entities".to_string()
            }
            other => format!("is not well-formed XML: {other}"),
        };
        format!("its {name} {why}; expected the XML Word writes, without a DTD")
    })?;
    let root = document.root_element();
    let namespace = root.tag_name().namespace().unwrap_or("");
    if root.tag_name().name() != root_name || !WORDPROCESSINGML.contains(&namespace) {
        return Err(format!(
            "the root element of its {name} is <{}> in namespace `{namespace}`; \
             expected <w:{root_name}> of WordprocessingML ({})",
            root.tag_name().name(),
            WORDPROCESSINGML[0]
        ));
    }
    Ok(())
}

/// A reference's own header and footer parts, each when it has one that stands alone.
pub type RunningParts = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A reference document's own running header and footer (`output.docx_reference`): the parts
/// its last section names as its default header and footer, each taken when it stands alone
/// (no relationships of its own: a logo or a link would need parts readout does not copy),
/// checked as the styles part is. `None` for one it lacks or that does not stand alone:
/// report.docx then has readout's own. Its fields (PAGE, NUMPAGES, a STYLEREF) are Word's.
pub fn reference_running(docx: &[u8]) -> std::result::Result<RunningParts, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(docx))
        .map_err(|e| format!("not a .docx (a zip archive): {e}"))?;
    let mut read = |name: &str| part_bytes(archive.by_name(name).ok()?).ok();
    let (Some(document), Some(rels)) = (
        read("word/document.xml"),
        read("word/_rels/document.xml.rels"),
    ) else {
        return Ok((None, None));
    };
    let (Ok(document), Ok(rels)) = (String::from_utf8(document), String::from_utf8(rels)) else {
        return Ok((None, None));
    };
    let (Ok(document), Ok(rels)) = (
        roxmltree::Document::parse_with_options(&document, without_dtd()),
        roxmltree::Document::parse_with_options(&rels, without_dtd()),
    ) else {
        return Ok((None, None));
    };
    // The last section's default header and footer, by relationship id.
    let section = document
        .descendants()
        .rfind(|n| n.tag_name().name() == "sectPr");
    let target = |kind: &str| -> Option<String> {
        let reference = section?.children().find(|n| {
            n.tag_name().name() == format!("{kind}Reference")
                && n.attributes()
                    .any(|a| a.name() == "type" && a.value() == "default")
        })?;
        let id = reference.attributes().find(|a| a.name() == "id")?.value();
        let relationship = rels.descendants().find(|n| {
            n.tag_name().name() == "Relationship"
                && n.attribute("Id") == Some(id)
                && n.attribute("TargetMode").is_none()
        })?;
        let target = relationship.attribute("Target")?;
        // A plain part name beside document.xml: no folders, no way out of word/.
        (target.ends_with(".xml")
            && target
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-'))
        .then(|| target.to_string())
    };
    let mut take = |kind: &str, root: &str| -> std::result::Result<Option<Vec<u8>>, String> {
        let Some(target) = target(kind) else {
            return Ok(None);
        };
        // A part with relationships of its own (a logo, a link) does not stand alone.
        if let Some(own) = read(&format!("word/_rels/{target}.rels")) {
            if String::from_utf8_lossy(&own).contains("<Relationship ") {
                return Ok(None);
            }
        }
        let Some(bytes) = read(&format!("word/{target}")) else {
            return Ok(None);
        };
        check_part(&bytes, &format!("word/{target}"), root)?;
        Ok(Some(bytes))
    };
    Ok((take("header", "hdr")?, take("footer", "ftr")?))
}

/// A zip compression method by name (APPNOTE 4.4.5).
fn compression_name(method: u16) -> String {
    let name = match method {
        9 => "Deflate64",
        12 => "bzip2",
        14 => "LZMA",
        93 => "Zstandard",
        95 => "XZ",
        98 => "PPMd",
        99 => "AES encryption",
        _ => return format!("compression method {method}"),
    };
    format!("{name} (method {method})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_recognised() {
        let spans = labelled("Results: 13 pts achieved PR.");
        let parts: Vec<(&str, bool)> = spans.iter().map(|s| (s.text, s.bold)).collect();
        assert_eq!(parts, [("Results:", true), (" 13 pts achieved PR.", false)]);
        assert_eq!(labelled("Ratio 1.5: something").len(), 1);
    }

    #[test]
    fn text_is_escaped_and_characters_xml_cannot_hold_are_left_out() {
        let mut out = String::new();
        escape_into(&mut out, "a < b & \"c\" > d\u{1}\u{1b}[31m\tend\u{FFFF}");
        assert_eq!(out, "a &lt; b &amp; &quot;c&quot; &gt; d[31m\tend");
    }

    /// Every part is well-formed XML; the document holds the title, a bold label, a table with
    /// a spanning header, a merged cell and the header rule, and a picture with its
    /// relationship; the house styles, or a reference's styles part as given.
    #[test]
    fn the_package_holds_well_formed_parts() {
        let table = report::Table {
            caption: None,
            class: None,
            head: vec![
                report::Row {
                    class: None,
                    cells: vec![cell("Term", 1, 2, false), cell("TEAE", 2, 1, false)],
                },
                report::Row {
                    class: None,
                    cells: vec![cell("Any", 1, 1, false), cell("≥3", 1, 1, false)],
                },
            ],
            body: vec![report::Row {
                class: None,
                cells: vec![
                    cell("Rash & <itch>", 1, 1, false),
                    cell("3 (30.0%)", 1, 1, true),
                    cell("1 (10.0%)", 1, 1, true),
                ],
            }],
        };
        let mut body = Body::default();
        body.paragraph(Para::style("Title"), &[Span::plain("T")]);
        body.paragraph(Para::default(), &labelled("Methods: m."));
        body.table(&table, true, "A table");
        let mut png = vec![0u8; 24];
        png[16..20].copy_from_slice(&10u32.to_be_bytes());
        png[20..24].copy_from_slice(&10u32.to_be_bytes());
        body.picture(
            png.clone().into(),
            (95_250, 95_250),
            "km-os",
            "a test picture",
        );
        let bytes = package(body, "c", "report.docx", None).unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut names = Vec::new();
        for i in 0..archive.len() {
            let mut part = archive.by_index(i).unwrap();
            let name = part.name().expect("a readable part name").to_string();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut part, &mut data).unwrap();
            if name.ends_with(".png") {
                assert_eq!(data, png);
            } else {
                let text = String::from_utf8(data).unwrap();
                roxmltree::Document::parse(&text)
                    .unwrap_or_else(|e| panic!("{name} is not XML: {e}"));
                if name == "word/document.xml" {
                    assert!(text.contains("<w:pStyle w:val=\"Title\" />"));
                    assert!(text
                        .contains("<w:b /><w:bCs /></w:rPr><w:t xml:space=\"preserve\">Methods:"));
                    assert!(text.contains("<w:gridSpan w:val=\"2\" />"));
                    assert!(text.contains("<w:vMerge w:val=\"restart\" />"));
                    assert!(text.contains("<w:vMerge w:val=\"continue\" />"));
                    assert!(text.contains("Rash &amp; &lt;itch&gt;"));
                    assert_eq!(text.matches("<w:tcBorders>").count(), 4);
                    assert!(text.contains("r:embed=\"rIdImage1\""));
                }
                if name == "word/_rels/document.xml.rels" {
                    assert!(text.contains("Id=\"rIdImage1\""));
                    assert!(text.contains("Target=\"media/image1.png\""));
                }
                if name == STYLES_PART {
                    assert!(text.contains("w:styleId=\"Heading1\""));
                }
            }
            names.push(name);
        }
        assert_eq!(
            names,
            [
                "[Content_Types].xml",
                "_rels/.rels",
                "docProps/core.xml",
                "word/document.xml",
                "word/_rels/document.xml.rels",
                "word/styles.xml",
                "word/settings.xml",
                "word/media/image1.png"
            ]
        );
        let reference = b"<w:styles xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:style w:styleId=\"Table\" /></w:styles>";
        let bytes = package(Body::default(), "c", "a.docx", Some(reference)).unwrap();
        let styles = reference_styles(&bytes).unwrap();
        assert_eq!(styles, reference);
        assert!(has_table_style(&styles));
    }

    fn cell(text: &str, colspan: u32, rowspan: u32, num: bool) -> report::Cell {
        report::Cell {
            text: text.to_string(),
            num,
            level: false,
            colspan,
            rowspan,
        }
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
