//! Waterfall plot: each subject's best percentage change from baseline in the sum of target
//! lesion diameters, one bar per subject from worst to best, coloured by best overall response,
//! with the RECIST +20 % and −30 % thresholds. A cohort with arms has one panel per arm, side
//! by side on a shared y axis.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::ResponseCategory;

use super::axis::ValueAxis;
use super::canvas::{
    draw_reference_dashes, draw_reference_lines, draw_x_title, draw_y_ticks, draw_y_title,
    format_tick, px, reference_label_width, wrap_text, y_title_width, Anchor, Canvas, Key, Legend,
    LegendItem, Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, response_colour, text_width, CANVAS_WIDTH, DARK_GREY, LABEL_PX, PAD, TICK_PX,
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
    pub response: ResponseCategory,
}

/// One arm of a waterfall by arm: a panel of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct WaterfallArm {
    /// The arm, written over its panel with its number of subjects.
    pub arm: String,
    /// The arm's subjects.
    pub bars: Vec<WaterfallBar>,
}

const PLOT_H: i32 = 300;
const MAX_SLOT: f64 = 48.0;
/// Space between two arms' panels.
const PANEL_GAP: i32 = 16;
/// Narrowest panel of a waterfall by arm (the canvas widens to keep it).
const MIN_PANEL_W: i32 = 110;
const Y_TITLE: &str = "Best change from baseline in sum of diameters (%)";

/// Legend entries for the responses present, in reading order, with their counts.
pub(crate) fn response_legend<'r>(
    keys: impl Iterator<Item = &'r ResponseCategory>,
) -> Vec<LegendItem> {
    let mut counts: BTreeMap<&ResponseCategory, usize> = BTreeMap::new();
    for k in keys {
        *counts.entry(k).or_insert(0) += 1;
    }
    counts
        .into_iter()
        .map(|(k, n)| LegendItem {
            key: Key::Swatch(response_colour(k)),
            label: format!("{} (n = {n})", k.label()),
        })
        .collect()
}

/// One panel as drawn: its arm (none for a cohort without arms) and its bars, sorted.
struct Panel<'a> {
    arm: Option<&'a str>,
    bars: Vec<&'a WaterfallBar>,
}

/// A panel's heading wrapped to `width`: the arm, then "(n = 5)" kept whole, after the arm's
/// last line when it fits there.
fn heading_lines(arm: &str, n: usize, width: i32) -> Result<Vec<String>, PlotError> {
    let count = format!("(n = {n})");
    let mut lines = wrap_text(arm, LABEL_PX, width)?;
    match lines.last_mut() {
        Some(last) if text_width(&format!("{last} {count}"), LABEL_PX)? <= width => {
            last.push(' ');
            last.push_str(&count);
        }
        _ => lines.push(count),
    }
    Ok(lines)
}

/// Bars from worst to best; ties ordered by id so the output does not depend on input order.
fn sorted(bars: &[WaterfallBar]) -> Result<Vec<&WaterfallBar>, PlotError> {
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
    Ok(sorted)
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
    let panel = Panel {
        arm: None,
        bars: sorted(bars)?,
    };
    let legend = response_legend(panel.bars.iter().map(|b| &b.response));
    let x_title = format!("Subjects (n = {})", panel.bars.len());
    draw(&[panel], legend, &x_title)
}

/// Draws a waterfall by arm: one panel per arm, in the given order, side by side on a shared
/// y axis, each headed by the arm and its number of subjects and as wide as the others, so
/// the share of bars past a threshold compares between arms whatever their sizes. Bars are
/// coloured by best overall response, as in [`waterfall`]; an arm without bars has an empty
/// panel.
///
/// Errors: [`PlotError::NoData`] when no arm has a bar; [`PlotError::InvalidInput`] for a
/// non-finite change.
pub fn waterfall_by_arm(arms: &[WaterfallArm]) -> Result<String, PlotError> {
    if arms.iter().all(|a| a.bars.is_empty()) {
        return Err(PlotError::NoData);
    }
    let mut panels = Vec::with_capacity(arms.len());
    for a in arms {
        panels.push(Panel {
            arm: Some(&a.arm),
            bars: sorted(&a.bars)?,
        });
    }
    // Each heading gives its arm's n; counts of a response pooled over the arms would mislead.
    let present: BTreeSet<&ResponseCategory> = panels
        .iter()
        .flat_map(|p| p.bars.iter().map(|b| &b.response))
        .collect();
    let legend = present
        .into_iter()
        .map(|k| LegendItem {
            key: Key::Swatch(response_colour(k)),
            label: k.label(),
        })
        .collect();
    draw(&panels, legend, "Subjects")
}

fn draw(panels: &[Panel<'_>], legend: Vec<LegendItem>, x_title: &str) -> Result<String, PlotError> {
    let all = panels.iter().flat_map(|p| p.bars.iter());
    let lo = all.clone().map(|b| b.best_pchg).fold(-100.0, f64::min);
    let hi = all.map(|b| b.best_pchg).fold(40.0, f64::max);
    let axis = ValueAxis::nice(lo, hi, 8.0);
    let count = |p: &Panel<'_>| i32::try_from(p.bars.len()).unwrap_or(i32::MAX);
    let most = panels.iter().map(count).max().unwrap_or(0);
    let k = i32::try_from(panels.len()).unwrap_or(1).max(1);

    let y_title = wrap_text(Y_TITLE, LABEL_PX, PLOT_H - 10)?;
    let mut y_tick_w = 0;
    for t in &axis.ticks {
        y_tick_w = y_tick_w.max(text_width(&format_tick(*t, axis.decimals), TICK_PX)?);
    }
    let left = PAD + y_title_width(&y_title) + 6 + y_tick_w + 4 + TICK_LEN;
    let right_margin = PAD + reference_label_width()? + 4;
    // Panels share the width; each keeps every bar at least one pixel wide.
    let gaps = PANEL_GAP * (k - 1);
    let share = (CANVAS_WIDTH - left - right_margin - gaps) / k;
    let panel_w = if k > 1 {
        share.max(MIN_PANEL_W).max(most)
    } else {
        share.max(most)
    };
    let plot_w = panel_w * k + gaps;
    let w = left + plot_w + right_margin;
    let right = left + plot_w;
    let panel_left = |i: usize| left + i32::try_from(i).unwrap_or(0) * (panel_w + PANEL_GAP);

    let legend = Legend::flow(legend, w - 2 * PAD)?;
    let legend_top = PAD;
    let mut headings = Vec::with_capacity(panels.len());
    for p in panels {
        headings.push(match p.arm {
            Some(arm) => heading_lines(arm, p.bars.len(), panel_w)?,
            None => Vec::new(),
        });
    }
    let most_lines = headings.iter().map(Vec::len).max().unwrap_or(0);
    let heading_top = legend_top + legend.height() + 14;
    let plot_top = if most_lines == 0 {
        heading_top
    } else {
        heading_top + line_height(LABEL_PX) * i32::try_from(most_lines).unwrap_or(1) + 8
    };
    let plot_bottom = plot_top + PLOT_H;
    let x_title_top = plot_bottom + 8;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let ys = Scale::new(axis.lo, axis.hi, plot_bottom, plot_top);
    let y0 = ys.at(0.0);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        legend.draw(&c, (PAD, legend_top))?;

        for (p, panel) in panels.iter().enumerate() {
            let p_left = panel_left(p);
            let p_right = p_left + panel_w;
            let centre = p_left + panel_w / 2;
            for (l, line) in headings.get(p).into_iter().flatten().enumerate() {
                let top = heading_top + line_height(LABEL_PX) * i32::try_from(l).unwrap_or(0);
                c.text(
                    line,
                    (centre, top),
                    LABEL_PX,
                    DARK_GREY,
                    Anchor::Middle,
                    VAnchor::Top,
                )?;
            }
            c.line((p_left, y0), (p_right, y0), DARK_GREY, 1)?;
            // Bars are at most MAX_SLOT wide; a few subjects sit centred rather than as wide
            // blocks.
            let n = count(panel);
            let slot = (f64::from(panel_w) / f64::from(n.max(1))).min(MAX_SLOT);
            let bars_left = p_left + px((f64::from(panel_w) - slot * f64::from(n)) / 2.0);
            let gap = if slot >= 6.0 {
                (slot * 0.2).round() as i32
            } else {
                0
            };
            for (i, b) in panel.bars.iter().enumerate() {
                let i = f64::from(i32::try_from(i).unwrap_or(i32::MAX));
                let x0 = bars_left + (i * slot).round() as i32 + gap / 2;
                let x1 =
                    (bars_left + ((i + 1.0) * slot).round() as i32 - (gap - gap / 2)).max(x0 + 1);
                let y1 = ys.at(b.best_pchg);
                // A bar of no change is drawn as a thin mark rather than vanishing.
                let (ya, yb) = if y1 == y0 { (y0 - 1, y0 + 1) } else { (y0, y1) };
                c.fill_rect((x0, ya), (x1, yb), response_colour(&b.response))?;
            }
            if p + 1 == panels.len() {
                draw_reference_lines(&c, &ys, p_left, p_right)?;
            } else {
                draw_reference_dashes(&c, &ys, p_left, p_right)?;
            }
        }

        c.line((left, plot_top), (left, plot_bottom), DARK_GREY, 1)?;
        draw_y_ticks(&c, &ys, &axis.ticks, axis.decimals, left)?;
        draw_y_title(&c, &y_title, PAD, (plot_top + plot_bottom) / 2)?;
        draw_x_title(&c, x_title, (left, right), x_title_top)?;
        c.finish()?;
    }
    Ok(svg)
}
