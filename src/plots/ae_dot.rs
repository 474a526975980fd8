//! The adverse-event dot plot of two arms (the "AE dot plot" of safety reports): per term, the
//! percentage of each arm's safety population with the event (left panel, one marker per arm),
//! and the risk difference of the arm to the reference with its interval (right panel, around
//! a dashed line at 0); most frequent terms at the top.

use super::canvas::{
    decimals_for, format_tick, nice_step, px, ticks, truncate_to_width, Anchor, Canvas, Key,
    Legend, LegendItem, Marker, Scale, VAnchor, TICK_LEN,
};
use super::style::{line_height, BLACK, DARK_GREY, GREY, OI_BLUE, OI_ORANGE, PAD, SMALL_PX};
use super::{finite, PlotError};
use plotters::style::RGBColor;

/// One term of an AE dot plot; percentages in 0–100, the difference in percentage points.
#[derive(Debug, Clone, PartialEq)]
pub struct AeDotRow {
    /// The preferred term.
    pub term: String,
    /// Percentage of the arm with the event.
    pub pct: f64,
    /// Percentage of the reference arm with the event.
    pub pct_reference: f64,
    /// Risk difference, arm − reference, and its interval (lower, upper).
    pub difference: (f64, f64, f64),
}

const WIDTH: i32 = 820;
/// Every other row is shaded, to follow a term across the two panels.
const STRIPE: RGBColor = RGBColor(0xF2, 0xF2, 0xF2);
const LABEL_W: i32 = 250;
const PANEL_GAP: i32 = 48;
const ROW_H: i32 = 22;
const MARKER_R: i32 = 5;

/// Draws the plot (SVG); `ci_percent` labels the interval ("95").
pub fn ae_dot(
    rows: &[AeDotRow],
    arm: &str,
    reference: &str,
    ci_percent: &str,
) -> Result<String, PlotError> {
    if rows.is_empty() {
        return Err(PlotError::NoData);
    }
    for r in rows {
        for (what, v) in [
            ("percentage", r.pct),
            ("reference percentage", r.pct_reference),
            ("difference", r.difference.0),
            ("lower limit", r.difference.1),
            ("upper limit", r.difference.2),
        ] {
            finite(v, || format!("{what} of {}", r.term))?;
        }
        if !(0.0..=100.0).contains(&r.pct) || !(0.0..=100.0).contains(&r.pct_reference) {
            return Err(PlotError::InvalidInput(format!(
                "a percentage of {} is outside 0 to 100",
                r.term
            )));
        }
    }
    let lh = line_height(SMALL_PX);
    let legend = Legend::flow(
        vec![
            LegendItem {
                key: Key::Marker(Marker::Circle, OI_BLUE),
                label: arm.to_string(),
            },
            LegendItem {
                key: Key::Marker(Marker::Diamond, OI_ORANGE),
                label: reference.to_string(),
            },
        ],
        WIDTH - 2 * PAD,
    )?;
    let n = i32::try_from(rows.len()).unwrap_or(i32::MAX / ROW_H - 1);
    let top = PAD + legend.height() + PAD + lh;
    let bottom = top + n * ROW_H;
    let height = bottom + TICK_LEN + 2 * lh + PAD;
    let x0 = PAD + LABEL_W;
    let panel_w = (WIDTH - x0 - PAD - PANEL_GAP) / 2;
    let (l0, l1) = (x0, x0 + panel_w);
    let (r0, r1) = (l1 + PANEL_GAP, l1 + PANEL_GAP + panel_w);

    // Scales: incidence from 0 to a round maximum; differences symmetric about 0.
    let max_pct = rows
        .iter()
        .map(|r| r.pct.max(r.pct_reference))
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let step_l = nice_step(max_pct, 5.0);
    let hi_l = (max_pct / step_l).ceil() * step_l;
    let reach = rows
        .iter()
        .flat_map(|r| [r.difference.1.abs(), r.difference.2.abs()])
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let step_r = nice_step(2.0 * reach, 6.0);
    let hi_r = (reach / step_r).ceil() * step_r;
    let left = Scale::new(0.0, hi_l, l0, l1);
    let right = Scale::new(-hi_r, hi_r, r0, r1);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, WIDTH, height)?;
        legend.draw(&c, (PAD, PAD))?;
        c.text(
            "Incidence (%)",
            ((l0 + l1) / 2, top - lh),
            SMALL_PX,
            BLACK,
            Anchor::Middle,
            VAnchor::Top,
        )?;
        c.text(
            &format!("Risk difference, % ({ci_percent}% CI)"),
            ((r0 + r1) / 2, top - lh),
            SMALL_PX,
            BLACK,
            Anchor::Middle,
            VAnchor::Top,
        )?;
        // Grid and axes.
        for (scale, lo, hi, step, (a, b)) in [
            (&left, 0.0, hi_l, step_l, (l0, l1)),
            (&right, -hi_r, hi_r, step_r, (r0, r1)),
        ] {
            c.line((a, bottom), (b, bottom), BLACK, 1)?;
            let d = decimals_for(step);
            for t in ticks(lo, hi, step) {
                let x = scale.at(t);
                c.line((x, bottom), (x, bottom + TICK_LEN), BLACK, 1)?;
                c.text(
                    &format_tick(t, d),
                    (x, bottom + TICK_LEN + 2),
                    SMALL_PX,
                    DARK_GREY,
                    Anchor::Middle,
                    VAnchor::Top,
                )?;
            }
        }
        c.dashed((right.at(0.0), top), (right.at(0.0), bottom), GREY, 1, 4, 4)?;
        for (i, r) in rows.iter().enumerate() {
            let y = top + ROW_H * i32::try_from(i).unwrap_or(0) + ROW_H / 2;
            if i % 2 == 0 {
                c.fill_rect((PAD, y - ROW_H / 2), (r1, y + ROW_H / 2), STRIPE)?;
            }
            let label = truncate_to_width(&r.term, SMALL_PX, LABEL_W - PAD)?;
            c.text(
                &label,
                (x0 - PAD, y),
                SMALL_PX,
                BLACK,
                Anchor::End,
                VAnchor::Center,
            )?;
            c.marker(
                Marker::Diamond,
                (left.at(r.pct_reference), y),
                MARKER_R,
                OI_ORANGE,
            )?;
            c.marker(Marker::Circle, (left.at(r.pct), y), MARKER_R, OI_BLUE)?;
            let (d, lo, hi) = r.difference;
            c.line((right.at(lo), y), (right.at(hi), y), BLACK, 1)?;
            c.marker(
                Marker::Circle,
                (right.at(d), y),
                px(f64::from(MARKER_R) * 0.8),
                BLACK,
            )?;
        }
        c.finish()?;
    }
    Ok(svg)
}
