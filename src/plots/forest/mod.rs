//! Forest plot of subgroup hazard ratios, laid out as in randomised-trial papers: a table of
//! subgroups with each arm's events/subjects on the left, the estimates with their confidence
//! intervals on a logarithmic hazard-ratio axis in the middle, and the estimates written out
//! on the right.

use super::axis::LABEL_GAP;
use super::canvas::{
    draw_title, px, truncate_to_width, wrap_text, Anchor, Canvas, Px, Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, text_width, BLACK, DARK_GREY, GREY, OI_BLUE, PAD, SMALL_PX, TICK_PX, TITLE_PX,
};
use super::{finite, PlotError};

/// One row of a forest plot: a subgroup level (or the overall estimate, first).
#[derive(Debug, Clone, PartialEq)]
pub struct ForestRow {
    /// The row's label, e.g. "All subjects", or "Female" under a group heading.
    pub label: String,
    /// The subgroup column's label ("SEX"), `None` for the overall row. Rows of one group are
    /// consecutive: a heading line is drawn above a row whose group differs from the row
    /// before it, and the group's rows are indented under it.
    pub group: Option<String>,
    /// Subjects in the experimental arm.
    pub n: usize,
    /// Subjects in the reference arm.
    pub n_reference: usize,
    /// Subjects with an event in the experimental arm.
    pub events: usize,
    /// Subjects with an event in the reference arm.
    pub events_reference: usize,
    /// Hazard ratio (estimate, lower, upper limit); `None` when not estimable: the row is
    /// written "NE" and has no marker.
    pub hr: Option<(f64, f64, f64)>,
    /// Text written in the estimates column of the group's heading line, when the row is the
    /// first of its group (e.g. "Interaction p = 0.32"); ignored on other rows.
    pub group_note: Option<String>,
}

/// Text of the table and the axis's tick labels: a forest plot is a dense table.
const TABLE_PX: f64 = SMALL_PX;

/// Canvas width when the columns leave the plot at least [`MIN_PLOT_W`].
const WIDTH: i32 = 720;
const MIN_PLOT_W: i32 = 180;
/// Bounds of the widest subgroup label: as wide as the canvas allows between them; longer
/// labels wrap.
const LABEL_MIN_W: i32 = 170;
const LABEL_MAX_W: i32 = 220;
/// Most lines of a subgroup label; the rest is cut with an ellipsis.
const MAX_LABEL_LINES: usize = 2;
/// Widest line of a count column's heading (the arm's name wraps, on at most three lines).
const COUNT_MAX_W: i32 = 125;
const MAX_ARM_LINES: usize = 3;
/// Widest heading of the estimates column.
const HR_HEADER_MAX_W: i32 = 200;
/// Widest line of a "Favours …" label.
const FAVOURS_MAX_W: i32 = 240;
/// Room between the line of no difference and a "Favours …" label.
const FAVOURS_GAP: i32 = 10;
/// Length of the arrows over the "Favours …" labels, and the height of their line.
const FAVOURS_ARROW_LEN: i32 = 36;
const FAVOURS_ARROW_H: i32 = 12;
/// Indentation of a group's levels under its heading.
const INDENT: i32 = 16;
const COL_GAP: i32 = 14;
const PLOT_GAP: i32 = 14;
/// Extra height of a row over its line of text.
const ROW_PAD: i32 = 6;
/// Length of the arrowhead drawn where an interval runs off the axis.
const ARROW: i32 = 8;
/// Half the side of the largest and the smallest square marker.
const MAX_HALF: f64 = 7.0;
const MIN_HALF: f64 = 3.0;
/// Half the height of the overall row's diamond, and its least half-width.
const DIAMOND_HALF_H: i32 = 7;
const DIAMOND_MIN_HALF_W: i32 = 6;

/// The axis never reaches beyond these hazard ratios; intervals past them end in an arrow.
const AXIS_MIN: f64 = 0.01;
const AXIS_MAX: f64 = 100.0;
/// The axis covers at least this range, so 1 is never at an end.
const MIN_SPAN: (f64, f64) = (0.5, 2.0);

/// Tick families, preferred first: the first whose range covers the data with at most
/// [`MAX_TICKS`] ticks whose labels fit is used. Written as literals so every label prints
/// exactly.
const POWERS_OF_TWO: [f64; 7] = [0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0];
const ONE_TWO_FIVE: [f64; 13] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0,
];
const DECADES: [f64; 5] = [0.01, 0.1, 1.0, 10.0, 100.0];
/// A forest plot's axis is read at a glance: a few ticks.
const MAX_TICKS: usize = 7;

/// The hazard-ratio axis: its ends (both ticks) and ticks, on a log scale.
#[derive(Debug, Clone, PartialEq)]
struct LogAxis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

/// A tick label: the literal's shortest decimal form ("0.125", "1", "20").
fn tick_label(v: f64) -> String {
    format!("{v}")
}

impl LogAxis {
    /// The ticks of `family` from the last at or below `lo` to the first at or above `hi`;
    /// `None` when the family does not reach that far.
    fn from_family(family: &[f64], lo: f64, hi: f64) -> Option<LogAxis> {
        let start = family
            .iter()
            .rev()
            .copied()
            .find(|t| *t <= lo * (1.0 + 1e-9))?;
        let end = family.iter().copied().find(|t| *t >= hi * (1.0 - 1e-9))?;
        let ticks: Vec<f64> = family
            .iter()
            .copied()
            .filter(|t| *t >= start && *t <= end)
            .collect();
        Some(LogAxis {
            lo: start,
            hi: end,
            ticks,
        })
    }

    /// Whether neighbouring tick labels stay [`LABEL_GAP`] apart on a plot `plot_w` wide.
    fn fits(&self, plot_w: i32) -> Result<bool, PlotError> {
        let xs = self.scale(0, plot_w);
        for pair in self.ticks.windows(2) {
            if let [a, b] = pair {
                let wa = text_width(&tick_label(*a), TABLE_PX)?;
                let wb = text_width(&tick_label(*b), TABLE_PX)?;
                if xs.at(b.ln()) - xs.at(a.ln()) < (wa + wb + 1) / 2 + LABEL_GAP {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The axis for intervals from `data_lo` to `data_hi`: at least 0.5 to 2, at most 0.01
    /// to 100, ticks at powers of two when they cover it, otherwise 1–2–5 steps, otherwise
    /// decades (the first with at most [`MAX_TICKS`] ticks whose labels fit).
    fn choose(data_lo: f64, data_hi: f64, plot_w: i32) -> Result<LogAxis, PlotError> {
        let lo = data_lo.min(MIN_SPAN.0).max(AXIS_MIN);
        let hi = data_hi.max(MIN_SPAN.1).min(AXIS_MAX);
        let mut fallback = None;
        for family in [&POWERS_OF_TWO[..], &ONE_TWO_FIVE[..], &DECADES[..]] {
            if let Some(axis) = LogAxis::from_family(family, lo, hi) {
                if axis.ticks.len() <= MAX_TICKS && axis.fits(plot_w)? {
                    return Ok(axis);
                }
                fallback = Some(axis);
            }
        }
        fallback.ok_or_else(|| PlotError::Render("no hazard-ratio axis".to_string()))
    }

    /// Natural logarithms of hazard ratios onto `[left, right]`.
    fn scale(&self, left: i32, right: i32) -> Scale {
        Scale::new(self.lo.ln(), self.hi.ln(), left, right)
    }
}

/// A hazard ratio or limit as written: 2 decimals, or "<0.01" / ">999.99" beyond those.
fn number(v: f64) -> String {
    if v < 0.005 {
        "<0.01".to_string()
    } else if v >= 999.995 {
        ">999.99".to_string()
    } else {
        format!("{v:.2}")
    }
}

/// "0.66 (0.42–1.03)", or "NE" when not estimable.
fn hr_text(hr: Option<(f64, f64, f64)>) -> String {
    match hr {
        Some((e, l, u)) => format!("{} ({}\u{2013}{})", number(e), number(l), number(u)),
        None => "NE".to_string(),
    }
}

/// The row as named in an error: "'Female' (SEX)", or "'All subjects'".
fn row_name(row: &ForestRow) -> String {
    match &row.group {
        Some(g) => format!("forest row '{}' ({g})", row.label),
        None => format!("forest row '{}'", row.label),
    }
}

fn validate(rows: &[ForestRow]) -> Result<(), PlotError> {
    for row in rows {
        for (events, n, arm) in [
            (row.events, row.n, "arm"),
            (row.events_reference, row.n_reference, "reference arm"),
        ] {
            if events > n {
                return Err(PlotError::InvalidInput(format!(
                    "{}: {events} events in the {arm} but only {n} subjects",
                    row_name(row)
                )));
            }
        }
        if let Some((e, l, u)) = row.hr {
            for (what, v) in [("estimate", e), ("lower limit", l), ("upper limit", u)] {
                finite(v, || format!("hazard ratio {what} of {}", row_name(row)))?;
                if v <= 0.0 {
                    return Err(PlotError::InvalidInput(format!(
                        "hazard ratio {what} of {} is {v}, not positive",
                        row_name(row)
                    )));
                }
            }
            if l > e || e > u {
                return Err(PlotError::InvalidInput(format!(
                    "{}: hazard ratio {e} is not within its interval {l} to {u}",
                    row_name(row)
                )));
            }
        }
    }
    Ok(())
}

/// A line of the table: a group's heading (with its note) or a row.
enum Line<'a> {
    Heading(&'a str, Option<&'a str>),
    Row(usize, &'a ForestRow),
}

fn lines_of(rows: &[ForestRow]) -> Vec<Line<'_>> {
    let mut out = Vec::with_capacity(rows.len() * 2);
    let mut previous: Option<&str> = None;
    for (i, row) in rows.iter().enumerate() {
        if let Some(g) = row.group.as_deref() {
            if previous != Some(g) {
                out.push(Line::Heading(g, row.group_note.as_deref()));
            }
        }
        previous = row.group.as_deref();
        out.push(Line::Row(i, row));
    }
    out
}

/// `text` wrapped to `max_w`, on at most `max_lines` lines: the rest of the text goes on the
/// last line, shortened with an ellipsis.
fn wrap_at_most(
    text: &str,
    size_px: f64,
    max_w: i32,
    max_lines: usize,
) -> Result<Vec<String>, PlotError> {
    let mut lines = wrap_text(text, size_px, max_w)?;
    if lines.len() > max_lines && max_lines > 0 {
        lines.truncate(max_lines - 1);
        // Lines keep every character but white space, in order: skip as many.
        let kept: usize = lines
            .iter()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).count())
            .sum();
        let mut seen = 0;
        let rest: String = text
            .chars()
            .skip_while(|c| {
                if seen >= kept {
                    return false;
                }
                if !c.is_whitespace() {
                    seen += 1;
                }
                true
            })
            .collect();
        let rest = format!("{}\u{2026}", rest.trim());
        lines.push(truncate_to_width(&rest, size_px, max_w)?);
    }
    Ok(lines)
}

fn widest(lines: &[String], size_px: f64) -> Result<i32, PlotError> {
    let mut w = 0;
    for l in lines {
        w = w.max(text_width(l, size_px)?);
    }
    Ok(w)
}

fn count(i: usize) -> i32 {
    i32::try_from(i).unwrap_or(i32::MAX)
}

/// A column heading: the arm's name (wrapped) over "events/n".
fn count_heading(arm: &str) -> Result<Vec<String>, PlotError> {
    let mut lines = wrap_at_most(arm, TABLE_PX, COUNT_MAX_W, MAX_ARM_LINES)?;
    lines.push("events/n".to_string());
    Ok(lines)
}

/// A filled arrowhead at `tip`, pointing left (`dir` −1) or right (+1).
fn arrowhead(
    c: &Canvas<'_>,
    tip: Px,
    dir: i32,
    colour: plotters::style::RGBColor,
) -> Result<(), PlotError> {
    let (x, y) = tip;
    let base = x - dir * ARROW;
    c.polygon(
        &[(x, y), (base, y - ARROW / 2), (base, y + ARROW / 2)],
        colour,
        1.0,
    )
}

/// A confidence interval at height `cy` (its line only when `line`), cut at the axis ends with
/// an arrowhead.
fn draw_interval(
    c: &Canvas<'_>,
    axis: &LogAxis,
    xs: &Scale,
    (lower, upper): (f64, f64),
    cy: i32,
    colour: plotters::style::RGBColor,
    line: bool,
) -> Result<(), PlotError> {
    let x = |v: f64| xs.at(v.clamp(axis.lo, axis.hi).ln());
    let (xa, xb) = (x(lower), x(upper));
    if line && xb > xa {
        c.line((xa, cy), (xb, cy), colour, 2)?;
    }
    if lower < axis.lo {
        arrowhead(c, (xa, cy), -1, colour)?;
    }
    if upper > axis.hi {
        arrowhead(c, (xb, cy), 1, colour)?;
    }
    Ok(())
}

/// Draws a forest plot of hazard ratios of `arm` against `reference`, one line per row in the
/// given order, with a heading above each group's rows (its first row's `group_note`, such as
/// the interaction p, written at the right of the heading, in the estimates column);
/// `ci_percent` is the intervals' level ("95") and `title` is drawn above when given.
///
/// Markers are squares sized by the row's events (both arms), the first row a diamond
/// spanning its interval when it belongs to no group (the overall estimate). The axis is
/// logarithmic, from at most 0.01 to at most 100: an interval beyond it ends in an arrowhead.
/// Long labels wrap onto two lines, then are shortened with an ellipsis; arms' names wrap in
/// the column headings. The canvas is 720 px wide unless the columns need more (long arm
/// names: up to about 820 px).
///
/// Errors: [`PlotError::NoData`] for no rows; [`PlotError::InvalidInput`], naming the row,
/// for a hazard ratio or limit that is not a positive number, an estimate outside its
/// interval, or more events than subjects.
pub fn forest(
    rows: &[ForestRow],
    arm: &str,
    reference: &str,
    ci_percent: &str,
    title: Option<&str>,
) -> Result<String, PlotError> {
    forest_of(Ratio::Hazard, rows, arm, reference, ci_percent, title)
}

/// Which ratio a forest plot draws: its column heading and axis title say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ratio {
    /// Cox hazard ratios.
    Hazard,
    /// Fine–Gray subdistribution hazard ratios (competing events).
    Subdistribution,
}

impl Ratio {
    fn abbreviation(self) -> &'static str {
        match self {
            Ratio::Hazard => "HR",
            Ratio::Subdistribution => "SHR",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Ratio::Hazard => "Hazard ratio",
            Ratio::Subdistribution => "Subdistribution hazard ratio",
        }
    }
}

/// [`forest`] of the ratios `ratio` names.
pub fn forest_of(
    ratio: Ratio,
    rows: &[ForestRow],
    arm: &str,
    reference: &str,
    ci_percent: &str,
    title: Option<&str>,
) -> Result<String, PlotError> {
    if rows.is_empty() {
        return Err(PlotError::NoData);
    }
    validate(rows)?;
    let lines = lines_of(rows);
    let cols = Columns::of(ratio, rows, &lines, (arm, reference), ci_percent)?;
    let at = ForestLayout::of(cols, title)?;
    let sizes = MarkerSizes::of(rows);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, at.cols.w, at.height)?;
        draw_title(&c, &at.title_lines, at.cols.w / 2, at.title_top)?;
        draw_headings(&c, &at)?;
        // The line of no difference under the estimates.
        c.line(
            (at.cols.x_one, at.plot_top),
            (at.cols.x_one, at.plot_bottom),
            DARK_GREY,
            1,
        )?;
        for ((line, label), cy) in lines.iter().zip(&at.cols.labels).zip(&at.row_mids) {
            draw_line(&c, &at, &sizes, line, label, *cy)?;
        }
        draw_axis(&c, &at)?;
        draw_favours(&c, &at)?;
        c.finish()?;
    }
    Ok(svg)
}

/// A forest plot's columns across: their texts and widths, where each starts, and the ratio
/// axis between them.
struct Columns {
    /// Each row's "events/n" of the arm and of the reference, and its estimate with interval.
    texts: Vec<(String, String, String)>,
    /// Each line's label, wrapped, and its indent.
    labels: Vec<(Vec<String>, i32)>,
    arm_heading: Vec<String>,
    ref_heading: Vec<String>,
    hr_heading: String,
    arm_w: i32,
    ref_w: i32,
    arm_left: i32,
    ref_left: i32,
    plot_left: i32,
    plot_right: i32,
    hr_left: i32,
    w: i32,
    axis: LogAxis,
    xs: Scale,
    x_one: i32,
    x_title: String,
    centre: i32,
    favours_arm: Vec<String>,
    favours_ref: Vec<String>,
}

const SUBGROUP_HEADING: &str = "Subgroup";

impl Columns {
    fn of(
        ratio: Ratio,
        rows: &[ForestRow],
        lines: &[Line<'_>],
        (arm, reference): (&str, &str),
        ci_percent: &str,
    ) -> Result<Columns, PlotError> {
        let ci = ci_percent.trim().trim_end_matches('%').trim_end();
        let ci_label = if ci.is_empty() {
            "CI".to_string()
        } else {
            format!("{ci}% CI")
        };
        // The columns' texts and widths: counts and estimates first, then the subgroup labels
        // shortened to what is left of the canvas (within bounds).
        let arm_heading = count_heading(arm)?;
        let ref_heading = count_heading(reference)?;
        let hr_heading = truncate_to_width(
            &format!("{} ({ci_label})", ratio.abbreviation()),
            TABLE_PX,
            HR_HEADER_MAX_W,
        )?;
        let mut arm_w = widest(&arm_heading, TABLE_PX)?;
        let mut ref_w = widest(&ref_heading, TABLE_PX)?;
        let mut hr_w = text_width(&hr_heading, TABLE_PX)?;
        let mut texts = Vec::with_capacity(rows.len());
        for row in rows {
            let a = format!("{}/{}", row.events, row.n);
            let r = format!("{}/{}", row.events_reference, row.n_reference);
            let h = hr_text(row.hr);
            arm_w = arm_w.max(text_width(&a, TABLE_PX)?);
            ref_w = ref_w.max(text_width(&r, TABLE_PX)?);
            hr_w = hr_w.max(text_width(&h, TABLE_PX)?);
            texts.push((a, r, h));
        }
        for line in lines {
            if let Line::Heading(_, Some(note)) = line {
                hr_w = hr_w.max(text_width(note, TABLE_PX)?);
            }
        }
        let beside_labels = PAD + COL_GAP + arm_w + COL_GAP + ref_w + 2 * PLOT_GAP + hr_w + PAD;
        let label_max_w = (WIDTH - MIN_PLOT_W - beside_labels).clamp(LABEL_MIN_W, LABEL_MAX_W);
        let mut label_w = text_width(SUBGROUP_HEADING, TABLE_PX)?;
        let mut labels = Vec::with_capacity(lines.len());
        for line in lines {
            let (text, indent) = match line {
                Line::Heading(g, _) => (*g, 0),
                Line::Row(_, row) if row.group.is_some() => (row.label.as_str(), INDENT),
                Line::Row(_, row) => (row.label.as_str(), 0),
            };
            let wrapped = wrap_at_most(text, TABLE_PX, label_max_w - indent, MAX_LABEL_LINES)?;
            label_w = label_w.max(indent + widest(&wrapped, TABLE_PX)?);
            labels.push((wrapped, indent));
        }

        // Columns left to right.
        let arm_left = PAD + label_w + COL_GAP;
        let ref_left = arm_left + arm_w + COL_GAP;
        let plot_left = ref_left + ref_w + PLOT_GAP;
        let fixed = plot_left + PLOT_GAP + hr_w + PAD;
        let w = WIDTH.max(fixed + MIN_PLOT_W);
        let plot_w = w - fixed;
        let plot_right = plot_left + plot_w;
        let hr_left = plot_right + PLOT_GAP;

        let (mut data_lo, mut data_hi) = (1.0_f64, 1.0_f64);
        for (_, lower, upper) in rows.iter().filter_map(|r| r.hr) {
            data_lo = data_lo.min(lower);
            data_hi = data_hi.max(upper);
        }
        let axis = LogAxis::choose(data_lo, data_hi, plot_w)?;
        let xs = axis.scale(plot_left, plot_right);
        let x_one = xs.at(1.0_f64.ln());

        // Below the axis: the axis title, then "Favours …" either side of 1 under arrows
        // pointing away from it.
        let x_title = format!("{} ({ci_label})", ratio.words());
        let centre = (plot_left + plot_right) / 2;
        let x_title =
            truncate_to_width(&x_title, TICK_PX, 2 * (centre - PAD).min(w - PAD - centre))?;
        let favours_arm = wrap_at_most(
            &format!("Favours {arm}"),
            SMALL_PX,
            (x_one - FAVOURS_GAP - PAD).min(FAVOURS_MAX_W),
            3,
        )?;
        let favours_ref = wrap_at_most(
            &format!("Favours {reference}"),
            SMALL_PX,
            (w - PAD - x_one - FAVOURS_GAP).min(FAVOURS_MAX_W),
            3,
        )?;
        Ok(Columns {
            texts,
            labels,
            arm_heading,
            ref_heading,
            hr_heading,
            arm_w,
            ref_w,
            arm_left,
            ref_left,
            plot_left,
            plot_right,
            hr_left,
            w,
            axis,
            xs,
            x_one,
            x_title,
            centre,
            favours_arm,
            favours_ref,
        })
    }

    /// The x of a ratio on the log axis.
    fn x_of(&self, v: f64) -> i32 {
        self.xs.at(v.ln())
    }
}

/// A forest plot's layout: its columns, then the title, headings, rows, axis and "Favours …"
/// from top to bottom.
struct ForestLayout {
    cols: Columns,
    /// One table line's height.
    lh: i32,
    title_lines: Vec<String>,
    title_top: i32,
    header_top: i32,
    header_lines: i32,
    rule_y: i32,
    plot_top: i32,
    /// The middle of each line.
    row_mids: Vec<i32>,
    plot_bottom: i32,
    tick_label_top: i32,
    x_title_top: i32,
    favours_top: i32,
    height: i32,
}

impl ForestLayout {
    fn of(cols: Columns, title: Option<&str>) -> Result<ForestLayout, PlotError> {
        let lh = line_height(TABLE_PX);
        let mut y = PAD;
        let title_lines = match title {
            Some(t) => wrap_text(t, TITLE_PX, cols.w - 2 * PAD)?,
            None => Vec::new(),
        };
        let title_top = y;
        if !title_lines.is_empty() {
            y += line_height(TITLE_PX) * count(title_lines.len()) + 8;
        }
        let header_top = y;
        let header_lines = count(cols.arm_heading.len().max(cols.ref_heading.len()));
        let header_bottom = header_top + lh * header_lines;
        let rule_y = header_bottom + 4;
        let rows_top = rule_y + 4;
        let plot_top = rows_top;
        // Each line as tall as its label, the marker and numbers on its middle.
        let mut row_mids = Vec::with_capacity(cols.labels.len());
        let mut row_y = rows_top;
        for (label, _) in &cols.labels {
            let row_h = lh * count(label.len().max(1)) + ROW_PAD;
            row_mids.push(row_y + row_h / 2);
            row_y += row_h;
        }
        let plot_bottom = row_y + 4;
        let tick_label_top = plot_bottom + TICK_LEN + 4;
        let x_title_top = tick_label_top + lh + 2;
        let favours_top = x_title_top + line_height(TICK_PX) + 4;
        let favours_lines = count(cols.favours_arm.len().max(cols.favours_ref.len()));
        let height = favours_top + FAVOURS_ARROW_H + line_height(SMALL_PX) * favours_lines + PAD;
        Ok(ForestLayout {
            cols,
            lh,
            title_lines,
            title_top,
            header_top,
            header_lines,
            rule_y,
            plot_top,
            row_mids,
            plot_bottom,
            tick_label_top,
            x_title_top,
            favours_top,
            height,
        })
    }
}

/// Marker sizes: by events in both arms, relative to the row with most (the overall row, drawn
/// as a diamond, is left out).
struct MarkerSizes {
    max_events: usize,
}

impl MarkerSizes {
    fn of(rows: &[ForestRow]) -> MarkerSizes {
        let max_events = rows
            .iter()
            .enumerate()
            .filter(|(i, r)| !is_overall(*i, r))
            .map(|(_, r)| r.events.saturating_add(r.events_reference))
            .max()
            .unwrap_or(0);
        MarkerSizes { max_events }
    }

    /// Half the side of a row's square.
    fn half_side(&self, row: &ForestRow) -> i32 {
        let e = row.events.saturating_add(row.events_reference);
        if self.max_events == 0 {
            return px((MIN_HALF + MAX_HALF) / 2.0);
        }
        // Counts are far below 2^52, so the conversions are exact.
        let share = (e as f64 / self.max_events as f64).sqrt();
        px(MIN_HALF + (MAX_HALF - MIN_HALF) * share)
    }
}

/// Whether the row at `i` is the overall estimate (first, outside any group).
fn is_overall(i: usize, row: &ForestRow) -> bool {
    i == 0 && row.group.is_none()
}

/// The column headings, bottom-aligned over their columns, and the rule under them.
fn draw_headings(c: &Canvas<'_>, at: &ForestLayout) -> Result<(), PlotError> {
    let cols = &at.cols;
    let heading = |lines: &[String], x: i32, anchor: Anchor| -> Result<(), PlotError> {
        let skip = at.header_lines - count(lines.len());
        for (k, l) in lines.iter().enumerate() {
            let top = at.header_top + at.lh * (skip + count(k));
            c.text(l, (x, top), TABLE_PX, BLACK, anchor, VAnchor::Top)?;
        }
        Ok(())
    };
    heading(&[SUBGROUP_HEADING.to_string()], PAD, Anchor::Start)?;
    heading(
        &cols.arm_heading,
        cols.arm_left + cols.arm_w / 2,
        Anchor::Middle,
    )?;
    heading(
        &cols.ref_heading,
        cols.ref_left + cols.ref_w / 2,
        Anchor::Middle,
    )?;
    heading(
        std::slice::from_ref(&cols.hr_heading),
        cols.hr_left,
        Anchor::Start,
    )?;
    c.line((PAD, at.rule_y), (cols.w - PAD, at.rule_y), GREY, 1)?;
    Ok(())
}

/// One line of the table at `cy`: its label, then for a heading its note, for a row its counts,
/// estimate, interval and marker.
fn draw_line(
    c: &Canvas<'_>,
    at: &ForestLayout,
    sizes: &MarkerSizes,
    line: &Line<'_>,
    (label, indent): &(Vec<String>, i32),
    cy: i32,
) -> Result<(), PlotError> {
    let cols = &at.cols;
    let lh = at.lh;
    // Headings, and rows outside any group (the overall estimate), are in black.
    let colour = match line {
        Line::Row(_, row) if row.group.is_some() => DARK_GREY,
        _ => BLACK,
    };
    let first_mid = cy - lh * (count(label.len()) - 1) / 2;
    for (k, l) in label.iter().enumerate() {
        c.text(
            l,
            (PAD + indent, first_mid + lh * count(k)),
            TABLE_PX,
            colour,
            Anchor::Start,
            VAnchor::Center,
        )?;
    }
    let (i, row) = match line {
        Line::Row(i, row) => (*i, *row),
        Line::Heading(_, note) => {
            if let Some(note) = note {
                c.text(
                    note,
                    (cols.hr_left, cy),
                    TABLE_PX,
                    colour,
                    Anchor::Start,
                    VAnchor::Center,
                )?;
            }
            return Ok(());
        }
    };
    let overall = is_overall(i, row);
    if let Some((a, r, h)) = cols.texts.get(i) {
        for (s, x) in [
            (a, cols.arm_left + cols.arm_w / 2),
            (r, cols.ref_left + cols.ref_w / 2),
        ] {
            c.text(
                s,
                (x, cy),
                TABLE_PX,
                DARK_GREY,
                Anchor::Middle,
                VAnchor::Center,
            )?;
        }
        c.text(
            h,
            (cols.hr_left, cy),
            TABLE_PX,
            colour,
            Anchor::Start,
            VAnchor::Center,
        )?;
    }
    let Some((est, lower, upper)) = row.hr else {
        return Ok(());
    };
    let axis = &cols.axis;
    let marker_colour = if overall { BLACK } else { OI_BLUE };
    let on_axis = (axis.lo..=axis.hi).contains(&est);
    // The overall diamond spans its interval: no line under its tips.
    let under = !(overall && on_axis);
    draw_interval(c, axis, &cols.xs, (lower, upper), cy, marker_colour, under)?;
    if !on_axis {
        return Ok(());
    }
    let xe = cols.x_of(est);
    if overall {
        let xl = cols.x_of(lower.max(axis.lo)).min(xe - DIAMOND_MIN_HALF_W);
        let xu = cols.x_of(upper.min(axis.hi)).max(xe + DIAMOND_MIN_HALF_W);
        c.polygon(
            &[
                (xl, cy),
                (xe, cy - DIAMOND_HALF_H),
                (xu, cy),
                (xe, cy + DIAMOND_HALF_H),
            ],
            BLACK,
            1.0,
        )?;
    } else {
        let r = sizes.half_side(row);
        c.fill_rect((xe - r, cy - r), (xe + r, cy + r), OI_BLUE)?;
    }
    Ok(())
}

/// The ratio axis, its ticks and title.
fn draw_axis(c: &Canvas<'_>, at: &ForestLayout) -> Result<(), PlotError> {
    let cols = &at.cols;
    c.line(
        (cols.plot_left, at.plot_bottom),
        (cols.plot_right, at.plot_bottom),
        DARK_GREY,
        1,
    )?;
    for t in &cols.axis.ticks {
        let x = cols.x_of(*t);
        c.line(
            (x, at.plot_bottom),
            (x, at.plot_bottom + TICK_LEN),
            DARK_GREY,
            1,
        )?;
        c.text(
            &tick_label(*t),
            (x, at.tick_label_top),
            TABLE_PX,
            DARK_GREY,
            Anchor::Middle,
            VAnchor::Top,
        )?;
    }
    c.text(
        &cols.x_title,
        (cols.centre, at.x_title_top),
        TICK_PX,
        DARK_GREY,
        Anchor::Middle,
        VAnchor::Top,
    )
}

/// "Favours …" either side of 1, under arrows pointing away from it.
fn draw_favours(c: &Canvas<'_>, at: &ForestLayout) -> Result<(), PlotError> {
    let x_one = at.cols.x_one;
    let small_lh = line_height(SMALL_PX);
    let arrow_y = at.favours_top + FAVOURS_ARROW_H / 2;
    let text_top = at.favours_top + FAVOURS_ARROW_H;
    for (labels, dir) in [(&at.cols.favours_arm, -1), (&at.cols.favours_ref, 1)] {
        let anchor = if dir < 0 { Anchor::End } else { Anchor::Start };
        for (k, l) in labels.iter().enumerate() {
            let cy = text_top + small_lh * count(k) + small_lh / 2;
            let at = (x_one + dir * FAVOURS_GAP, cy);
            c.text(l, at, SMALL_PX, DARK_GREY, anchor, VAnchor::Center)?;
        }
        if !labels.is_empty() {
            let start = x_one + dir * FAVOURS_GAP;
            let tip = start + dir * FAVOURS_ARROW_LEN;
            c.line((start, arrow_y), (tip - dir * ARROW, arrow_y), DARK_GREY, 1)?;
            arrowhead(c, (tip, arrow_y), dir, DARK_GREY)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
