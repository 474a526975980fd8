//! `slides.pptx`: a congress deck per cohort (docs/OUTPUTS.md). The slides' words come from
//! the Tera template `slides.txt` (built in, replaceable like the abstract's): `[key]` starts a
//! slide, its first line is the title, `- ` lines are bullets, other lines paragraphs. Keys
//! that name something readout has add it: `title` (the title layout), `patients` (the
//! baseline table), `efficacy` (the response table), `comparison` (the comparisons table),
//! `safety` (TRAEs by grade), and a figure's name (`km-pfs`, `forest-os`: the picture, the
//! words beside it). Tables are PowerPoint tables, long ones continued on further slides;
//! text is editable text. The master, layouts and theme are readout's (16:9) or those of
//! `output.pptx_reference` ([`SlideTemplate`]).

pub mod house;
mod package;
pub mod poster;
pub mod template;

use std::fmt::Write as _;

pub use template::SlideTemplate;

use super::render::DocumentContext;
use super::report::{Block, Cell, Row, Table};
use crate::error::{Error, Result};
use template::escape;

/// One slide's words, as `slides.txt` gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct SlideText {
    /// What the slide shows besides its words (`title`, `patients`, `km-pfs`, ...).
    pub key: String,
    /// Its title.
    pub title: String,
    /// Its lines: (bullet, text).
    pub lines: Vec<(bool, String)>,
}

/// The slides of a rendered `slides.txt`. Lines before the first `[key]` are ignored.
pub fn parse_slides(text: &str) -> Vec<SlideText> {
    let mut slides: Vec<SlideText> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let key = line
            .strip_prefix('[')
            .and_then(|l| l.strip_suffix(']'))
            .filter(|k| !k.is_empty() && !k.contains(char::is_whitespace));
        if let Some(key) = key {
            slides.push(SlideText {
                key: key.to_string(),
                title: String::new(),
                lines: Vec::new(),
            });
            continue;
        }
        let Some(slide) = slides.last_mut() else {
            continue;
        };
        if slide.title.is_empty() {
            slide.title = line.to_string();
        } else if let Some(item) = line.strip_prefix("- ") {
            slide.lines.push((true, item.trim().to_string()));
        } else {
            slide.lines.push((false, line.to_string()));
        }
    }
    slides
}

/// Positions on the slide, in EMU, from its size.
#[derive(Debug, Clone, Copy)]
struct Frame {
    left: u64,
    top: u64,
    width: u64,
    height: u64,
}

impl Frame {
    fn of((cx, cy): (u64, u64)) -> Frame {
        let left = cx / 27;
        let top = cy / 5;
        Frame {
            left,
            top,
            width: cx - 2 * left,
            height: cy - top - cy / 14,
        }
    }
}

/// Table text size (hundredths of a point) and row height (EMU) for `columns` columns and
/// `rows` rows in all: a short table (a comparison, an overview) in large type, so that it
/// does not sit small at the top of an empty slide.
fn table_font(columns: usize, rows: usize) -> (u32, u64) {
    if columns > 6 {
        (1000, 210_000)
    } else if rows <= SHORT_TABLE_ROWS {
        (1600, 380_000)
    } else {
        (1200, 250_000)
    }
}

/// Whether the table's numbers stay on one line at `size` in `width`.
fn numbers_fit(table: &Table, size: u32, width: u64) -> bool {
    let needed = number_widths(&table.head, &table.body, grid_width(table), size);
    needed.iter().sum::<u64>() <= width
}

/// The type sizes a slide's table is tried at, largest first (hundredths of a point): the
/// largest at which it fits the slide whole.
const TABLE_SIZES: [u32; 4] = [2000, 1800, 1600, 1400];

/// The smallest type of a slide's table: one that does not fit at it goes on over slides.
const MIN_TABLE_SIZE: u32 = 1400;

/// The most rows of a table set in large type on a slide.
const SHORT_TABLE_ROWS: usize = 8;

/// The most slides a deck may have: a congress deck has tens; a `slides.txt` that repeats
/// slides in a loop, or a table of thousands of rows, is refused rather than written.
pub const MAX_SLIDES: usize = 1000;

/// The most bytes a deck's slides and pictures may take, before compression.
pub const MAX_DECK_BYTES: usize = 256 << 20;

/// The deck's slides and pictures as they are made, within [`MAX_SLIDES`] and
/// [`MAX_DECK_BYTES`]; each figure rasterised once, however many slides show it.
struct Deck {
    parts: Vec<package::SlidePart>,
    media: Vec<(String, crate::figures::Png)>,
    bytes: usize,
}

impl Deck {
    fn push(&mut self, part: package::SlidePart) -> Result<()> {
        self.bytes += part.xml.len();
        self.parts.push(part);
        if self.parts.len() > MAX_SLIDES {
            return Err(too_large(format!(
                "the deck would have more than {MAX_SLIDES} slides; a congress deck is \
                 expected to have fewer (a slide repeated in a loop, or a table of thousands \
                 of rows?)"
            )));
        }
        self.check_bytes()
    }

    fn check_bytes(&self) -> Result<()> {
        if self.bytes > MAX_DECK_BYTES {
            return Err(too_large(format!(
                "the deck's slides and pictures would take more than {} MiB",
                MAX_DECK_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// The media name of a figure's picture, rasterised the first time it is shown: its
    /// landscape drawing when there is one, else the document's.
    fn picture(&mut self, fig: &crate::figures::Figure, cohort: &str) -> Result<String> {
        let name = format!("readout-{}.png", fig.name);
        if self.media.iter().any(|(n, _)| *n == name) {
            return Ok(name);
        }
        // Rasterised in the figure stage as a rule; here only when the build did not.
        let png: crate::figures::Png = match (&fig.wide_svg, &fig.wide_png, &fig.png) {
            (Some(_), Some(png), _) | (None, _, Some(png)) => png.clone(),
            (wide, _, _) => crate::plots::figure_png(wide.as_deref().unwrap_or(&fig.svg))
                .map_err(|source| Error::Figure {
                    cohort: Some(cohort.to_string()),
                    figure: format!("{} for slides.pptx", fig.name),
                    source,
                })?
                .into(),
        };
        self.bytes += png.len();
        self.media.push((name.clone(), png));
        self.check_bytes()?;
        Ok(name)
    }

    fn png(&self, name: &str) -> &[u8] {
        self.media
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&[][..], |(_, png)| png)
    }
}

/// Where a figure and its words go on a slide, as (x, y, width, height) in EMU.
#[derive(Debug, PartialEq)]
struct FigurePlace {
    picture: (u64, u64, u64, u64),
    words: Option<(u64, u64, u64, u64)>,
}

/// A figure of `size` pixels with `lines` bullet lines in `frame`: a landscape figure (wider
/// than 1.6:1) across the slide with the words under it, a taller one on the left with the
/// words in the width it leaves; alone, as large as the frame allows, centred.
fn figure_place(frame: &Frame, (w, h): (u32, u32), lines: usize) -> FigurePlace {
    let (w, h) = (f64::from(w.max(1)), f64::from(h.max(1)));
    let fit = |box_w: u64, box_h: u64| {
        let scale = (box_w as f64 / w).min(box_h as f64 / h);
        ((w * scale) as u64, (h * scale) as u64)
    };
    let gap = frame.width / 40;
    if lines == 0 {
        let (cx, cy) = fit(frame.width, frame.height);
        return FigurePlace {
            picture: (frame.left + (frame.width - cx) / 2, frame.top, cx, cy),
            words: None,
        };
    }
    // A landscape figure across the slide with the words under it, unless the figure is
    // larger on the left at the frame's height with the words beside (a quarter of the width
    // at least): a Kaplan–Meier figure's risk table is read from the back of the room.
    let beside = fit(frame.width * 75 / 100, frame.height);
    if w / h > 1.6 {
        // About a third of an inch a line at 16 pt, at most two fifths of the frame.
        let words_h = (LINE_EMU * lines as u64 + gap).min(frame.height * 2 / 5);
        let (cx, cy) = fit(frame.width, frame.height - words_h - gap);
        if cx >= beside.0 {
            return FigurePlace {
                picture: (frame.left + (frame.width - cx) / 2, frame.top, cx, cy),
                words: Some((frame.left, frame.top + cy + gap, frame.width, words_h)),
            };
        }
        let (cx, cy) = beside;
        let x = frame.left + cx + gap;
        return FigurePlace {
            picture: (frame.left, frame.top, cx, cy),
            words: Some((x, frame.top, frame.left + frame.width - x, frame.height)),
        };
    }
    let (cx, cy) = fit(frame.width * 62 / 100, frame.height);
    let x = frame.left + cx + gap;
    FigurePlace {
        picture: (frame.left, frame.top, cx, cy),
        words: Some((x, frame.top, frame.left + frame.width - x, frame.height)),
    }
}

/// The sizes the words of a slide without a figure or table are set in, largest first: 28 pt
/// down to the house's 20.
const BODY_SIZES: [u32; 3] = [2800, 2400, 2000];

/// Height of one bullet line of 16 pt, with its spacing, in EMU.
const LINE_EMU: u64 = 330_000;

/// The sizes words beside a figure or above a table are set in, largest first (hundredths of
/// a point): 16 pt, else 14, else 12.
const WORD_SIZES: [u32; 3] = [1600, 1400, 1200];

/// The largest of `sizes` at which `lines` fit a text box of `(width, height)` EMU (its insets,
/// a bullet's indent and the spacing before each paragraph counted), with the number of lines
/// that fit at it: all of them, else at the smallest size as many as fit, at least one.
fn fit_words(lines: &[(bool, String)], (width, height): (u64, u64), sizes: &[u32]) -> (u32, usize) {
    let inner_w = width.saturating_sub(2 * 91_440 + 228_600);
    let inner_h = height.saturating_sub(2 * 45_720);
    let fitting = |size: u32| {
        let mut used = 0;
        lines
            .iter()
            .take_while(|(_, line)| {
                used += wrapped_lines(line, size, inner_w) as u64 * line_emu(size) + 76_200;
                used <= inner_h
            })
            .count()
    };
    let mut last = (sizes.last().copied().unwrap_or(1600), 0);
    for &size in sizes {
        let fit = fitting(size);
        last = (size, fit);
        if fit == lines.len() {
            return last;
        }
    }
    (last.0, last.1.max(1).min(lines.len()))
}

/// A deck over the limits, as an error of the `slides.txt` template that asked for it.
fn too_large(message: String) -> Error {
    Error::Template {
        template: "slides.txt".to_string(),
        message,
    }
}

/// The deck of one cohort: `text` is the rendered `slides.txt`.
pub fn deck(
    ctx: &DocumentContext<'_>,
    text: &str,
    template: &SlideTemplate,
    cohort: &str,
) -> Result<Vec<u8>> {
    let frame = Frame::of(template.size);
    let mut deck = Deck {
        parts: Vec::new(),
        media: Vec::new(),
        bytes: 0,
    };
    let mut queue: std::collections::VecDeque<SlideText> = parse_slides(text).into();
    // Words that do not fit their box, set as small as 12 pt, go on to a slide of their own.
    let continued = |slide: &SlideText, rest: &[(bool, String)]| SlideText {
        key: "continued".to_string(),
        title: format!(
            "{} (continued)",
            slide.title.trim_end_matches(" (continued)")
        ),
        lines: rest.to_vec(),
    };
    while let Some(slide) = queue.pop_front() {
        if slide.key == "title" {
            deck.push(package::SlidePart {
                xml: title_slide(&slide, template.title_placeholder),
                layout: template.title_layout.clone(),
                pictures: Vec::new(),
                notes: None,
            })?;
            continue;
        }
        let layout = template.content_layout.clone();
        let mut overflow = None;
        if let Some(table) = slide_table(ctx, &slide.key) {
            let text_h = if slide.lines.is_empty() {
                0
            } else {
                frame.height / 6
            };
            let room = frame.height - text_h;
            // The largest type, 20 pt down to 14, at which the whole table fits the slide;
            // else 14 pt over as many slides as it takes, rows shared evenly.
            let height_at = |size: u32, body: &[Row]| {
                table_sized(0, &table.head, body, (0, 0, frame.width), Some(size)).1
            };
            let fitting = TABLE_SIZES.iter().copied().find(|&size| {
                numbers_fit(&table, size, frame.width) && height_at(size, &table.body) <= room
            });
            let size = fitting.unwrap_or(MIN_TABLE_SIZE);
            let per_slide = if fitting.is_some() {
                table.body.len().max(1)
            } else {
                let head_h = height_at(size, &[]);
                let row_h = (height_at(size, &table.body).saturating_sub(head_h)
                    / table.body.len().max(1) as u64)
                    .max(1);
                (room.saturating_sub(head_h) / row_h).max(3) as usize
            };
            let chunks: Vec<&[Row]> = if table.body.is_empty() {
                vec![&[]]
            } else {
                pages(&table.body, per_slide)
                    .into_iter()
                    .filter_map(|r| table.body.get(r))
                    .collect()
            };
            for (i, body) in chunks.iter().enumerate() {
                let title = if i == 0 {
                    slide.title.clone()
                } else {
                    format!("{} (continued)", slide.title)
                };
                let mut shapes = title_shape(&title);
                let lines = if i == 0 { &slide.lines[..] } else { &[] };
                if !lines.is_empty() {
                    let (size, fit) = fit_words(lines, (frame.width, text_h), &WORD_SIZES);
                    shapes.push_str(&text_box(
                        3,
                        (frame.left, frame.top, frame.width, text_h),
                        &lines[..fit],
                        size,
                    ));
                    if fit < lines.len() {
                        overflow = Some(continued(&slide, &lines[fit..]));
                    }
                }
                let at = (
                    frame.left,
                    frame.top + if lines.is_empty() { 0 } else { text_h },
                    frame.width,
                );
                shapes.push_str(&table_sized(4, &table.head, body, at, Some(size)).0);
                deck.push(package::SlidePart {
                    xml: slide_xml(&shapes),
                    layout: layout.clone(),
                    pictures: Vec::new(),
                    notes: None,
                })?;
            }
            if let Some(next) = overflow {
                queue.push_front(next);
            }
            continue;
        }
        let figure = ctx
            .figures
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(&slide.key));
        let mut shapes = title_shape(&slide.title);
        let mut pictures = Vec::new();
        match figure {
            Some(fig) => {
                // One media file per figure, however many slides show it.
                let name = deck.picture(fig, cohort)?;
                let (w, h) = super::docx::png_size(deck.png(&name)).unwrap_or((4, 3));
                let place = figure_place(&frame, (w, h), slide.lines.len());
                let _ = write!(
                    shapes,
                    r#"<p:pic><p:nvPicPr><p:cNvPr id="3" name="{}" descr="{}"/><p:cNvPicPr><a:picLocks noChangeAspect="1"/></p:cNvPicPr><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rId2"/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr><a:xfrm><a:off x="{}" y="{}"/><a:ext cx="{}" cy="{}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>"#,
                    escape(&fig.name),
                    escape(if fig.alt.is_empty() {
                        &fig.caption
                    } else {
                        &fig.alt
                    }),
                    place.picture.0,
                    place.picture.1,
                    place.picture.2,
                    place.picture.3,
                );
                pictures.push(name);
                if let Some(words) = place.words.filter(|_| !slide.lines.is_empty()) {
                    let (size, fit) = fit_words(&slide.lines, (words.2, words.3), &WORD_SIZES);
                    shapes.push_str(&text_box(4, words, &slide.lines[..fit], size));
                    if fit < slide.lines.len() {
                        overflow = Some(continued(&slide, &slide.lines[fit..]));
                    }
                }
            }
            None => {
                // The layout's body, its words as large as fit (a few lines of conclusions
                // fill the slide rather than sit at its top), at least the house's 20 pt.
                let (size, fit) = fit_words(&slide.lines, (frame.width, frame.height), &BODY_SIZES);
                let fit = if slide.lines.is_empty() { 0 } else { fit };
                shapes.push_str(&body_placeholder(&slide.lines[..fit], size));
                if fit < slide.lines.len() {
                    overflow = Some(continued(&slide, &slide.lines[fit..]));
                }
            }
        }
        deck.push(package::SlidePart {
            xml: slide_xml(&shapes),
            layout,
            pictures,
            notes: None,
        })?;
        if let Some(next) = overflow {
            queue.push_front(next);
        }
    }
    package::package(&deck.parts, &deck.media, template, (&ctx.text.title, None)).map_err(|e| {
        Error::Analysis {
            cohort: cohort.to_string(),
            message: format!("cannot write slides.pptx: {e}"),
        }
    })
}

/// A table's body rows split over slides of at most `per_slide` rows: as many slides as
/// needed, the rows shared evenly between them (no slide of one row after a full one), and a
/// group heading never left at the foot of a slide or with a single row of its group.
fn pages(body: &[Row], per_slide: usize) -> Vec<std::ops::Range<usize>> {
    let per_slide = per_slide.max(1);
    let heading = |i: usize| body.get(i).is_some_and(|r| r.class == Some("group"));
    let mut out = Vec::new();
    let mut start = 0;
    while start < body.len() {
        let left = body.len() - start;
        if left <= per_slide {
            out.push(start..body.len());
            break;
        }
        let slides = left.div_ceil(per_slide);
        let mut end = start + left.div_ceil(slides);
        // Back off from a heading at the foot, or a heading with one row of its group.
        while end > start + 2 && (heading(end - 1) || heading(end - 2)) {
            end -= 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// The table a key adds: the report's first table of a section, or TRAEs by grade.
fn slide_table(ctx: &DocumentContext<'_>, key: &str) -> Option<Table> {
    let section = match key {
        "patients" => "baseline",
        "efficacy" => "response",
        "comparison" => "comparisons",
        "disposition" => "disposition",
        "safety-overview" => "safety",
        "safety" => return ae_table(ctx),
        // The report's CSR tables, found by their captions.
        "ae-soc" => return captioned(ctx, "Treatment-emergent adverse events by system organ"),
        "ae-common" => return captioned(ctx, "Treatment-emergent adverse events in at least"),
        _ => return None,
    };
    ctx.report
        .sections
        .iter()
        .filter(|s| s.id == section)
        .flat_map(|s| &s.blocks)
        .find_map(|b| match b {
            Block::Table(t) => Some(t.clone()),
            _ => None,
        })
}

/// The report's table whose caption (after its number) starts with `title`.
fn captioned(ctx: &DocumentContext<'_>, title: &str) -> Option<Table> {
    let blocks: Vec<&Block> = ctx.report.sections.iter().flat_map(|s| &s.blocks).collect();
    blocks.windows(2).find_map(|pair| match pair {
        [Block::Caption { text, .. }, Block::Table(t)]
            if text
                .split_once(". ")
                .is_some_and(|(_, rest)| rest.starts_with(title)) =>
        {
            Some(t.clone())
        }
        _ => None,
    })
}

/// Adverse events by grade in the abstract's view (`analysis.safety_view`): any TRAE (or
/// TEAE), then the ten most frequent terms; a column pair (any grade, grade ≥3) per arm, or
/// for the cohort.
fn ae_table(ctx: &DocumentContext<'_>) -> Option<Table> {
    let c = ctx.cohort;
    let teae = ctx.analysis.safety_view == crate::config::SafetyView::Teae;
    type Counts = fn(&crate::results::Safety) -> &crate::results::AeCounts;
    type Term = fn(&crate::results::TermCounts) -> (usize, Option<usize>);
    let (kind, counts_of, term_of): (&str, Counts, Term) = if teae {
        ("TEAE", |s| &s.teae, |t| (t.teae_any, t.teae_grade3plus))
    } else {
        ("TRAE", |s| &s.trae, |t| (t.trae_any, t.trae_grade3plus))
    };
    let groups: Vec<(String, &crate::results::Safety)> = if c.arms.is_empty() {
        vec![(String::new(), c.safety.as_ref()?)]
    } else {
        c.arms
            .iter()
            .filter_map(|a| Some((c.arm_short(&a.arm).to_string(), a.results.safety.as_ref()?)))
            .collect()
    };
    let first = groups.first()?.1;
    let severe = match first.grading {
        crate::results::AeGrading::Severity => "Severe",
        crate::results::AeGrading::Ctcae => "Grade ≥3",
    };
    let pd = ctx.analysis.percent_decimals;
    let cell = |text: String, num: bool| Cell {
        text,
        num,
        level: false,
        colspan: 1,
        rowspan: 1,
    };
    let mut head = Vec::new();
    if groups.len() > 1 {
        let mut top = vec![cell(String::new(), false)];
        for (arm, s) in &groups {
            let mut c = cell(format!("{arm} (N = {})", s.total), true);
            c.colspan = 2;
            top.push(c);
        }
        head.push(Row {
            class: None,
            cells: top,
        });
    }
    let mut names = vec![cell(
        if teae {
            "Treatment-emergent AE"
        } else {
            "Treatment-related AE"
        }
        .into(),
        false,
    )];
    for (_, s) in &groups {
        let n = if groups.len() > 1 {
            String::new()
        } else {
            format!(" (N = {})", s.total)
        };
        names.push(cell(format!("Any grade{n}"), true));
        names.push(cell(severe.to_string(), true));
    }
    head.push(Row {
        class: None,
        cells: names,
    });
    let counts = |f: &dyn Fn(&crate::results::Safety) -> (usize, Option<usize>)| {
        groups
            .iter()
            .flat_map(|(_, s)| {
                let (any, g3) = f(s);
                [Some(any), g3].map(|n| {
                    let text = n.map_or("–".to_string(), |n| {
                        crate::format::fmt_count_pct(n as u64, s.total as u64, pd)
                    });
                    cell(text, true)
                })
            })
            .collect::<Vec<Cell>>()
    };
    let mut body = vec![Row {
        class: Some("total"),
        cells: std::iter::once(cell(format!("Any {kind}"), false))
            .chain(counts(&|s| (counts_of(s).any, counts_of(s).grade3plus)))
            .collect(),
    }];
    // The most frequent terms over all groups, ties by name.
    let mut terms: Vec<(usize, String)> = Vec::new();
    for (_, s) in &groups {
        for t in &s.by_term {
            let any = term_of(t).0;
            match terms.iter_mut().find(|(_, name)| *name == t.term) {
                Some((n, _)) => *n += any,
                None => terms.push((any, t.term.clone())),
            }
        }
    }
    terms.retain(|(n, _)| *n > 0);
    terms.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, term) in terms.into_iter().take(10) {
        let row = counts(&|s| {
            s.by_term
                .iter()
                .find(|t| t.term == term)
                .map_or((0, counts_of(s).grade3plus.map(|_| 0)), term_of)
        });
        let mut name = cell(term, false);
        name.level = true;
        body.push(Row {
            class: None,
            cells: std::iter::once(name).chain(row).collect(),
        });
    }
    Some(Table {
        caption: None,
        class: None,
        head,
        body,
    })
}

fn slide_xml(shapes: &str) -> String {
    format!(
        r#"<p:sld {}>{}{shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>"#,
        house::ns!(),
        house::tree_start()
    )
}

fn run(text: &str, size: Option<u32>, bold: bool) -> String {
    coloured_run(text, size, bold, None)
}

/// A run of text, in a colour of the theme (`accent1`, `bg1`) when given, else the style's.
fn coloured_run(text: &str, size: Option<u32>, bold: bool, colour: Option<&str>) -> String {
    let size = size.map(|s| format!(r#" sz="{s}""#)).unwrap_or_default();
    let bold = if bold { r#" b="1""# } else { "" };
    let properties = match colour {
        Some(c) => format!(
            r#"<a:rPr lang="en-GB"{size}{bold} dirty="0"><a:solidFill><a:schemeClr val="{c}"/></a:solidFill></a:rPr>"#
        ),
        None => format!(r#"<a:rPr lang="en-GB"{size}{bold} dirty="0"/>"#),
    };
    format!("<a:r>{properties}<a:t>{}</a:t></a:r>", escape(text))
}

fn title_shape(title: &str) -> String {
    format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/><a:p>{}</a:p></p:txBody></p:sp>"#,
        run(title, None, false)
    )
}

/// The title slide; `title` is the type of the layout's title placeholder.
fn title_slide(slide: &SlideText, title: &str) -> String {
    let mut sub = String::new();
    for (_, line) in &slide.lines {
        let _ = write!(
            sub,
            r#"<a:p><a:pPr marL="0" indent="0"><a:buNone/></a:pPr>{}</a:p>"#,
            run(line, None, false)
        );
    }
    if sub.is_empty() {
        sub.push_str(r#"<a:p><a:endParaRPr lang="en-GB"/></a:p>"#);
    }
    let shapes = format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="{title}"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/><a:p>{}</a:p></p:txBody></p:sp><p:sp><p:nvSpPr><p:cNvPr id="3" name="Subtitle 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="subTitle" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>{sub}</p:txBody></p:sp>"#,
        run(&slide.title, None, false)
    );
    slide_xml(&shapes)
}

/// The layout's body placeholder with the lines at `size` (bullets as the layout draws them).
fn body_placeholder(lines: &[(bool, String)], size: u32) -> String {
    let mut body = String::new();
    for (bullet, line) in lines {
        let ppr = if *bullet {
            ""
        } else {
            r#"<a:pPr marL="0" indent="0"><a:buNone/></a:pPr>"#
        };
        let _ = write!(body, "<a:p>{ppr}{}</a:p>", run(line, Some(size), false));
    }
    if body.is_empty() {
        body.push_str(r#"<a:p><a:endParaRPr lang="en-GB"/></a:p>"#);
    }
    format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="3" name="Content Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr><a:normAutofit/></a:bodyPr><a:lstStyle/>{body}</p:txBody></p:sp>"#
    )
}

/// A text box at (x, y, cx, cy) with the lines at `size`.
fn text_box(
    id: u32,
    (x, y, cx, cy): (u64, u64, u64, u64),
    lines: &[(bool, String)],
    size: u32,
) -> String {
    let mut body = String::new();
    for (bullet, line) in lines {
        let ppr = if *bullet {
            r#"<a:pPr marL="228600" indent="-228600"><a:spcBef><a:spcPts val="600"/></a:spcBef><a:buFont typeface="Arial"/><a:buChar char="&#8226;"/></a:pPr>"#
        } else {
            r#"<a:pPr><a:spcBef><a:spcPts val="600"/></a:spcBef><a:buNone/></a:pPr>"#
        };
        let _ = write!(body, "<a:p>{ppr}{}</a:p>", run(line, Some(size), false));
    }
    format!(
        r#"<p:sp><p:nvSpPr><p:cNvPr id="{id}" name="Text {id}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr><p:txBody><a:bodyPr wrap="square"><a:normAutofit/></a:bodyPr><a:lstStyle/>{body}</p:txBody></p:sp>"#
    )
}

/// The number of grid columns of a table (its widest row, spans counted).
fn grid_width(t: &Table) -> usize {
    t.head
        .iter()
        .chain(&t.body)
        .map(|r| {
            r.cells
                .iter()
                .map(|c| c.colspan.max(1) as usize)
                .sum::<usize>()
        })
        .max()
        .unwrap_or(1)
}

/// One row's cells on the grid: (column, cell) with the columns covered by spans from above
/// (`below`: per column, rows still covered) skipped.
fn place<'a>(row: &'a Row, below: &mut [usize], rows_left: usize) -> Vec<(usize, &'a Cell, usize)> {
    let mut placed = Vec::new();
    let mut col = 0;
    for cell in &row.cells {
        while below.get(col).is_some_and(|&b| b > 0) {
            col += 1;
        }
        let span = cell.colspan.max(1) as usize;
        let rows = (cell.rowspan.max(1) as usize).min(rows_left.max(1));
        placed.push((col, cell, rows));
        for b in below.iter_mut().skip(col).take(span) {
            *b = rows;
        }
        col += span;
    }
    placed
}

/// Cell padding left and right, in EMU.
const CELL_PADDING: u64 = 2 * 91_440;

/// The width a cell of numbers ("148 (100.0%)", "0.59 (0.45–0.76)") needs on one line at
/// `size`, in EMU; `None` for a cell of words, which may wrap.
fn number_width(text: &str, size: u32) -> Option<u64> {
    if !text.chars().any(|c| c.is_ascii_digit()) || text.chars().count() > 24 {
        return None;
    }
    let pt = crate::plots::text_em(text) * f64::from(size) / 100.0 * ARIAL_PER_DEJAVU;
    Some((pt * EMU_PER_PT as f64).ceil() as u64 + CELL_PADDING + EMU_PER_PT)
}

/// Each column's widest number at `size` on one line, in EMU (0 for a column of words).
fn number_widths(head: &[Row], body: &[Row], columns: usize, size: u32) -> Vec<u64> {
    let mut needed = vec![0u64; columns];
    let mut below = vec![0usize; columns];
    let rows: Vec<&Row> = head.iter().chain(body).collect();
    for (i, row) in rows.iter().enumerate() {
        for (col, cell, _) in place(row, &mut below, rows.len() - i) {
            if cell.colspan <= 1 {
                if let (Some(n), Some(w)) = (number_width(&cell.text, size), needed.get_mut(col)) {
                    *w = (*w).max(n);
                }
            }
        }
        below.iter_mut().for_each(|b| *b = b.saturating_sub(1));
    }
    needed
}

/// Each column's width in a table `width` wide at `size`: first what its numbers need to stay
/// on one line, then the rest shared by the columns' longest texts (`chars`); when the numbers
/// alone need more than the width, shared by `chars` alone.
fn column_widths(
    head: &[Row],
    body: &[Row],
    columns: usize,
    chars: &[usize],
    (width, size): (u64, u32),
) -> Vec<u64> {
    let needed = number_widths(head, body, columns, size);
    let total: u64 = chars.iter().map(|c| *c as u64).sum::<u64>().max(1);
    let shared =
        |room: u64| -> Vec<u64> { chars.iter().map(|c| room * *c as u64 / total).collect() };
    let reserved: u64 = needed.iter().sum();
    if reserved >= width {
        return shared(width);
    }
    // Each column at least its numbers' width, the rest by text length.
    let mut widths = shared(width);
    for _ in 0..columns {
        let short: u64 = widths
            .iter()
            .zip(&needed)
            .map(|(w, n)| n.saturating_sub(*w))
            .sum();
        if short == 0 {
            break;
        }
        let spare: Vec<u64> = widths
            .iter()
            .zip(&needed)
            .map(|(w, n)| w.saturating_sub(*n))
            .collect();
        let spare_total: u64 = spare.iter().sum::<u64>().max(1);
        for ((w, n), sp) in widths.iter_mut().zip(&needed).zip(&spare) {
            if *w < *n {
                *w = *n;
            } else {
                *w -= (short * sp).div_ceil(spare_total).min(*sp);
            }
        }
    }
    widths
}

/// A table's graphic frame at (x, y), `width` wide, with its text at `font` (hundredths of a
/// point) when given, each row as tall as its most wrapped cell (measured with the figures'
/// font), columns of numbers wide enough for them on one line; and the table's height.
fn table_sized(
    id: u32,
    head: &[Row],
    body: &[Row],
    (x, y, width): (u64, u64, u64),
    font: Option<u32>,
) -> (String, u64) {
    let whole = Table {
        caption: None,
        class: None,
        head: head.to_vec(),
        body: body.to_vec(),
    };
    let columns = grid_width(&whole);
    let (size, row_h) = match font {
        Some(size) => (size, 0),
        None => table_font(columns, head.len() + body.len()),
    };
    // Widths from the longest text of each column's own (unspanned) cells.
    let mut chars = vec![4usize; columns];
    {
        let mut below = vec![0usize; columns];
        let rows: Vec<&Row> = head.iter().chain(body).collect();
        for (i, row) in rows.iter().enumerate() {
            let placed = place(row, &mut below, rows.len() - i);
            for (col, cell, _) in &placed {
                if cell.colspan <= 1 {
                    if let Some(w) = chars.get_mut(*col) {
                        *w = (*w).max(cell.text.chars().count().min(60));
                    }
                }
            }
            below.iter_mut().for_each(|b| *b = b.saturating_sub(1));
        }
    }
    let widths = column_widths(head, body, columns, &chars, (width, size));
    let mut grid = String::new();
    for w in &widths {
        let _ = write!(grid, r#"<a:gridCol w="{w}"/>"#);
    }
    // Each row's height: the slides' fixed one, or its most wrapped cell's lines.
    let row_heights: Vec<u64> = match font {
        None => vec![row_h; head.len() + body.len()],
        Some(size) => {
            let mut below = vec![0usize; columns];
            let rows: Vec<&Row> = head.iter().chain(body).collect();
            rows.iter()
                .enumerate()
                .map(|(i, row)| {
                    let placed = place(row, &mut below, rows.len() - i);
                    below.iter_mut().for_each(|b| *b = b.saturating_sub(1));
                    let lines = placed
                        .iter()
                        .map(|(col, cell, _)| {
                            let span = cell.colspan.max(1) as usize;
                            let w: u64 = widths.iter().skip(*col).take(span).sum();
                            wrapped_lines(&cell.text, size, w.saturating_sub(2 * 45_720))
                        })
                        .max()
                        .unwrap_or(1) as u64;
                    lines * line_emu(size) + 2 * 22_860
                })
                .collect()
        }
    };
    let rule = |side: &str| {
        format!(
            r#"<a:{side} w="12700"><a:solidFill><a:srgbClr val="404040"/></a:solidFill></a:{side}>"#
        )
    };
    let mut rows_xml = String::new();
    let rows: Vec<(bool, &Row)> = head
        .iter()
        .map(|r| (true, r))
        .chain(body.iter().map(|r| (false, r)))
        .collect();
    let mut below = vec![0usize; columns];
    let mut vmerged = vec![0usize; columns];
    for (i, (is_head, row)) in rows.iter().enumerate() {
        let placed = place(row, &mut below, rows.len() - i);
        let _ = write!(rows_xml, r#"<a:tr h="{}">"#, row_heights[i]);
        let bold = *is_head || matches!(row.class, Some("group") | Some("total"));
        let mut col = 0;
        let mut cells = placed.iter().peekable();
        while col < columns {
            let mut lines = String::new();
            if i == 0 {
                lines.push_str(&rule("lnT"));
            }
            if i + 1 == head.len() || i + 1 == rows.len() {
                lines.push_str(&rule("lnB"));
            }
            let tcpr = format!(
                r#"<a:tcPr marL="45720" marR="45720" marT="22860" marB="22860" anchor="ctr">{lines}</a:tcPr>"#
            );
            let empty = r#"<a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-GB"/></a:p></a:txBody>"#;
            if vmerged.get(col).is_some_and(|&v| v > 0) {
                let _ = write!(rows_xml, r#"<a:tc vMerge="1">{empty}{tcpr}</a:tc>"#);
                col += 1;
                continue;
            }
            match cells.peek() {
                Some(&&(at, cell, span_rows)) if at == col => {
                    cells.next();
                    let span = (cell.colspan.max(1) as usize).min(columns - col);
                    let mut attrs = String::new();
                    if span > 1 {
                        let _ = write!(attrs, r#" gridSpan="{span}""#);
                    }
                    if span_rows > 1 {
                        let _ = write!(attrs, r#" rowSpan="{span_rows}""#);
                        for v in vmerged.iter_mut().skip(col).take(span) {
                            *v = span_rows;
                        }
                    }
                    let align = if cell.num { r#" algn="r""# } else { "" };
                    let indent = if cell.level { r#" marL="182880""# } else { "" };
                    let _ = write!(
                        rows_xml,
                        r#"<a:tc{attrs}><a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:pPr{align}{indent}/>{}</a:p></a:txBody>{tcpr}</a:tc>"#,
                        run(&cell.text, Some(size), bold)
                    );
                    for _ in 1..span {
                        let _ = write!(rows_xml, r#"<a:tc hMerge="1">{empty}{tcpr}</a:tc>"#);
                    }
                    col += span;
                }
                _ => {
                    let _ = write!(rows_xml, r#"<a:tc>{empty}{tcpr}</a:tc>"#);
                    col += 1;
                }
            }
        }
        rows_xml.push_str("</a:tr>");
        below.iter_mut().for_each(|b| *b = b.saturating_sub(1));
        vmerged.iter_mut().for_each(|v| *v = v.saturating_sub(1));
    }
    let height: u64 = row_heights.iter().sum();
    let xml = format!(
        r#"<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="{id}" name="Table {id}"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{width}" cy="{height}"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1"><a:tableStyleId>{{2D5ABB26-0587-4C30-8999-92F81FD0307C}}</a:tableStyleId></a:tblPr><a:tblGrid>{grid}</a:tblGrid>{rows_xml}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>"#
    );
    (xml, height)
}

/// EMU per point.
const EMU_PER_PT: u64 = 12_700;

/// The width of text in Arial over its width in DejaVu Sans: the deck's sentences set in
/// Liberation Sans (Arial's metrics) take 87-90% of DejaVu's width; the upper end, to err on
/// the wide side.
const ARIAL_PER_DEJAVU: f64 = 0.9;

/// The height of a line of text at `size` (hundredths of a point), with its leading.
fn line_emu(size: u32) -> u64 {
    u64::from(size) * EMU_PER_PT * 6 / 500
}

/// The lines `text` takes at `size` (hundredths of a point) in a box `width` EMU wide, words
/// wrapped where they no longer fit, measured with the figures' font: DejaVu Sans, whose
/// letters run about a tenth wider than Arial's (the house font), so its widths are taken at
/// nine tenths (`ARIAL_PER_DEJAVU`).
fn wrapped_lines(text: &str, size: u32, width: u64) -> usize {
    let width_pt = width as f64 / EMU_PER_PT as f64;
    let size_pt = f64::from(size) / 100.0;
    let measure = |s: &str| crate::plots::text_em(s) * size_pt * ARIAL_PER_DEJAVU;
    let space = measure(" ");
    let mut lines = 0;
    for paragraph in text.split('\n') {
        lines += 1;
        let mut used = 0.0;
        for word in paragraph.split_whitespace() {
            let w = measure(word);
            if used > 0.0 && used + space + w > width_pt {
                lines += 1;
                used = w;
            } else {
                used += if used > 0.0 { space + w } else { w };
            }
            // A word longer than the line breaks where it must.
            while used > width_pt && width_pt > 0.0 {
                lines += 1;
                used -= width_pt;
            }
        }
    }
    lines.max(1)
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    /// Words are set at 16 pt when they fit their box, smaller (to 12 pt) when not, and
    /// what still does not fit is counted out for a continuation slide.
    #[test]
    fn words_are_set_smaller_then_continued_when_long() {
        let inch = 914_400;
        let short = vec![(true, "Median 8.3 months".to_string()); 3];
        assert_eq!(
            fit_words(&short, (6 * inch, 3 * inch), &WORD_SIZES),
            (1600, 3)
        );
        let sentence =
            "Confirmed response per RECIST 1.1 was assessed by investigators every six weeks";
        let long = vec![(true, sentence.to_string()); 8];
        // Eight two-line bullets do not fit 3 inches at 16 pt, but at a smaller size they do.
        let (size, fit) = fit_words(&long, (6 * inch, 4 * inch), &WORD_SIZES);
        assert!(size < 1600 && fit == 8, "{size} {fit}");
        // Forty do not fit at 12 pt: as many as fit, the rest continued.
        let many = vec![(true, sentence.to_string()); 40];
        let (size, fit) = fit_words(&many, (6 * inch, 4 * inch), &WORD_SIZES);
        assert_eq!(size, 1200);
        assert!((1..40).contains(&fit), "{fit}");
        // Each line counted: fewer fit in half the height.
        let (_, half) = fit_words(&many, (6 * inch, 2 * inch), &WORD_SIZES);
        assert!(half < fit);
        // A box too small for one line still takes one, so the deck moves on.
        assert_eq!(fit_words(&many, (inch, inch / 10), &WORD_SIZES), (1200, 1));
    }

    /// Figures take the slide's width: a landscape one across it with the words below, a tall
    /// one on the left with the words in the rest, one without words as large as it fits.
    #[test]
    fn figures_are_placed_by_their_shape() {
        let frame = Frame::of((12_192_000, 6_858_000));
        let inside = |(x, y, w, h): (u64, u64, u64, u64)| {
            x >= frame.left
                && y >= frame.top
                && x + w <= frame.left + frame.width + 1
                && y + h <= frame.top + frame.height + 1
        };
        // The landscape Kaplan–Meier figure (1180 × 470 px) with three lines.
        let wide = figure_place(&frame, (1180, 470), 3);
        let words = wide.words.expect("words");
        assert!(wide.picture.2 * 10 >= frame.width * 7, "{wide:?}");
        assert!(
            words.1 >= wide.picture.1 + wide.picture.3,
            "words below the picture"
        );
        assert_eq!(words.2, frame.width);
        assert!(inside(wide.picture) && inside(words), "{wide:?}");
        // A tall figure (560 × 840) keeps the left and leaves the words the rest.
        let tall = figure_place(&frame, (560, 840), 3);
        let words = tall.words.expect("words");
        assert_eq!(tall.picture.3, frame.height);
        assert_eq!(words.0, tall.picture.0 + tall.picture.2 + frame.width / 40);
        assert!(inside(tall.picture) && inside(words), "{tall:?}");
        // A forest plot (720 × 416) alone: as large as the frame allows, centred.
        let alone = figure_place(&frame, (720, 416), 0);
        assert!(alone.words.is_none());
        let (x, _, w, h) = alone.picture;
        assert!(w == frame.width || h == frame.height, "{alone:?}");
        assert_eq!(x - frame.left, (frame.width - w) / 2);
        // Many lines with a landscape figure: under it they would take two fifths of the
        // frame, so the figure goes on the left at three quarters of the width, larger, and
        // the words beside it.
        let crowded = figure_place(&frame, (1180, 470), 40);
        let words = crowded.words.expect("words");
        assert_eq!(crowded.picture.2, frame.width * 75 / 100);
        assert!(crowded.picture.2 > wide.picture.2 * 3 / 4, "{crowded:?}");
        assert_eq!(
            words.0,
            crowded.picture.0 + crowded.picture.2 + frame.width / 40
        );
        assert!(inside(crowded.picture) && inside(words));
    }

    #[test]
    fn short_tables_are_set_large() {
        assert_eq!(table_font(5, 3), (1600, 380_000));
        assert_eq!(table_font(5, SHORT_TABLE_ROWS + 1), (1200, 250_000));
        assert_eq!(table_font(9, 3), (1000, 210_000));
    }

    #[test]
    fn slides_txt_reads_as_keys_titles_bullets_and_paragraphs() {
        let text = "ignored\n[title]\nA study\nCut-off 2024\n\n[km-pfs]\nPFS\n- Median 8.3 months\nEvents 9/21\n[bad key]\n";
        let slides = parse_slides(text);
        assert_eq!(slides.len(), 2);
        assert_eq!(slides[0].key, "title");
        assert_eq!(slides[0].lines, vec![(false, "Cut-off 2024".to_string())]);
        assert_eq!(slides[1].title, crate::model::endpoint::PFS);
        assert_eq!(
            slides[1].lines,
            vec![
                (true, "Median 8.3 months".to_string()),
                (false, "Events 9/21".to_string()),
                (false, "[bad key]".to_string())
            ]
        );
    }

    #[test]
    fn table_rows_are_shared_evenly_and_headings_stay_with_their_rows() {
        let row = |group: bool| Row {
            class: group.then_some("group"),
            cells: Vec::new(),
        };
        // 13 rows of 12 a slide: 7 and 6, not 12 and 1.
        let plain: Vec<Row> = (0..13).map(|_| row(false)).collect();
        assert_eq!(pages(&plain, 12), [0..7, 7..13]);
        assert_eq!(pages(&plain[..12], 12), vec![0..12]);
        // A heading that would end a slide, or head one row there, moves to the next.
        let mut grouped: Vec<Row> = (0..14).map(|_| row(false)).collect();
        grouped[6] = row(true);
        assert_eq!(pages(&grouped, 12), [0..6, 6..14]);
        grouped[6] = row(false);
        grouped[5] = row(true);
        assert_eq!(pages(&grouped, 12), [0..5, 5..14]);
        // Every slide within its room, every row once.
        for n in 1..60 {
            let rows: Vec<Row> = (0..n).map(|i| row(i % 5 == 0)).collect();
            let split = pages(&rows, 8);
            assert!(
                split.iter().all(|r| r.len() <= 8 && !r.is_empty()),
                "{n}: {split:?}"
            );
            assert_eq!(split.iter().map(|r| r.len()).sum::<usize>(), n);
            assert!(split.windows(2).all(|w| w[0].end == w[1].start));
        }
    }

    #[test]
    fn spanned_cells_leave_merged_cells_on_the_grid() {
        let cell = |t: &str, colspan, rowspan| Cell {
            text: t.into(),
            num: false,
            level: false,
            colspan,
            rowspan,
        };
        let head = vec![
            Row {
                class: None,
                cells: vec![cell("Term", 1, 2), cell("TEAE", 2, 1)],
            },
            Row {
                class: None,
                cells: vec![cell("Any", 1, 1), cell("≥3", 1, 1)],
            },
        ];
        let body = vec![Row {
            class: None,
            cells: vec![cell("Rash", 1, 1), cell("1", 1, 1), cell("0", 1, 1)],
        }];
        let xml = table_sized(4, &head, &body, (0, 0, 3_000_000), None).0;
        let wrapped = format!("<r {}>{xml}</r>", house::ns!());
        let doc = roxmltree::Document::parse(&wrapped).unwrap();
        let rows: Vec<_> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "tr")
            .collect();
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert_eq!(
                r.children().filter(|n| n.tag_name().name() == "tc").count(),
                3
            );
        }
        let second: Vec<_> = rows[1]
            .children()
            .filter(|n| n.tag_name().name() == "tc")
            .collect();
        assert_eq!(second[0].attribute("vMerge"), Some("1"));
        let first: Vec<_> = rows[0]
            .children()
            .filter(|n| n.tag_name().name() == "tc")
            .collect();
        assert_eq!(first[1].attribute("gridSpan"), Some("2"));
        assert_eq!(first[2].attribute("hMerge"), Some("1"));
    }
}
