//! Kaplan–Meier curves for one or several cohorts/arms, with censoring marks, an optional
//! pointwise confidence band, median drop lines, a legend and a number-at-risk table aligned
//! with the time ticks.

use super::axis::TimeAxis;
use super::canvas::{
    draw_axes, draw_title, draw_x_ticks, draw_x_title, draw_y_ticks, draw_y_title, ticks,
    truncate_to_width, wrap_text, y_title_width, Anchor, Canvas, Key, Legend, LegendItem, Marker,
    Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, series_colour, series_dash, text_width, CANVAS_WIDTH, DARK_GREY, GREY, LABEL_PX,
    PAD, TICK_PX, TITLE_PX,
};
use super::{finite, time_axis_title, PlotError};

/// One row of a Kaplan–Meier table, as `survival::survfit` reports it: one row per distinct
/// time with an event or a censoring.
#[derive(Debug, Clone, PartialEq)]
pub struct KmPoint {
    /// Time, in the unit of the plot's time axis.
    pub time: f64,
    /// Survival just after `time`.
    pub surv: f64,
    /// Lower pointwise confidence limit, if estimable.
    pub lower: Option<f64>,
    /// Upper pointwise confidence limit, if estimable.
    pub upper: Option<f64>,
    /// Subjects at risk at `time` (time ≥ `time`).
    pub n_risk: usize,
    /// Events at `time`.
    pub n_event: usize,
    /// Censorings at `time`.
    pub n_censor: usize,
}

/// One curve: a cohort or arm.
#[derive(Debug, Clone, PartialEq)]
pub struct KmSeries {
    /// Cohort/arm name, shown in the legend and the risk table.
    pub label: String,
    /// The Kaplan–Meier table, by time.
    pub points: Vec<KmPoint>,
    /// Subjects at risk at time 0.
    pub n: usize,
    /// Median survival time, `None` when not reached.
    pub median: Option<f64>,
    /// Legend text after the label, e.g. "median 8.4 (95% CI 5.5, 13.1)"; may be empty.
    pub median_label: String,
    /// The risk table as results.json gives it; when every series has one at the same
    /// times, those times are the ticks and its numbers are printed. Empty: at risk counted
    /// from `points` at ticks the plot chooses.
    pub table: Vec<KmTableRow>,
}

/// One time of a series' risk table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KmTableRow {
    /// Time, in the unit of the plot's time axis.
    pub time: f64,
    /// At risk (time ≥ `time`).
    pub at_risk: usize,
    /// Events so far.
    pub events: usize,
    /// Censored so far.
    pub censored: usize,
    /// Competing events so far (a cumulative incidence's table); `None` for a survival curve.
    pub competing: Option<usize>,
}

/// How to draw a Kaplan–Meier figure.
#[derive(Debug, Clone, PartialEq)]
pub struct KmPlotOptions {
    /// Title above the figure; empty for none (the document's caption usually serves).
    pub title: String,
    /// y-axis title, e.g. "Progression-free survival".
    pub y_label: String,
    /// Unit of time, e.g. "Months"; the x-axis reads "Time (months)".
    pub time_unit: String,
    /// Draw the pointwise confidence band.
    pub show_ci: bool,
    /// Spacing of time ticks (and of the risk table); `None` picks one. A step too small for
    /// the risk-table numbers to fit is widened to a multiple of itself.
    pub tick_step: Option<f64>,
    /// End of the time axis; `None` is the last time of any curve, rounded up to a tick.
    pub x_max: Option<f64>,
    /// Lines written under the legend entries (e.g. the hazard ratio and log-rank p of arms
    /// compared); empty for none.
    pub note: Vec<String>,
    /// Landscape, for a slide: a wider plot with the legend beside it.
    pub wide: bool,
    /// KMunicate's table (Morris et al. 2019): per series at risk, censored and events so
    /// far, instead of the number at risk alone.
    pub kmunicate: bool,
    /// The curves are cumulative incidences (from 0 up), not survival (from 1 down).
    pub incidence: bool,
}

impl Default for KmPlotOptions {
    /// No title, "Survival probability", months, confidence band shown, automatic axis.
    fn default() -> Self {
        KmPlotOptions {
            title: String::new(),
            y_label: "Survival probability".to_string(),
            time_unit: "Months".to_string(),
            show_ci: true,
            tick_step: None,
            x_max: None,
            note: Vec::new(),
            wide: false,
            kmunicate: false,
            incidence: false,
        }
    }
}

/// Subjects at risk at time `t`: those whose time is ≥ `t`, which is `survfit`'s `n.risk` at
/// the first tabulated time ≥ `t` (nobody leaves between tabulated times), and 0 after the
/// last one. With no rows at all, everyone (`series.n`) is at risk at time 0 and nobody later.
///
/// `t` is compared with a relative tolerance of 1e-9 so that a tick computed as `k * step`
/// in floating point still counts the subjects whose time equals the tick.
pub fn number_at_risk(series: &KmSeries, t: f64) -> usize {
    let t = t - 1e-9 * t.abs().max(1.0);
    let next = series
        .points
        .iter()
        .filter(|p| p.time >= t)
        .min_by(|a, b| a.time.total_cmp(&b.time));
    match next {
        Some(p) => p.n_risk,
        None if series.points.is_empty() && t <= 0.0 => series.n,
        None => 0,
    }
}

/// The rows of a KMunicate table under each series' name, and what each counts.
type Pick = fn(&KmTableRow) -> usize;
const KMUNICATE_ROWS: [(&str, Pick); 4] = [
    ("At risk", |r| r.at_risk),
    ("Censored", |r| r.censored),
    ("Events", |r| r.events),
    ("Competing", |r| r.competing.unwrap_or(0)),
];

/// The KMunicate rows drawn: the competing events' only under a cumulative incidence.
fn kmunicate_rows(opts: &KmPlotOptions) -> &'static [(&'static str, Pick)] {
    if opts.incidence {
        &KMUNICATE_ROWS
    } else {
        &KMUNICATE_ROWS[..3]
    }
}
/// How far a KMunicate row's name is set in from its series' name.
const KMUNICATE_INDENT: i32 = 12;

/// Two times that are one up to floating point (a tick computed as `k * step`).
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// The times of the series' risk tables when every series has one at the same times.
fn table_times(series: &[KmSeries]) -> Option<Vec<f64>> {
    let first: Vec<f64> = series.first()?.table.iter().map(|r| r.time).collect();
    let same = |s: &KmSeries| {
        s.table.len() == first.len()
            && s.table
                .iter()
                .zip(&first)
                .all(|(r, t)| same_time(r.time, *t))
    };
    (!first.is_empty() && series.iter().all(same)).then_some(first)
}

/// The series' table row at tick `t`.
fn table_row(s: &KmSeries, t: f64) -> Option<KmTableRow> {
    s.table.iter().find(|r| same_time(r.time, t)).copied()
}

const PLOT_H: i32 = 300;
/// The plot of a landscape figure with a KMunicate table (for slides): lower and wider, so
/// that the whole prints at the height of a slide with its numbers at 12 pt.
const WIDE_KMUNICATE_PLOT_H: i32 = 160;
const WIDE_KMUNICATE_CANVAS_WIDTH: i32 = 570;
/// Width of the plot's canvas (before the legend beside it) of a landscape figure.
const WIDE_CANVAS_WIDTH: i32 = 520;
/// Width of the risk-table labels (in % of the canvas) that narrows the plot rather than
/// widening the canvas.
const RISK_LABEL_BUDGET_PCT: i32 = 32;
/// Widest risk-table label, in % of the canvas; a longer one is cut with an ellipsis.
const RISK_LABEL_MAX_PCT: i32 = 50;
/// The least distance, in pixels, between two censoring marks of a curve.
const CENSOR_GAP: i32 = 4;

/// Width of a legend set beside the plot.
const SIDE_LEGEND_W: i32 = 300;

/// A series' legend entry on one line: its label and median.
fn one_line(s: &KmSeries) -> String {
    if s.median_label.trim().is_empty() {
        s.label.clone()
    } else {
        format!("{} \u{2013} {}", s.label, s.median_label)
    }
}

/// The legend's entries for a legend `width` wide: each series (its median on a line of its
/// own when the two do not fit one), the censoring mark, then the notes, wrapped rather than
/// cut (a hazard ratio's upper limit must not become an ellipsis).
fn legend_items(
    series: &[KmSeries],
    notes: &[String],
    censored: bool,
    width: i32,
) -> Result<Vec<LegendItem>, PlotError> {
    let mut items = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let key = Key::Line(series_colour(i), series_dash(i));
        let line = one_line(s);
        if text_width(&line, LABEL_PX)? + LEGEND_KEY_ROOM <= width {
            items.push(LegendItem { key, label: line });
        } else {
            for (k, label) in wrap_text(&s.label, LABEL_PX, width - LEGEND_KEY_ROOM)?
                .into_iter()
                .enumerate()
            {
                let key = if k == 0 { key } else { Key::Blank };
                items.push(LegendItem { key, label });
            }
            if !s.median_label.trim().is_empty() {
                for label in wrap_text(&s.median_label, LABEL_PX, width - LEGEND_KEY_ROOM)? {
                    items.push(LegendItem {
                        key: Key::Blank,
                        label,
                    });
                }
            }
        }
    }
    if censored {
        items.push(LegendItem {
            key: Key::Marker(Marker::Plus, DARK_GREY),
            label: "Censored".to_string(),
        });
    }
    for note in notes {
        for line in wrap_text(note, LABEL_PX, width - LEGEND_KEY_ROOM)? {
            items.push(LegendItem {
                key: Key::Blank,
                label: line,
            });
        }
    }
    Ok(items)
}

/// Width of a legend key and the gap after it.
const LEGEND_KEY_ROOM: i32 = 30;
fn validate(series: &[KmSeries], opts: &KmPlotOptions) -> Result<(), PlotError> {
    if let Some(step) = opts.tick_step {
        if !(step.is_finite() && step > 0.0) {
            return Err(PlotError::InvalidInput(format!(
                "KM tick step must be a positive number, not {step}"
            )));
        }
    }
    if let Some(m) = opts.x_max {
        if !(m.is_finite() && m > 0.0) {
            return Err(PlotError::InvalidInput(format!(
                "KM x_max must be a positive number, not {m}"
            )));
        }
    }
    for s in series {
        if let Some(m) = s.median {
            finite(m, || format!("median of '{}'", s.label))?;
        }
        for p in &s.points {
            let time = finite(p.time, || format!("a time of '{}'", s.label))?;
            if time < 0.0 {
                return Err(PlotError::InvalidInput(format!(
                    "'{}' has a negative time {time}",
                    s.label
                )));
            }
            for (what, v) in [
                ("survival", Some(p.surv)),
                ("lower", p.lower),
                ("upper", p.upper),
            ] {
                if let Some(v) = v {
                    if !(0.0..=1.0).contains(&v) {
                        return Err(PlotError::InvalidInput(format!(
                            "'{}' has {what} {v} at time {time}, outside [0, 1]",
                            s.label
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

fn sorted_points(s: &KmSeries) -> Vec<&KmPoint> {
    let mut pts: Vec<&KmPoint> = s.points.iter().collect();
    pts.sort_by(|a, b| a.time.total_cmp(&b.time));
    pts
}

/// The step function from (0, 1) to the last time, cut at `x_max`, in data coordinates.
fn step_path(points: &[&KmPoint], x_max: f64, start: f64) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, start)];
    let mut s = start;
    for p in points {
        if p.time > x_max {
            out.push((x_max, s));
            return out;
        }
        out.push((p.time, s));
        out.push((p.time, p.surv));
        s = p.surv;
    }
    out
}

/// Contiguous runs of the step-shaped confidence band, each a polygon in data coordinates.
fn band_polygons(points: &[&KmPoint], x_max: f64) -> Vec<Vec<(f64, f64)>> {
    let mut polys = Vec::new();
    let mut upper: Vec<(f64, f64)> = Vec::new();
    let mut lower: Vec<(f64, f64)> = Vec::new();
    let mut close = |upper: &mut Vec<(f64, f64)>, lower: &mut Vec<(f64, f64)>| {
        if !upper.is_empty() {
            let mut poly = std::mem::take(upper);
            poly.extend(lower.drain(..).rev());
            polys.push(poly);
        }
    };
    for (i, p) in points.iter().enumerate() {
        let start = p.time;
        let end = points.get(i + 1).map_or(start, |q| q.time).min(x_max);
        match (p.lower, p.upper) {
            (Some(lo), Some(up)) if start < x_max && end > start => {
                upper.push((start, up));
                upper.push((end, up));
                lower.push((start, lo));
                lower.push((end, lo));
            }
            _ => close(&mut upper, &mut lower),
        }
    }
    close(&mut upper, &mut lower);
    polys
}

/// Draws Kaplan–Meier curves with a number-at-risk table.
///
/// Errors: [`PlotError::NoData`] when there is no series or no series has any row;
/// [`PlotError::InvalidInput`] for non-finite or negative times, probabilities outside
/// [0, 1], or a non-positive `tick_step`/`x_max`.
pub fn km_plot(series: &[KmSeries], opts: &KmPlotOptions) -> Result<String, PlotError> {
    if series.iter().all(|s| s.points.is_empty()) {
        return Err(PlotError::NoData);
    }
    validate(series, opts)?;
    let at = KmLayout::of(series, opts)?;
    let xs = Scale::new(0.0, at.axis.max, at.left, at.right);
    let ys = Scale::new(0.0, 1.0, at.plot_bottom, at.plot_top);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, at.canvas_w, at.height)?;
        draw_title(&c, &at.title_lines, at.w / 2, at.title_top)?;
        at.legend.draw(&c, at.legend_origin)?;
        draw_curves(&c, series, opts, &at, (&xs, &ys))?;

        // Axes.
        draw_axes(&c, (at.left, at.right), (at.plot_top, at.plot_bottom))?;
        draw_y_ticks(&c, &ys, &at.y_ticks, 1, at.left)?;
        let y_title_x = at.left - TICK_LEN - 4 - at.y_tick_w - 6 - at.y_title_w;
        draw_y_title(
            &c,
            &at.y_title,
            y_title_x,
            (at.plot_top + at.plot_bottom) / 2,
        )?;
        draw_x_ticks(
            &c,
            &xs,
            &at.axis.ticks,
            at.axis.decimals,
            at.plot_bottom,
            at.tick_label_top,
        )?;
        draw_x_title(
            &c,
            &time_axis_title(&opts.time_unit),
            (at.left, at.right),
            at.x_title_top,
        )?;
        draw_risk_table(&c, series, opts, &at, &xs)?;
        c.finish()?;
    }
    // plotters gives a translucent fill as the element's `opacity`, which makes a renderer
    // (resvg for the PNG) draw the band in a layer of its own and blend it back, a tenth of
    // the rasterising; for a fill without stroke `fill-opacity` looks the same.
    Ok(svg.replace("<polygon opacity=", "<polygon fill-opacity="))
}

/// Where each part of a Kaplan–Meier figure goes, in pixels.
struct KmLayout {
    /// The time axis: its end, ticks and their decimals.
    axis: TimeAxis,
    /// Each series' name in the risk table, cut to fit.
    risk_labels: Vec<String>,
    /// From the end of a risk-table name to the y axis.
    risk_label_end_gap: i32,
    y_ticks: Vec<f64>,
    y_title: Vec<String>,
    y_title_w: i32,
    y_tick_w: i32,
    /// The plot's left and right edges.
    left: i32,
    right: i32,
    /// The figure's width without a legend beside the plot, and with it.
    w: i32,
    canvas_w: i32,
    title_lines: Vec<String>,
    title_top: i32,
    legend: Legend,
    legend_origin: (i32, i32),
    plot_top: i32,
    plot_bottom: i32,
    tick_label_top: i32,
    x_title_top: i32,
    risk_heading_top: i32,
    rows_top: i32,
    row_h: i32,
    height: i32,
}

/// A Kaplan–Meier figure's layout across: the margins, the time axis and the risk table's
/// names.
struct Across {
    axis: TimeAxis,
    risk_labels: Vec<String>,
    risk_label_end_gap: i32,
    y_ticks: Vec<f64>,
    y_title: Vec<String>,
    y_title_w: i32,
    y_tick_w: i32,
    left: i32,
    right: i32,
    w: i32,
}

impl Across {
    fn of(series: &[KmSeries], opts: &KmPlotOptions) -> Result<Across, PlotError> {
        let data_max = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.time))
            .fold(0.0_f64, f64::max);
        let data_max = if data_max > 0.0 { data_max } else { 1.0 };
        let max_n = series
            .iter()
            .flat_map(|s| std::iter::once(s.n).chain(s.points.iter().map(|p| p.n_risk)))
            .max()
            .unwrap_or(0);

        let canvas_width = if opts.wide && opts.kmunicate {
            WIDE_KMUNICATE_CANVAS_WIDTH
        } else if opts.wide {
            WIDE_CANVAS_WIDTH
        } else {
            CANVAS_WIDTH
        };
        // Left margin: room for the y-axis title and tick labels, and for the risk-table
        // labels.
        let y_ticks = ticks(0.0, 1.0, 0.2);
        let y_title = wrap_text(&opts.y_label, LABEL_PX, PLOT_H - 10)?;
        let y_title_w = y_title_width(&y_title);
        let y_tick_w = text_width("0.0", TICK_PX)?.max(text_width("1.0", TICK_PX)?);
        let axis_block = PAD + y_title_w + 6 + y_tick_w + 4 + TICK_LEN;
        // Risk-table labels are shown whole up to half the canvas width, cut with an ellipsis
        // beyond.
        let mut risk_labels = Vec::with_capacity(series.len());
        for s in series {
            risk_labels.push(truncate_to_width(
                &s.label,
                TICK_PX,
                canvas_width * RISK_LABEL_MAX_PCT / 100,
            )?);
        }
        let mut risk_label_w = 0;
        for l in &risk_labels {
            risk_label_w = risk_label_w.max(text_width(l, TICK_PX)?);
        }
        if opts.kmunicate {
            for (name, _) in kmunicate_rows(opts) {
                risk_label_w = risk_label_w.max(text_width(name, TICK_PX)? + KMUNICATE_INDENT);
            }
        }
        // The first risk-table number is centred on the y axis, so labels end half a number
        // further left.
        let n_w = text_width(&max_n.to_string(), TICK_PX)?;
        let risk_label_end_gap = n_w / 2 + 10;
        let left = axis_block.max(PAD + risk_label_w + risk_label_end_gap);
        // Labels narrow the plot only as far as they would cut to the label budget; what they
        // take beyond that widens the canvas.
        let mut budget_label_w = 0;
        for s in series {
            let cut = truncate_to_width(
                &s.label,
                TICK_PX,
                canvas_width * RISK_LABEL_BUDGET_PCT / 100,
            )?;
            budget_label_w = budget_label_w.max(text_width(&cut, TICK_PX)?);
        }
        let budget_left = axis_block.max(PAD + budget_label_w + risk_label_end_gap);
        let w = canvas_width + (left - budget_left).max(0);

        // Right margin: half the widest label centred on the last tick. Two passes, because
        // the labels depend on the step and the step on the room.
        let choose = |plot_w| {
            TimeAxis::choose(
                data_max,
                opts.x_max,
                opts.tick_step,
                &opts.time_unit,
                plot_w,
                n_w,
            )
        };
        let given = table_times(series);
        let choose = |plot_w| match &given {
            Some(times) => Ok(TimeAxis::given(times, opts.x_max.unwrap_or(data_max))),
            None => choose(plot_w),
        };
        let mut right_margin = PAD + 20;
        let mut axis = choose(w - right_margin - left)?;
        let needed = PAD + axis.label_width(n_w)? / 2 + 2;
        if needed > right_margin {
            right_margin = needed;
            axis = choose(w - right_margin - left)?;
        }
        // Times given closer than a number's width: the canvas widens until no number of the
        // table is nearer its neighbour than its own width (up to four times as wide).
        let mut w = w;
        if given.is_some() && axis.max > 0.0 {
            let closest = axis
                .ticks
                .windows(2)
                .map(|p| p[1] - p[0])
                .fold(f64::INFINITY, f64::min);
            let label = f64::from(axis.label_width(n_w)? + super::axis::LABEL_GAP);
            if closest.is_finite() && closest > 0.0 {
                let plot_w = f64::from(w - right_margin - left);
                let wanted = (label * axis.max / closest).ceil();
                if wanted > plot_w {
                    let widest = f64::from(canvas_width * 4);
                    w += (wanted - plot_w).min(widest) as i32;
                }
            }
        }
        let right = w - right_margin;

        Ok(Across {
            axis,
            risk_labels,
            risk_label_end_gap,
            y_ticks,
            y_title,
            y_title_w,
            y_tick_w,
            left,
            right,
            w,
        })
    }
}

impl KmLayout {
    fn of(series: &[KmSeries], opts: &KmPlotOptions) -> Result<KmLayout, PlotError> {
        let Across {
            axis,
            risk_labels,
            risk_label_end_gap,
            y_ticks,
            y_title,
            y_title_w,
            y_tick_w,
            left,
            right,
            w,
        } = Across::of(series, opts)?;
        // Vertical layout.
        let mut y = PAD;
        let title_lines = wrap_text(&opts.title, TITLE_PX, w - 2 * PAD)?;
        let title_top = y;
        if !title_lines.is_empty() {
            y += line_height(TITLE_PX) * i32::try_from(title_lines.len()).unwrap_or(1) + 6;
        }
        // The legend lines up with the y axis when every entry fits on one line there;
        // otherwise it takes the full width, and an entry still too long puts its median on a
        // second line.
        let any_censored = series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| p.n_censor > 0 && p.time <= axis.max)
        });
        let mut widest = 0;
        for s in series {
            widest = widest.max(text_width(&one_line(s), LABEL_PX)? + LEGEND_KEY_ROOM);
        }
        let legend_left = if widest <= w - PAD - left { left } else { PAD };
        let above_w = w - PAD - legend_left;
        let above = Legend::stacked(
            legend_items(series, &opts.note, any_censored, above_w)?,
            above_w,
        )?;
        // Below the plot: tick labels, the axis title, the number-at-risk heading and rows.
        let row_h = line_height(TICK_PX) + 4;
        let rows_per_series = if opts.kmunicate {
            1 + kmunicate_rows(opts).len()
        } else {
            1
        };
        let n_rows = i32::try_from(series.len() * rows_per_series).unwrap_or(0);
        let below = TICK_LEN
            + 4
            + line_height(TICK_PX)
            + 2
            + line_height(LABEL_PX)
            + 10
            + line_height(LABEL_PX)
            + 2
            + row_h * n_rows
            + PAD;
        // The curves keep at least 60% of the figure's height: the plot grows to 1.5 times
        // the rest (rounded up) where it must, and a legend taller than two thirds of the plot
        // (several arms and their comparisons) goes beside it, in a column of its own, rather
        // than make the figure a tall strip.
        // KMunicate's extra rows are a table of their own: the curves need not grow with them.
        let below_grown = below - row_h * (n_rows - i32::try_from(series.len()).unwrap_or(0));
        let beside = opts.wide || 3 * (y + above.height() + 10) > 2 * PLOT_H;
        let (legend, legend_origin, plot_top, plot_h, canvas_w) = if beside {
            let side = Legend::stacked(
                legend_items(series, &opts.note, any_censored, SIDE_LEGEND_W)?,
                SIDE_LEGEND_W,
            )?;
            // A slide's KMunicate table is as tall as the curves: they are drawn lower so
            // that its numbers print at a size read from the back of the room.
            let plot_h = if opts.wide && opts.kmunicate {
                WIDE_KMUNICATE_PLOT_H.max(side.height())
            } else {
                PLOT_H
                    .max(side.height())
                    .max(((y + below_grown) * 3 + 1) / 2)
            };
            (side, (w, y), y, plot_h, w + SIDE_LEGEND_W + PAD)
        } else {
            let plot_top = y + above.height() + 10;
            let plot_h = PLOT_H.max(((plot_top + below_grown) * 3 + 1) / 2);
            (above, (legend_left, y), plot_top, plot_h, w)
        };
        let plot_bottom = plot_top + plot_h;
        let tick_label_top = plot_bottom + TICK_LEN + 4;
        let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
        let risk_heading_top = x_title_top + line_height(LABEL_PX) + 10;
        let rows_top = risk_heading_top + line_height(LABEL_PX) + 2;
        let height = rows_top + row_h * n_rows + PAD;
        Ok(KmLayout {
            axis,
            risk_labels,
            risk_label_end_gap,
            y_ticks,
            y_title,
            y_title_w,
            y_tick_w,
            left,
            right,
            w,
            canvas_w,
            title_lines,
            title_top,
            legend,
            legend_origin,
            plot_top,
            plot_bottom,
            tick_label_top,
            x_title_top,
            risk_heading_top,
            rows_top,
            row_h,
            height,
        })
    }
}

/// The bands, the medians' dashed lines, the curves and their censoring marks.
fn draw_curves(
    c: &Canvas<'_>,
    series: &[KmSeries],
    opts: &KmPlotOptions,
    at: &KmLayout,
    (xs, ys): (&Scale, &Scale),
) -> Result<(), PlotError> {
    let max = at.axis.max;
    let to_px = |(t, s): (f64, f64)| (xs.at(t), ys.at(s));
    let sorted: Vec<Vec<&KmPoint>> = series.iter().map(sorted_points).collect();
    if opts.show_ci {
        for (i, pts) in sorted.iter().enumerate() {
            for poly in band_polygons(pts, max) {
                let poly: Vec<_> = poly.into_iter().map(to_px).collect();
                c.polygon(&poly, series_colour(i), 0.18)?;
            }
        }
    }

    // Medians: a dashed line across at 0.5 to the furthest median, then down to the axis.
    let medians: Vec<(usize, f64)> = series
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.median.map(|m| (i, m)))
        .filter(|(_, m)| *m >= 0.0 && *m <= max)
        .collect();
    if let Some(furthest) = medians.iter().map(|(_, m)| *m).reduce(f64::max) {
        c.dashed(to_px((0.0, 0.5)), to_px((furthest, 0.5)), GREY, 1, 6, 4)?;
        for (i, m) in &medians {
            c.dashed(
                to_px((*m, 0.5)),
                (xs.at(*m), at.plot_bottom),
                series_colour(*i),
                2,
                6,
                4,
            )?;
        }
    }

    for (i, pts) in sorted.iter().enumerate() {
        let path: Vec<_> = step_path(pts, max, if opts.incidence { 0.0 } else { 1.0 })
            .into_iter()
            .map(to_px)
            .collect();
        c.polyline_dashed(&path, series_colour(i), 2, series_dash(i))?;
        // Marks at least CENSOR_GAP pixels apart along the curve: closer ones overlap into
        // a solid band (thousands of censorings), which shows no single censoring.
        let mut last: Option<(i32, i32)> = None;
        for p in pts.iter().filter(|p| p.n_censor > 0 && p.time <= max) {
            let px = to_px((p.time, p.surv));
            let apart = last.is_none_or(|(x, y)| {
                (px.0 - x).abs() >= CENSOR_GAP || (px.1 - y).abs() >= CENSOR_GAP
            });
            if apart {
                c.marker(Marker::Plus, px, 5, series_colour(i))?;
                last = Some(px);
            }
        }
    }
    Ok(())
}

/// Number at risk, one row per series, each number centred under its tick; KMunicate: the
/// series' name, then its rows at risk, censored and events.
fn draw_risk_table(
    c: &Canvas<'_>,
    series: &[KmSeries],
    opts: &KmPlotOptions,
    at: &KmLayout,
    xs: &Scale,
) -> Result<(), PlotError> {
    c.text(
        if opts.kmunicate {
            "Number of patients"
        } else {
            "Number at risk"
        },
        (PAD, at.risk_heading_top),
        LABEL_PX,
        DARK_GREY,
        Anchor::Start,
        VAnchor::Top,
    )?;
    let label_end = at.left - at.risk_label_end_gap;
    // One row: its name ending before the first number, then a number under each tick.
    let draw_row = |y: i32, name: &str, colour, value: &dyn Fn(f64) -> usize| {
        c.text(
            name,
            (label_end, y),
            TICK_PX,
            colour,
            Anchor::End,
            VAnchor::Center,
        )?;
        for t in &at.axis.ticks {
            c.text(
                &value(*t).to_string(),
                (xs.at(*t), y),
                TICK_PX,
                colour,
                Anchor::Middle,
                VAnchor::Center,
            )?;
        }
        Ok::<_, PlotError>(())
    };
    let mut row = 0;
    for (i, s) in series.iter().enumerate() {
        let mut cy = || {
            let y = at.rows_top + at.row_h * row + at.row_h / 2;
            row += 1;
            y
        };
        let label = at.risk_labels.get(i).map_or("", String::as_str);
        if opts.kmunicate {
            c.text(
                label,
                (PAD, cy()),
                TICK_PX,
                series_colour(i),
                Anchor::Start,
                VAnchor::Center,
            )?;
            for (name, pick) in kmunicate_rows(opts) {
                draw_row(cy(), name, series_colour(i), &|t| {
                    table_row(s, t).map_or(0, |r| pick(&r))
                })?;
            }
        } else {
            draw_row(cy(), label, series_colour(i), &|t| {
                table_row(s, t).map_or_else(|| number_at_risk(s, t), |r| r.at_risk)
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(time: f64, surv: f64, n_risk: usize, n_event: usize, n_censor: usize) -> KmPoint {
        KmPoint {
            time,
            surv,
            lower: None,
            upper: None,
            n_risk,
            n_event,
            n_censor,
        }
    }

    fn series(points: Vec<KmPoint>, n: usize) -> KmSeries {
        KmSeries {
            label: "A".into(),
            points,
            n,
            median: None,
            median_label: String::new(),
            table: Vec::new(),
        }
    }

    /// The landscape drawing for slides is wider than 1.6:1 with the legend beside the plot;
    /// the document's keeps its shape.
    #[test]
    fn a_wide_figure_is_landscape_with_the_legend_beside() {
        let arm = |label: &str, surv: f64| KmSeries {
            label: label.into(),
            median_label: "median 8.1 (95% CI 6.0, 10.2)".into(),
            ..series(vec![pt(2.0, surv, 10, 1, 0), pt(9.0, 0.4, 6, 2, 1)], 10)
        };
        let both = [arm("Arm A", 0.9), arm("Arm B", 0.8)];
        let size = |svg: &str| {
            let number = |key: &str| -> f64 {
                let at = svg.find(&format!("{key}=\"")).expect(key) + key.len() + 2;
                svg[at..]
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .expect("a number")
            };
            (number("width"), number("height"))
        };
        let opts = KmPlotOptions {
            note: vec!["HR 0.67 (95% CI 0.46–0.98)".into()],
            ..KmPlotOptions::default()
        };
        let (w, h) = size(&km_plot(&both, &opts).expect("drawn"));
        let wide = km_plot(&both, &KmPlotOptions { wide: true, ..opts }).expect("drawn");
        let (ww, wh) = size(&wide);
        assert!(ww / wh > 1.6, "{ww} x {wh}");
        assert!(w / h < ww / wh, "{w} x {h} against {ww} x {wh}");
        // Both arms and the note are in the legend.
        assert!(wide.contains("Arm A") && wide.contains("HR 0.67"));
    }

    /// Risk-table times given closer than their numbers are wide: the canvas widens, and no
    /// number is nearer its neighbour than its own width.
    #[test]
    fn given_table_times_never_overlap_their_numbers() {
        let n = 1_234_567;
        let table: Vec<KmTableRow> = (0..=24)
            .map(|t| KmTableRow {
                time: f64::from(t),
                at_risk: n,
                events: 0,
                censored: 0,
                competing: None,
            })
            .collect();
        let s = KmSeries {
            table,
            ..series(vec![pt(24.0, 0.5, n, 1, 0)], n)
        };
        let svg = km_plot(&[s], &KmPlotOptions::default()).expect("drawn");
        let printed = format!(">\n{n}\n<");
        let mut xs: Vec<f64> = Vec::new();
        let mut from = 0;
        while let Some(at) = svg[from..].find(&printed) {
            let end = from + at;
            let tag = &svg[..end];
            let start = tag.rfind("<text").expect("a text element");
            let x_at = tag[start..].find(" x=\"").expect("x") + start + 4;
            let x: f64 = tag[x_at..].split('"').next().unwrap().parse().expect("x");
            xs.push(x);
            from = end + printed.len();
        }
        assert_eq!(xs.len(), 25, "every time's number is printed");
        let width = f64::from(text_width(&n.to_string(), TICK_PX).expect("width"));
        for pair in xs.windows(2) {
            assert!(pair[1] - pair[0] >= width, "{pair:?} closer than {width}");
        }
    }

    #[test]
    fn at_risk_counts_subjects_with_time_at_or_after_t() {
        // times: 2 (event), 3 (censor), 5 (event, 2 subjects), n = 4
        let s = series(
            vec![
                pt(2.0, 0.75, 4, 1, 0),
                pt(3.0, 0.75, 3, 0, 1),
                pt(5.0, 0.0, 2, 2, 0),
            ],
            4,
        );
        assert_eq!(number_at_risk(&s, 0.0), 4);
        assert_eq!(number_at_risk(&s, 2.0), 4);
        assert_eq!(number_at_risk(&s, 2.5), 3);
        assert_eq!(number_at_risk(&s, 3.0), 3);
        assert_eq!(number_at_risk(&s, 4.0), 2);
        assert_eq!(number_at_risk(&s, 5.0), 2);
        assert_eq!(number_at_risk(&s, 5.1), 0);
        // A tick computed as 3 * 0.1 still counts a subject at exactly 0.3.
        let s = series(vec![pt(0.3, 1.0, 1, 0, 1)], 1);
        assert_eq!(number_at_risk(&s, 3.0 * 0.1), 1);
        assert_eq!(number_at_risk(&series(vec![], 2), 0.0), 2);
    }

    #[test]
    fn step_path_starts_at_one_and_is_cut_at_x_max() {
        let pts = [pt(2.0, 0.5, 2, 1, 0), pt(6.0, 0.0, 1, 1, 0)];
        let refs: Vec<&KmPoint> = pts.iter().collect();
        assert_eq!(
            step_path(&refs, 10.0, 1.0),
            vec![(0.0, 1.0), (2.0, 1.0), (2.0, 0.5), (6.0, 0.5), (6.0, 0.0)]
        );
        assert_eq!(
            step_path(&refs, 4.0, 1.0),
            vec![(0.0, 1.0), (2.0, 1.0), (2.0, 0.5), (4.0, 0.5)]
        );
    }
}
