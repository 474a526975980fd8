//! `poster.pptx`: a congress poster per cohort (docs/OUTPUTS.md, "poster.pptx"), one slide at
//! the poster's printed size, laid out from `poster.txt` with the slides' machinery: a title
//! band (title, authors, affiliations, study and cut-off), then the blocks of the template in
//! columns (text, the report's tables as PowerPoint tables, figures as pictures with their
//! alt text). PowerPoint's slides are at most 56 inches a side, so a larger poster is drawn at
//! 1/k of its size (k = 2 for ASCO's 95 × 47 inches) to be printed at k × 100%: every size
//! below is the printed one, divided by k in the file, and no text is under 22 pt printed.
//! Text is measured with the figures' font and wrapped; when the blocks do not fit, the text
//! and then the figures are made smaller, and what still does not fit is left out, with a
//! warning.

use std::fmt::Write as _;

use super::{
    coloured_run, package, parse_slides, slide_table, table_sized, wrapped_lines, SlideTemplate,
};
use super::{line_emu, EMU_PER_PT};
use crate::config::{ConferenceSpec, OutputConfig};
use crate::diagnostic::{self, Diagnostic};
use crate::documents::render::DocumentContext;
use crate::documents::slides::template::escape;
use crate::error::{Error, Result};

/// The poster's printed size and its references.
#[derive(Debug, Clone, PartialEq)]
pub struct PosterSpec {
    /// Width in inches, as printed.
    pub width: f64,
    /// Height in inches, as printed.
    pub height: f64,
    /// Lines of the references block.
    pub references: Vec<String>,
    /// The smallest printed size of the title the congress asks for, in points (ASH's
    /// lettering of 1.5 inches); 0 where none is cited.
    pub title_min_pt: f64,
}

impl Default for PosterSpec {
    fn default() -> Self {
        PosterSpec {
            width: DEFAULT_SIZE.0,
            height: DEFAULT_SIZE.1,
            references: Vec::new(),
            title_min_pt: 0.0,
        }
    }
}

/// The size of a poster when neither `output.poster` nor the congress gives one: 48 × 36
/// inches, landscape, the common North American board.
const DEFAULT_SIZE: (f64, f64) = (48.0, 36.0);

impl PosterSpec {
    /// `output.poster`, each size missing from it taken from the congress, else the default.
    pub fn of(output: &OutputConfig) -> PosterSpec {
        let named = match &output.conference {
            Some(ConferenceSpec::Named(c)) => Some(*c),
            _ => None,
        };
        let preset = named.and_then(|c| c.poster_size()).unwrap_or(DEFAULT_SIZE);
        PosterSpec {
            width: output.poster.width.unwrap_or(preset.0),
            height: output.poster.height.unwrap_or(preset.1),
            references: output.poster.references.clone(),
            // Capitals 1.5 inches tall: 108 pt of cap height, at Arial's 0.716 em.
            title_min_pt: if named == Some(crate::config::Conference::Ash) {
                ASH_TITLE_PT
            } else {
                0.0
            },
        }
    }

    /// The divisor k of the drawing: the smallest whole number that brings both sides within
    /// PowerPoint's 56 inches.
    pub fn scale(&self) -> u64 {
        (self.width.max(self.height) / MAX_SLIDE_INCHES)
            .ceil()
            .max(1.0) as u64
    }
}

/// ASH's title lettering of at least 1.5 inches, as a font size: 108 pt capitals over Arial's
/// cap height of 0.716 em.
const ASH_TITLE_PT: f64 = 151.0;

/// PowerPoint's largest slide side, in inches.
const MAX_SLIDE_INCHES: f64 = 56.0;

const EMU_PER_INCH: f64 = 914_400.0;

/// Printed text sizes, in points: none under [`MIN_PT`].
const TITLE_PT: f64 = 88.0;
const AUTHORS_PT: f64 = 44.0;
const AFFILIATIONS_PT: f64 = 32.0;
const HEADING_PT: f64 = 48.0;
const BODY_PT: f64 = 32.0;
const TABLE_PT: f64 = 26.0;
/// The smallest text a poster prints.
pub const MIN_PT: f64 = 22.0;

/// One block of the poster in a column: its shapes drawn at a place, its height.
struct Block {
    heading: String,
    kind: Kind,
    /// What goes first when the poster is full: 0 is never left out while anything else
    /// could go ([`priority`]).
    priority: u8,
    /// A shorter form it takes before it leaves (the baseline table as one line an item).
    compact: Option<Kind>,
}

/// Each block's height whole and in its short form (the same without one).
type Heights = Vec<(u64, u64)>;

/// Each block's form: while the blocks do not `fit`, the lowest-priority one takes its short
/// form, else goes (the last of its priority first); then each block shortened or left out
/// is tried again, highest priority first, whole then short, and kept so if everything still
/// fits: no column stays empty for a block a smaller one made room for.
fn choose_forms(blocks: &[Block], fits: impl Fn(&[Form]) -> bool) -> Vec<Form> {
    let mut forms = vec![Form::Full; blocks.len()];
    while !fits(&forms) {
        let Some(i) = (0..blocks.len())
            .filter(|&i| forms[i] != Form::Out && blocks[i].priority > 0)
            .max_by_key(|&i| (blocks[i].priority, i))
        else {
            break;
        };
        forms[i] = if forms[i] == Form::Full && blocks[i].compact.is_some() {
            Form::Compact
        } else {
            Form::Out
        };
    }
    let mut changed: Vec<usize> = (0..blocks.len())
        .filter(|&i| forms[i] != Form::Full)
        .collect();
    changed.sort_by_key(|&i| (blocks[i].priority, i));
    for i in changed {
        let was = forms[i];
        for form in [Form::Full, Form::Compact] {
            if form == was || (form == Form::Compact && blocks[i].compact.is_none()) {
                break;
            }
            forms[i] = form;
            if fits(&forms) {
                break;
            }
            forms[i] = was;
        }
    }
    forms
}

/// How a block is on the poster.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Form {
    Full,
    Compact,
    Out,
}

enum Kind {
    Text(Vec<(bool, String)>),
    Table(crate::documents::report::Table),
    Figure {
        name: String,
        alt: String,
        png: crate::figures::Png,
        size: (u32, u32),
        lines: Vec<(bool, String)>,
        /// The share of the column the picture needs for its smallest text to print at
        /// [`MIN_PT`]; above 1 it cannot be set in a column.
        min_share: f64,
    },
}

/// The width of an SVG and the size of its smallest text, in its pixels.
fn smallest_text(svg: &str) -> Option<(f64, f64)> {
    let number_after = |text: &str, key: &str| -> Option<f64> {
        let at = text.find(key)? + key.len();
        text.get(at..)?.split('"').next()?.parse().ok()
    };
    let width = number_after(svg, "width=\"")?;
    let smallest = svg
        .match_indices("font-size=\"")
        .filter_map(|(at, key)| number_after(svg.get(at..)?, key))
        .filter(|px| *px > 0.0)
        .fold(f64::INFINITY, f64::min);
    (width > 0.0 && smallest.is_finite()).then_some((width, smallest))
}

/// Sizes of the drawing, in EMU and hundredths of a point of the file.
#[derive(Clone, Copy)]
struct Scale {
    k: f64,
    /// How much the blocks' text is set smaller to fit (1: not at all), never under 22 pt.
    tight: f64,
    /// The title's printed size at most and, where the congress sets a lettering rule, at
    /// least ([`PosterSpec::title_pt`]).
    title: (f64, f64),
}

impl Scale {
    /// A block's text of `printed_pt`, set `tight`er, never under [`MIN_PT`].
    fn text(&self, printed_pt: f64) -> u32 {
        self.font((printed_pt * self.tight).max(MIN_PT))
    }

    /// A printed size in points as the file's hundredths of a point.
    fn font(&self, printed_pt: f64) -> u32 {
        (printed_pt / self.k * 100.0).round() as u32
    }

    /// A printed length in inches as the file's EMU.
    fn emu(&self, printed_in: f64) -> u64 {
        (printed_in / self.k * EMU_PER_INCH).round() as u64
    }
}

/// The poster of one cohort: `text` is the rendered `poster.txt`.
pub fn poster(
    ctx: &DocumentContext<'_>,
    text: &str,
    template: &SlideTemplate,
    spec: &PosterSpec,
    cohort: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<u8>> {
    let scale = Scale {
        k: spec.scale() as f64,
        tight: 1.0,
        title: (TITLE_PT.max(spec.title_min_pt), spec.title_min_pt),
    };
    let size = (scale.emu(spec.width), scale.emu(spec.height));
    let margin = scale.emu(1.0);
    let gap = scale.emu(0.75);
    let slides = parse_slides(text);
    if slides.len() > MAX_POSTER_BLOCKS {
        return Err(Error::Template {
            template: "poster.txt".to_string(),
            message: format!(
                "the poster would have {} blocks, more than the {MAX_POSTER_BLOCKS} a poster \
                 holds (a block repeated in a loop?)",
                slides.len()
            ),
        });
    }
    // About 16 inches a column, fewer when a figure needs more to print its text at MIN_PT
    // (never fewer than 2).
    let widest_figure = slides
        .iter()
        .filter_map(|slide| {
            let fig = ctx
                .figures
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(&slide.key))?;
            let (width, font) = smallest_text(&fig.svg)?;
            Some(MIN_PT / font * width / 72.0)
        })
        .fold(0.0, f64::max);
    let readable = ((spec.width - 2.0 + 0.75) / (widest_figure + 0.75)).floor() as u64;
    let columns = ((spec.width / 16.0).round() as u64)
        .clamp(2, 6)
        .min(readable.max(2));
    let column_w = (size.0 - 2 * margin - (columns - 1) * gap) / columns;

    let mut shapes = String::new();
    let mut id = 2u32;
    // The title band: the `[title]` block's title and lines (authors, affiliations, study).
    // Its type set smaller (never under 22 pt) until it takes at most a quarter of the height.
    let band_h = match slides.iter().find(|s| s.key == "title") {
        Some(title) => {
            let (xml, h) = fitted_band(title, id, &scale, (size, margin), warnings);
            shapes.push_str(&xml);
            id += 1;
            h
        }
        None => 0,
    };
    let blocks = poster_blocks(ctx, &slides, spec, (&scale, column_w), cohort)?;
    let top = margin + band_h + gap;
    let room = size.1.saturating_sub(top + margin);
    // The text set smaller (to 70%, never under 22 pt), then the figures (to 40% of the
    // column, never so small that their text prints under 22 pt), until the blocks fit.
    let attempts = [1.0, 0.85, 0.7]
        .into_iter()
        .flat_map(|tight| (0..7).map(move |i| (tight, 1.0 - 0.1 * f64::from(i))));
    // Each attempt with every block's height (and its short form's) measured once: the
    // layouts below only add.
    let attempts: Vec<(Scale, f64, Heights)> = attempts
        .map(|(tight, share)| {
            let scale = Scale { tight, ..scale };
            let heights = blocks
                .iter()
                .map(|b| {
                    let full = block_height(b, &scale, column_w, share);
                    let short = b.compact.as_ref().map_or(full, |kind| {
                        heading_height(b, &scale, column_w)
                            + kind_height(kind, &scale, column_w, share)
                    });
                    (full, short)
                })
                .collect();
            (scale, share, heights)
        })
        .collect();
    // The blocks in `forms` laid out: the first attempt that places them all, else the last.
    let layout = |forms: &[Form]| {
        let mut fitted = None;
        for (scale, share, heights) in &attempts {
            let kept: Vec<u64> = heights
                .iter()
                .zip(forms)
                .filter_map(|(h, f)| match f {
                    Form::Full => Some(h.0),
                    Form::Compact => Some(h.1),
                    Form::Out => None,
                })
                .collect();
            let placed = flow(&kept, room, gap, columns);
            let all = placed.iter().all(Option::is_some);
            fitted = Some((*scale, *share, placed, all));
            if all {
                break;
            }
        }
        fitted
    };
    let forms = choose_forms(&blocks, |forms: &[Form]| layout(forms).is_some_and(|f| f.3));
    // The last attempt when none fits everything: what does not fit is left out, and said.
    let Some((scale, figure_share, kept_placed, _)) = layout(&forms) else {
        return Ok(Vec::new());
    };
    let mut kept_placed = kept_placed.into_iter();
    let placed: Vec<Option<(u64, u64)>> = forms
        .iter()
        .map(|f| {
            if *f != Form::Out {
                kept_placed.next().flatten()
            } else {
                None
            }
        })
        .collect();
    let mut blocks = blocks;
    // The blocks shortened are drawn in their short form, and said.
    let mut shortened = Vec::new();
    for (block, form) in blocks.iter_mut().zip(&forms) {
        if *form == Form::Compact {
            if let Some(kind) = block.compact.take() {
                block.kind = kind;
                shortened.push(block.heading.clone());
            }
        }
    }
    if !shortened.is_empty() {
        warnings.push(Diagnostic::note(
            diagnostic::Kind::PosterOverfull,
            format!(
                "poster.pptx shows {} in short form (the baseline as one line an item) to keep \
                 higher-priority blocks; the report has the full table",
                shortened.join(", ")
            ),
        ));
    }
    sharpened(
        &mut blocks,
        &placed,
        ctx,
        (&scale, column_w, figure_share),
        cohort,
    )?;
    warnings.extend(overfull(&blocks, &placed, spec));
    let mut pictures = Vec::new();
    let mut media = Vec::new();
    for (block, (column, y)) in blocks.iter().zip(placed).filter_map(|(b, p)| Some((b, p?))) {
        let x = margin + column * (column_w + gap);
        draw(
            &mut shapes,
            &mut id,
            block,
            &scale,
            (x, top + y, column_w),
            figure_share,
            &mut pictures,
            &mut media,
        );
    }
    let mut template = template.clone();
    template.size = size;
    // A poster drawn at 1/k says how to print it, in its properties and its notes.
    let k = spec.scale();
    let (w, h) = (
        crate::format::short_number(spec.width),
        crate::format::short_number(spec.height),
    );
    let print = format!(
        "{w} x {h} inch poster{}",
        if k > 1 {
            format!(", drawn at 1/{k} size: print at {}%", k * 100)
        } else {
            ": print at 100%".to_string()
        }
    );
    let notes = format!(
        "Print at {}% = {w} × {h} in{}.",
        k * 100,
        if k > 1 {
            format!(" (drawn at 1/{k} size, as PowerPoint's largest slide allows)")
        } else {
            String::new()
        }
    );
    let slide = package::SlidePart {
        xml: super::slide_xml(&shapes),
        layout: template.content_layout.clone(),
        pictures,
        notes: Some(notes),
    };
    package::package(&[slide], &media, &template, (&ctx.text.title, Some(&print))).map_err(|e| {
        Error::Analysis {
            cohort: cohort.to_string(),
            message: format!("cannot write poster.pptx: {e}"),
        }
    })
}

/// The poster's blocks from `poster.txt`'s (the title apart): each a report table, a figure
/// (its PNG, and the share of a column its smallest text needs to print at MIN_PT) or text;
/// the config's references, numbered, last.
fn poster_blocks(
    ctx: &DocumentContext<'_>,
    slides: &[super::SlideText],
    spec: &PosterSpec,
    (scale, column_w): (&Scale, u64),
    cohort: &str,
) -> Result<Vec<Block>> {
    let mut blocks = Vec::new();
    for slide in slides.iter().filter(|s| s.key != "title") {
        let kind = if let Some(table) = slide_table(ctx, &slide.key) {
            Kind::Table(table)
        } else if let Some(fig) = ctx
            .figures
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(&slide.key))
        {
            let png: crate::figures::Png = match &fig.png {
                Some(png) => png.clone(),
                None => crate::plots::figure_png(&fig.svg)
                    .map_err(|source| Error::Figure {
                        cohort: Some(cohort.to_string()),
                        figure: format!("{} for poster.pptx", fig.name),
                        source,
                    })?
                    .into(),
            };
            let size = crate::documents::docx::png_size(&png).unwrap_or((4, 3));
            // Printed width (inches) at which the figure's smallest text is MIN_PT: its pixels
            // are points at 72 per inch.
            let min_share = smallest_text(&fig.svg).map_or(0.0, |(width, font)| {
                scale.emu(MIN_PT / font * width / 72.0) as f64 / column_w as f64
            });
            Kind::Figure {
                min_share,
                name: fig.name.clone(),
                alt: if fig.alt.is_empty() {
                    fig.caption.clone()
                } else {
                    fig.alt.clone()
                },
                png,
                size,
                lines: slide.lines.clone(),
            }
        } else {
            if slide.lines.is_empty() {
                continue;
            }
            Kind::Text(slide.lines.clone())
        };
        let compact = (slide.key == "patients")
            .then(|| baseline_lines(ctx, &slide.lines))
            .filter(|lines| !lines.is_empty())
            .map(Kind::Text);
        blocks.push(Block {
            heading: slide.title.clone(),
            kind,
            priority: priority(&slide.key, ctx),
            compact,
        });
    }
    if !spec.references.is_empty() {
        blocks.push(Block {
            priority: 2,
            compact: None,
            heading: "References".to_string(),
            kind: Kind::Text(
                spec.references
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (false, format!("{}. {r}", i + 1)))
                    .collect(),
            ),
        });
    }
    Ok(blocks)
}

/// The baseline table's short form: the block's own lines, then each characteristic as the
/// abstract phrases it ("Median age 61 years (range 33–84)", "Male/female: 59.0%/41.0%").
fn baseline_lines(ctx: &DocumentContext<'_>, lines: &[(bool, String)]) -> Vec<(bool, String)> {
    let items = &ctx.cohort.baseline;
    let mut out = lines.to_vec();
    for b in items {
        let phrase = crate::documents::prose::baseline_phrase(b, 3, ctx.analysis.percent_decimals);
        let mut chars = phrase.chars();
        if let Some(first) = chars.next() {
            out.push((true, first.to_uppercase().chain(chars).collect()));
        }
    }
    if out.len() == lines.len() {
        return Vec::new();
    }
    out
}

/// A block's priority on a full poster (docs/OUTPUTS.md, "poster.pptx"): 0 for what the
/// poster always holds (the primary endpoints' figures, the response of a primary ORR, the
/// comparison, safety, conclusions), 1 Background and Methods, 2 secondary endpoints, 3
/// exploratory ones, the baseline table and blocks readout does not know, 4 subgroup forests
/// and the waterfall.
fn priority(key: &str, ctx: &DocumentContext<'_>) -> u8 {
    let role = |name: &str| {
        ctx.show
            .endpoints
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, e)| match e.role {
                crate::config::Role::Primary => 0,
                crate::config::Role::Secondary => 2,
                crate::config::Role::Exploratory => 3,
            })
    };
    match key {
        "comparison" | "safety-overview" | "safety" | "conclusions" => 0,
        "background" | "methods" => 1,
        "efficacy" => role("ORR").unwrap_or(2),
        "waterfall" | "spider" | "swimmer" => 4,
        _ if key.starts_with("forest-") => 4,
        _ => key
            .strip_prefix("km-")
            .or_else(|| key.strip_prefix("cif-"))
            .and_then(role)
            .unwrap_or(3),
    }
}

/// The printed resolution every poster figure has at least, in dots per inch.
pub const MIN_DPI: f64 = 200.0;

/// The placed figures whose PNG would print under [`MIN_DPI`] at their printed width
/// rasterised again from their SVG at the scale that gives it (in parallel).
fn sharpened(
    blocks: &mut [Block],
    placed: &[Option<(u64, u64)>],
    ctx: &DocumentContext<'_>,
    (scale, column_w, share): (&Scale, u64, f64),
    cohort: &str,
) -> Result<()> {
    use rayon::prelude::*;
    blocks
        .par_iter_mut()
        .zip(placed)
        .filter(|(_, p)| p.is_some())
        .try_for_each(|(block, _)| {
            let Kind::Figure {
                name,
                png,
                size,
                min_share,
                ..
            } = &mut block.kind
            else {
                return Ok(());
            };
            let (cx, _) = figure_size(*size, column_w, share.max(*min_share));
            let inches = cx as f64 * scale.k / EMU_PER_INCH;
            let dpi = f64::from(size.0) / inches.max(1e-9);
            let Some(fig) = ctx.figures.iter().find(|f| f.name == *name) else {
                return Ok(());
            };
            if dpi >= MIN_DPI {
                return Ok(());
            }
            // 1% over, so that rounding to whole pixels never lands under the floor.
            let factor = (MIN_DPI / dpi * 1.01) as f32;
            let bytes = crate::plots::svg_to_png(&fig.svg, crate::plots::PNG_SCALE * factor)
                .map_err(|source| Error::Figure {
                    cohort: Some(cohort.to_string()),
                    figure: format!("{name} for poster.pptx"),
                    source,
                })?;
            let sharp: crate::figures::Png = bytes.into();
            *size = crate::documents::docx::png_size(&sharp).unwrap_or(*size);
            *png = sharp;
            Ok(())
        })
}

/// Most blocks a warning names; the rest are counted.
const LISTED: usize = 20;

/// The first [`LISTED`] of `names`, then how many more.
fn named(names: &[&str]) -> String {
    let shown = names[..names.len().min(LISTED)].join("; ");
    match names.len().saturating_sub(LISTED) {
        0 => shown,
        more => format!("{shown}; and {more} more"),
    }
}

/// Warnings for what the poster leaves out: figures whose text would print under MIN_PT even
/// across a whole column, and blocks that do not fit (`placed` `None`).
fn overfull(blocks: &[Block], placed: &[Option<(u64, u64)>], spec: &PosterSpec) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let left_out: Vec<&str> = blocks
        .iter()
        .zip(placed)
        .filter(|(_, p)| p.is_none())
        .map(|(b, _)| b.heading.as_str())
        .collect();
    // Figures whose text would print under MIN_PT even across a whole column, said apart.
    let unreadable: Vec<&str> = blocks
        .iter()
        .filter(|b| matches!(b.kind, Kind::Figure { min_share, .. } if min_share > 1.0))
        .map(|b| b.heading.as_str())
        .collect();
    if !unreadable.is_empty() {
        warnings.push(
            Diagnostic::warning(
                diagnostic::Kind::PosterOverfull,
                format!(
                    "poster.pptx leaves out {} ({}): the smallest text would print under \
                     {MIN_PT} pt even across a whole column of a {} × {} inch poster",
                    if unreadable.len() == 1 {
                        "a figure"
                    } else {
                        "figures"
                    },
                    named(&unreadable),
                    spec.width,
                    spec.height
                ),
            )
            .hint("give output.poster a larger width, or leave the figure out of poster.txt"),
        );
    }
    let left_out: Vec<&str> = left_out
        .into_iter()
        .filter(|h| !unreadable.contains(h))
        .collect();

    if !left_out.is_empty() {
        warnings.push(
            Diagnostic::warning(
                diagnostic::Kind::PosterOverfull,
                format!(
                    "poster.pptx leaves out {} ({}), lowest in priority first (the primary \
                 endpoints, the comparison, safety and conclusions are kept): they do not fit \
                 a {} × {} inch poster even with the text at 70% (at least {MIN_PT} pt) and \
                 the figures as small as their text allows (at least {MIN_PT} pt)",
                    if left_out.len() == 1 {
                        "a block"
                    } else {
                        "blocks"
                    },
                    named(&left_out),
                    spec.width,
                    spec.height
                ),
            )
            .hint(
                "give output.poster a larger width and height, or leave blocks out of poster.txt",
            ),
        );
    }
    warnings
}

/// Most blocks of a poster (`poster.txt`): a poster holds a few dozen.
pub const MAX_POSTER_BLOCKS: usize = 200;

/// The title band of `title`, its type set smaller (never under 22 pt) until it takes at most
/// a quarter of the poster's height; when even the smallest type does not fit, the authors and
/// affiliations are cut to the first that fit ("et al.", "…") and the title too if it must,
/// with a warning. Its XML and height.
fn fitted_band(
    title: &super::SlideText,
    id: u32,
    scale: &Scale,
    (size, margin): ((u64, u64), u64),
    warnings: &mut Vec<Diagnostic>,
) -> (String, u64) {
    let most = size.1 / 4;
    let band = |t: &super::SlideText, factor: f64| {
        let mut xml = String::new();
        let h = title_band(&mut xml, id, t, scale, factor, size.0, margin);
        (xml, h)
    };
    let mut last = (String::new(), 0);
    for factor in BAND_FACTORS {
        last = band(title, factor);
        if last.1 <= most {
            return last;
        }
    }
    // The authors' line a list by commas, the affiliations' by semicolons ("1. X; 2. Y"):
    // keep the first items of each, fewer each round; then the title's first characters.
    let smallest = BAND_FACTORS[BAND_FACTORS.len() - 1];
    let lists: Vec<Vec<&str>> = title
        .lines
        .iter()
        .enumerate()
        .map(|(k, (_, l))| l.split_inclusive(if k == 0 { ',' } else { ';' }).collect())
        .collect();
    let mut share = 1.0f64;
    let mut title_chars = title.title.chars().count();
    for _ in 0..64 {
        share *= 0.7;
        let items_fit = lists.iter().all(|l| (l.len() as f64 * share).ceil() <= 1.0);
        if items_fit {
            title_chars = title_chars * 7 / 10;
        }
        let mut cut = title.clone();
        let mut shortened = Vec::new();
        for (k, ((_, line), items)) in cut.lines.iter_mut().zip(&lists).enumerate() {
            let keep = ((items.len() as f64 * share).ceil() as usize).max(1);
            if keep < items.len() {
                let kept: String = items[..keep].concat();
                let kept = kept.trim_end_matches([',', ';', ' ']);
                *line = if k == 0 {
                    format!("{kept} et al.")
                } else {
                    format!("{kept} …")
                };
                shortened.push((k, keep, items.len()));
            }
        }
        if title_chars < title.title.chars().count() {
            cut.title = title
                .title
                .chars()
                .take(title_chars.max(1))
                .collect::<String>()
                + "…";
        }
        last = band(&cut, smallest);
        if last.1 <= most || title_chars <= 1 {
            let what: Vec<String> = shortened
                .iter()
                .map(|(k, keep, all)| {
                    let kind = match k {
                        0 => "authors".to_string(),
                        1 => "affiliations".to_string(),
                        _ => format!("items of its line {}", k + 1),
                    };
                    format!("the first {keep} of {all} {kind}")
                })
                .chain(
                    (title_chars < title.title.chars().count())
                        .then(|| format!("the first {title_chars} characters of the title")),
                )
                .collect();
            warnings.push(
                Diagnostic::warning(
                    diagnostic::Kind::PosterOverfull,
                    format!(
                        "poster.pptx: the title band names {} to fit a quarter of the \
                         poster's height with its type at {MIN_PT} pt",
                        what.join(", ")
                    ),
                )
                .hint("shorten study.authors and study.affiliations, or give a taller poster"),
            );
            break;
        }
    }
    last
}

/// The sizes the title band's type is tried at, from its own down to 30%.
const BAND_FACTORS: [f64; 6] = [1.0, 0.85, 0.7, 0.55, 0.4, 0.3];

/// The title band across the top, filled with the theme's first accent colour: the title in
/// large bold type, then each line of the `[title]` block, at `factor` of their sizes (never
/// under 22 pt); its height.
#[allow(clippy::too_many_arguments)]
fn title_band(
    shapes: &mut String,
    id: u32,
    title: &super::SlideText,
    scale: &Scale,
    factor: f64,
    width: u64,
    margin: u64,
) -> u64 {
    let inner = width - 2 * margin;
    let inset = scale.emu(0.4);
    let text_w = inner - 2 * inset;
    let mut paragraphs = String::new();
    let mut height = 2 * inset;
    let mut add = |text: &str, pt: f64, bold: bool, least: f64| {
        let size = scale.font((pt * factor).max(MIN_PT).max(least));
        height += wrapped_lines(text, size, text_w) as u64 * line_emu(size);
        let _ = write!(
            paragraphs,
            r#"<a:p><a:pPr algn="ctr"/>{}</a:p>"#,
            coloured_run(text, Some(size), bold, Some("bg1"))
        );
    };
    add(&title.title, scale.title.0, true, scale.title.1);
    for (i, (_, line)) in title.lines.iter().enumerate() {
        let pt = if i == 0 { AUTHORS_PT } else { AFFILIATIONS_PT };
        add(line, pt, false, 0.0);
    }
    let _ = write!(
        shapes,
        r#"<p:sp><p:nvSpPr><p:cNvPr id="{id}" name="Title band"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="{margin}" y="{margin}"/><a:ext cx="{inner}" cy="{height}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:solidFill><a:schemeClr val="accent1"/></a:solidFill></p:spPr><p:txBody><a:bodyPr wrap="square" lIns="{inset}" tIns="{inset}" rIns="{inset}" bIns="{inset}" anchor="ctr"/><a:lstStyle/>{paragraphs}</p:txBody></p:sp>"#
    );
    height
}

/// The height of a block's heading.
fn heading_height(block: &Block, scale: &Scale, width: u64) -> u64 {
    if block.heading.is_empty() {
        return 0;
    }
    let size = scale.text(HEADING_PT);
    wrapped_lines(&block.heading, size, width) as u64 * line_emu(size) + scale.emu(0.15)
}

/// The height of lines of body text in a box `width` wide (its insets taken off).
fn text_height(lines: &[(bool, String)], scale: &Scale, width: u64) -> u64 {
    let size = scale.text(BODY_PT);
    let inner = width.saturating_sub(2 * 91_440 + 228_600);
    let spacing = u64::from(size) * EMU_PER_PT / 100 / 2;
    lines
        .iter()
        .map(|(_, l)| wrapped_lines(l, size, inner) as u64 * line_emu(size) + spacing)
        .sum::<u64>()
        + 2 * 45_720
}

/// A figure's drawn size in a column `width` wide at `share` of it.
fn figure_size((w, h): (u32, u32), width: u64, share: f64) -> (u64, u64) {
    let cx = (width as f64 * share) as u64;
    let cy = (cx as f64 * f64::from(h.max(1)) / f64::from(w.max(1))) as u64;
    (cx, cy)
}

/// Each block's height in a column `width` wide.
fn block_height(block: &Block, scale: &Scale, width: u64, share: f64) -> u64 {
    heading_height(block, scale, width) + kind_height(&block.kind, scale, width, share)
}

/// The height of a block's body of `kind` in a column `width` wide.
fn kind_height(kind: &Kind, scale: &Scale, width: u64, share: f64) -> u64 {
    match kind {
        Kind::Text(lines) => text_height(lines, scale, width),
        Kind::Table(t) => {
            table_sized(
                0,
                &t.head,
                &t.body,
                (0, 0, width),
                Some(scale.text(TABLE_PT)),
            )
            .1
        }
        Kind::Figure {
            size,
            lines,
            min_share,
            ..
        } => {
            if *min_share > 1.0 {
                // Too small to read in any column: never placed.
                return u64::MAX / 4;
            }
            let words = if lines.is_empty() {
                0
            } else {
                text_height(lines, scale, width)
            };
            figure_size(*size, width, share.max(*min_share)).1 + words
        }
    }
}

/// Each block's column and top (from the top of the columns), filled in order, a block moved
/// to the next column when it does not fit below the last; a block that fits nowhere (the
/// last column full, or taller than a column) is left out: `None`.
fn flow(heights: &[u64], room: u64, gap: u64, columns: u64) -> Vec<Option<(u64, u64)>> {
    let mut placed = Vec::with_capacity(heights.len());
    let (mut column, mut y) = (0u64, 0u64);
    for &h in heights {
        if y > 0 && y + h > room && column + 1 < columns {
            column += 1;
            y = 0;
        }
        if y + h > room {
            placed.push(None);
            continue;
        }
        placed.push(Some((column, y)));
        y += h + gap;
    }
    placed
}

/// A block's shapes at (x, y) in a column `width` wide.
#[allow(clippy::too_many_arguments)]
fn draw(
    shapes: &mut String,
    id: &mut u32,
    block: &Block,
    scale: &Scale,
    (x, y, width): (u64, u64, u64),
    share: f64,
    pictures: &mut Vec<String>,
    media: &mut Vec<(String, crate::figures::Png)>,
) {
    let mut y = y;
    if !block.heading.is_empty() {
        let h = heading_height(block, scale, width);
        let size = scale.text(HEADING_PT);
        let _ = write!(
            shapes,
            r#"<p:sp><p:nvSpPr><p:cNvPr id="{id}" name="Heading {id}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{width}" cy="{h}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr><p:txBody><a:bodyPr wrap="square" lIns="0" rIns="0" tIns="0" bIns="0"/><a:lstStyle/><a:p>{}</a:p></p:txBody></p:sp>"#,
            coloured_run(&block.heading, Some(size), true, Some("accent1")),
        );
        *id += 1;
        y += h;
    }
    let words = |shapes: &mut String, id: &mut u32, lines: &[(bool, String)], y: u64| {
        let h = text_height(lines, scale, width);
        shapes.push_str(&super::text_box(
            *id,
            (x, y, width, h),
            lines,
            scale.text(BODY_PT),
        ));
        *id += 1;
    };
    match &block.kind {
        Kind::Text(lines) => words(shapes, id, lines, y),
        Kind::Table(t) => {
            let (xml, _) = table_sized(
                *id,
                &t.head,
                &t.body,
                (x, y, width),
                Some(scale.text(TABLE_PT)),
            );
            shapes.push_str(&xml);
            *id += 1;
        }
        Kind::Figure {
            name,
            alt,
            png,
            size,
            lines,
            min_share,
        } => {
            let file = format!("readout-{name}.png");
            if !media.iter().any(|(n, _)| *n == file) {
                media.push((file.clone(), png.clone()));
            }
            pictures.push(file);
            let rid = pictures.len() + 1;
            let (cx, cy) = figure_size(*size, width, share.max(*min_share));
            let px = x + (width - cx) / 2;
            let _ = write!(
                shapes,
                r#"<p:pic><p:nvPicPr><p:cNvPr id="{id}" name="{}" descr="{}"/><p:cNvPicPr><a:picLocks noChangeAspect="1"/></p:cNvPicPr><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rId{rid}"/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr><a:xfrm><a:off x="{px}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>"#,
                escape(name),
                escape(alt),
            );
            *id += 1;
            if !lines.is_empty() {
                words(shapes, id, lines, y + cy);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_come_from_the_config_then_the_congress_then_the_default() {
        let mut output = OutputConfig::default();
        assert_eq!(PosterSpec::of(&output), PosterSpec::default());
        output.conference = Some(ConferenceSpec::Named(crate::config::Conference::Asco));
        let asco = PosterSpec::of(&output);
        assert_eq!((asco.width, asco.height), (95.0, 47.0));
        // Drawn at half size: 47.5 × 23.5 inches, within PowerPoint's 56.
        assert_eq!(asco.scale(), 2);
        output.poster.height = Some(40.0);
        let own = PosterSpec::of(&output);
        assert_eq!((own.width, own.height), (95.0, 40.0));
        assert_eq!(PosterSpec::default().scale(), 1);
    }

    #[test]
    fn printed_sizes_are_divided_by_the_scale_and_none_is_under_22_pt() {
        let half = Scale {
            k: 2.0,
            tight: 1.0,
            title: (TITLE_PT, 0.0),
        };
        assert_eq!(half.font(44.0), 2200);
        assert_eq!(half.emu(2.0), 914_400);
        // Set tighter, text stops at 22 pt printed.
        let tight = Scale {
            k: 2.0,
            tight: 0.5,
            title: (TITLE_PT, 0.0),
        };
        assert_eq!(tight.text(BODY_PT), 1100);
        for pt in [
            TITLE_PT,
            AUTHORS_PT,
            AFFILIATIONS_PT,
            HEADING_PT,
            BODY_PT,
            TABLE_PT,
        ] {
            assert!(pt >= MIN_PT);
        }
    }

    #[test]
    fn blocks_flow_down_the_columns_and_refuse_what_does_not_fit() {
        let scale = Scale {
            k: 1.0,
            tight: 1.0,
            title: (TITLE_PT, 0.0),
        };
        let text = |n: usize| Block {
            heading: "Heading".into(),
            kind: Kind::Text(vec![(true, "word ".repeat(n))]),
            priority: 0,
            compact: None,
        };
        let width = scale.emu(10.0);
        let one = block_height(&text(10), &scale, width, 1.0);
        // Longer text wraps onto more lines: a taller block.
        assert!(block_height(&text(200), &scale, width, 1.0) > one);
        let heights = [one; 3];
        // Room for two blocks a column: the third starts the second column at the top.
        let room = 2 * one + scale.emu(0.5);
        let placed = flow(&heights, room, scale.emu(0.25), 2);
        assert_eq!(placed[0], Some((0, 0)));
        assert_eq!(placed[1].map(|p| p.0), Some(0));
        assert_eq!(placed[2], Some((1, 0)));
        // One column of that room holds two; the third is left out.
        let one_column = flow(&heights, room, scale.emu(0.25), 1);
        assert_eq!(one_column.iter().filter(|p| p.is_some()).count(), 2);
        assert_eq!(one_column[2], None);
    }

    /// The lowest priority shortens before it leaves, leaves before a higher one; what was
    /// shortened or left out comes back whole, or short, when it fits again.
    #[test]
    fn blocks_shorten_then_leave_by_priority_and_come_back_when_they_fit() {
        let block = |priority: u8, compact: bool| Block {
            heading: String::new(),
            kind: Kind::Text(Vec::new()),
            priority,
            compact: compact.then(|| Kind::Text(Vec::new())),
        };
        // Heights whole and short; a poster of `room`.
        let blocks = [
            block(0, false),
            block(2, false),
            block(3, true),
            block(4, false),
        ];
        let heights = [(5, 5), (4, 4), (6, 2), (3, 3)];
        let fits_in = |room: u64| {
            move |forms: &[Form]| {
                forms
                    .iter()
                    .zip(heights)
                    .map(|(f, h)| match f {
                        Form::Full => h.0,
                        Form::Compact => h.1,
                        Form::Out => 0,
                    })
                    .sum::<u64>()
                    <= room
            }
        };
        use Form::{Compact, Full, Out};
        assert_eq!(choose_forms(&blocks, fits_in(18)), [Full; 4]);
        // The forest-like block (4) goes first, then the table shortens.
        assert_eq!(choose_forms(&blocks, fits_in(15)), [Full, Full, Full, Out]);
        assert_eq!(
            choose_forms(&blocks, fits_in(12)),
            [Full, Full, Compact, Out]
        );
        // Out of room for the short table: it goes.
        assert_eq!(choose_forms(&blocks, fits_in(9)), [Full, Full, Out, Out]);
        // Less: the priority-2 block goes too, and the table comes back short in its room.
        assert_eq!(choose_forms(&blocks, fits_in(8)), [Full, Out, Compact, Out]);
        // Priority 0 never goes.
        assert_eq!(choose_forms(&blocks, fits_in(1)), [Full, Out, Out, Out]);
    }
}
