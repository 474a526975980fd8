//! Spider plot: each subject's percentage change from baseline in the sum of diameters over
//! time, one line per subject from (0, 0), coloured by best overall response, with the RECIST
//! +20 % and −30 % thresholds.

use crate::model::ResponseCategory;

use super::axis::{TimeAxis, ValueAxis};
use super::canvas::{
    draw_axes, draw_reference_lines, draw_x_ticks, draw_x_title, draw_y_ticks, draw_y_title,
    format_tick, reference_label_width, wrap_text, y_title_width, Canvas, Legend, Marker, Scale,
    TICK_LEN,
};
use super::style::{
    line_height, response_colour, text_width, CANVAS_WIDTH, DARK_GREY, LABEL_PX, PAD, TICK_PX,
};
use super::waterfall::response_legend;
use super::{finite, time_axis_title, PlotError};

/// One subject's line.
#[derive(Debug, Clone, PartialEq)]
pub struct SpiderLine {
    /// Subject id (used only to order drawing; not drawn).
    pub usubjid: String,
    /// Post-baseline assessments: (time in the plot's unit, percentage change from baseline).
    pub points: Vec<(f64, f64)>,
    /// Best overall response: CR, PR, SD, NON-CR/NON-PD, PD or NE (others shown as given).
    pub response: ResponseCategory,
}

const PLOT_H: i32 = 300;
/// Up to this many subjects each assessment is marked with a dot.
const MAX_MARKED: usize = 30;
const BOTTOM_INSET: i32 = 8;
const Y_TITLE: &str = "Change from baseline in sum of diameters (%)";

/// Draws a spider plot; times are in `time_unit` (e.g. "Months").
///
/// Subjects without post-baseline assessments have no line and are not counted in the legend.
///
/// Errors: [`PlotError::NoData`] when no subject has an assessment;
/// [`PlotError::InvalidInput`] for a non-finite value or a negative time.
pub fn spider(lines: &[SpiderLine], time_unit: &str) -> Result<String, PlotError> {
    if lines.iter().all(|l| l.points.is_empty()) {
        return Err(PlotError::NoData);
    }
    let (mut t_max, mut lo, mut hi) = (0.0_f64, -100.0_f64, 40.0_f64);
    for l in lines {
        for (t, v) in &l.points {
            let t = finite(*t, || {
                format!("an assessment time of subject '{}'", l.usubjid)
            })?;
            let v = finite(*v, || {
                format!("a change from baseline of subject '{}'", l.usubjid)
            })?;
            if t < 0.0 {
                return Err(PlotError::InvalidInput(format!(
                    "subject '{}' has an assessment at negative time {t}",
                    l.usubjid
                )));
            }
            t_max = t_max.max(t);
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    let t_max = if t_max > 0.0 { t_max } else { 1.0 };
    let y_axis = ValueAxis::nice(lo, hi, 8.0);

    // Draw in id order so the stacking of lines does not depend on the input order.
    let mut sorted: Vec<&SpiderLine> = lines.iter().collect();
    sorted.sort_by(|a, b| a.usubjid.cmp(&b.usubjid));

    let w = CANVAS_WIDTH;
    let y_title = wrap_text(Y_TITLE, LABEL_PX, PLOT_H - 10)?;
    let mut y_tick_w = 0;
    for t in &y_axis.ticks {
        y_tick_w = y_tick_w.max(text_width(&format_tick(*t, y_axis.decimals), TICK_PX)?);
    }
    let left = PAD + y_title_width(&y_title) + 6 + y_tick_w + 4 + TICK_LEN;
    let right = w - PAD - reference_label_width()? - 4;
    let x_axis = TimeAxis::choose(t_max, None, None, time_unit, right - left, 0)?;

    let legend = Legend::flow(
        response_legend(
            sorted
                .iter()
                .filter(|l| !l.points.is_empty())
                .map(|l| &l.response),
        ),
        w - 2 * PAD,
    )?;
    let legend_top = PAD;
    let plot_top = legend_top + legend.height() + 14;
    let plot_bottom = plot_top + PLOT_H;
    let tick_label_top = plot_bottom + TICK_LEN + 4;
    let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let xs = Scale::new(0.0, x_axis.max, left, right);
    // The lowest value sits a little above the time axis, so a line at −100 % stays visible.
    let ys = Scale::new(y_axis.lo, y_axis.hi, plot_bottom - BOTTOM_INSET, plot_top);
    let marked = lines.len() <= MAX_MARKED;
    let stroke = if marked { 2 } else { 1 };

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        legend.draw(&c, (PAD, legend_top))?;

        let y0 = ys.at(0.0);
        c.line((left, y0), (right, y0), DARK_GREY, 1)?;

        for l in &sorted {
            let mut pts: Vec<(f64, f64)> = l.points.clone();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let colour = response_colour(&l.response);
            let path: Vec<_> = std::iter::once((0.0, 0.0))
                .chain(pts.iter().copied())
                .map(|(t, v)| (xs.at(t), ys.at(v)))
                .collect();
            c.polyline(&path, colour, stroke)?;
            if marked {
                for (t, v) in &pts {
                    c.marker(Marker::Circle, (xs.at(*t), ys.at(*v)), 3, colour)?;
                }
            }
        }

        // Thresholds over the lines, so they stay visible in a crowded plot.
        draw_reference_lines(&c, &ys, left, right)?;

        draw_axes(&c, (left, right), (plot_top, plot_bottom))?;
        draw_y_ticks(&c, &ys, &y_axis.ticks, y_axis.decimals, left)?;
        draw_x_ticks(
            &c,
            &xs,
            &x_axis.ticks,
            x_axis.decimals,
            plot_bottom,
            tick_label_top,
        )?;
        draw_y_title(&c, &y_title, PAD, (plot_top + plot_bottom) / 2)?;
        draw_x_title(&c, &time_axis_title(time_unit), (left, right), x_title_top)?;
        c.finish()?;
    }
    Ok(svg)
}
