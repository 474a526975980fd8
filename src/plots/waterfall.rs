//! Waterfall plot: each subject's best percentage change from baseline in the sum of target
//! lesion diameters, one bar per subject from worst to best, coloured by best overall response,
//! with the RECIST +20 % and −30 % thresholds.

use std::collections::BTreeMap;

use super::axis::ValueAxis;
use super::canvas::{
    draw_reference_lines, draw_x_title, draw_y_ticks, draw_y_title, format_tick, px,
    reference_label_width, wrap_text, y_title_width, Canvas, Key, Legend, LegendItem, Scale,
    TICK_LEN,
};
use super::style::{
    line_height, text_width, ResponseKey, CANVAS_WIDTH, DARK_GREY, LABEL_PX, PAD, TICK_PX,
};
use super::{finite, PlotError};

/// One subject's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct WaterfallBar {
    /// Subject id (used only to order ties; not drawn).
    pub usubjid: String,
    /// Best (most negative) percentage change from baseline in the sum of diameters.
    pub best_pchg: f64,
    /// Best overall response: CR, PR, SD, NON-CR/NON-PD, PD or NE (others shown as given).
    pub response: String,
}

const PLOT_H: i32 = 300;
const MAX_SLOT: f64 = 48.0;
const Y_TITLE: &str = "Best change from baseline in sum of diameters (%)";

/// Legend entries for the responses present, in reading order, with their counts.
pub(crate) fn response_legend(keys: impl Iterator<Item = ResponseKey>) -> Vec<LegendItem> {
    let mut counts: BTreeMap<ResponseKey, usize> = BTreeMap::new();
    for k in keys {
        *counts.entry(k).or_insert(0) += 1;
    }
    counts
        .into_iter()
        .map(|(k, n)| LegendItem {
            key: Key::Swatch(k.colour()),
            label: format!("{} (n = {n})", k.label()),
        })
        .collect()
}

/// Draws a waterfall plot.
///
/// Subject ids are not drawn (bars are anonymous, as in publications); ties are ordered by id
/// so the output does not depend on the input order. With more subjects than pixels the
/// canvas widens to keep every bar at least one pixel wide.
///
/// Errors: [`PlotError::NoData`] for no bars; [`PlotError::InvalidInput`] for a non-finite
/// change.
pub fn waterfall(bars: &[WaterfallBar]) -> Result<String, PlotError> {
    if bars.is_empty() {
        return Err(PlotError::NoData);
    }
    for b in bars {
        finite(b.best_pchg, || {
            format!("best change from baseline of subject '{}'", b.usubjid)
        })?;
    }
    let mut sorted: Vec<&WaterfallBar> = bars.iter().collect();
    sorted.sort_by(|a, b| {
        b.best_pchg
            .total_cmp(&a.best_pchg)
            .then_with(|| a.usubjid.cmp(&b.usubjid))
    });
    let lo = sorted.iter().map(|b| b.best_pchg).fold(-100.0, f64::min);
    let hi = sorted.iter().map(|b| b.best_pchg).fold(40.0, f64::max);
    let axis = ValueAxis::nice(lo, hi, 8.0);
    let n = i32::try_from(sorted.len()).unwrap_or(i32::MAX);

    let y_title = wrap_text(Y_TITLE, LABEL_PX, PLOT_H - 10)?;
    let mut y_tick_w = 0;
    for t in &axis.ticks {
        y_tick_w = y_tick_w.max(text_width(&format_tick(*t, axis.decimals), TICK_PX)?);
    }
    let left = PAD + y_title_width(&y_title) + 6 + y_tick_w + 4 + TICK_LEN;
    let right_margin = PAD + reference_label_width()? + 4;
    let plot_w = (CANVAS_WIDTH - left - right_margin).max(n);
    let w = left + plot_w + right_margin;
    let right = left + plot_w;

    let legend = Legend::flow(
        response_legend(sorted.iter().map(|b| ResponseKey::parse(&b.response))),
        w - 2 * PAD,
    )?;
    let legend_top = PAD;
    let plot_top = legend_top + legend.height() + 14;
    let plot_bottom = plot_top + PLOT_H;
    let x_title_top = plot_bottom + 8;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let ys = Scale::new(axis.lo, axis.hi, plot_bottom, plot_top);
    // Bars are at most MAX_SLOT wide; a few subjects sit centred rather than as wide blocks.
    let slot = (f64::from(plot_w) / f64::from(n.max(1))).min(MAX_SLOT);
    let bars_left = left + px((f64::from(plot_w) - slot * f64::from(n)) / 2.0);
    let gap = if slot >= 6.0 {
        (slot * 0.2).round() as i32
    } else {
        0
    };

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        legend.draw(&c, (PAD, legend_top))?;

        let y0 = ys.at(0.0);
        c.line((left, y0), (right, y0), DARK_GREY, 1)?;
        for (i, b) in sorted.iter().enumerate() {
            let i = f64::from(i32::try_from(i).unwrap_or(i32::MAX));
            let x0 = bars_left + (i * slot).round() as i32 + gap / 2;
            let x1 = (bars_left + ((i + 1.0) * slot).round() as i32 - (gap - gap / 2)).max(x0 + 1);
            let y1 = ys.at(b.best_pchg);
            // A bar of no change is drawn as a thin mark rather than vanishing.
            let (ya, yb) = if y1 == y0 { (y0 - 1, y0 + 1) } else { (y0, y1) };
            c.fill_rect((x0, ya), (x1, yb), ResponseKey::parse(&b.response).colour())?;
        }
        draw_reference_lines(&c, &ys, left, right)?;

        c.line((left, plot_top), (left, plot_bottom), DARK_GREY, 1)?;
        draw_y_ticks(&c, &ys, &axis.ticks, axis.decimals, left)?;
        draw_y_title(&c, &y_title, PAD, (plot_top + plot_bottom) / 2)?;
        draw_x_title(
            &c,
            &format!("Subjects (n = {})", sorted.len()),
            (left, right),
            x_title_top,
        )?;
        c.finish()?;
    }
    Ok(svg)
}
