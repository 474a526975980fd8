//! Adverse-event bar chart: for each preferred term, the percentage of subjects with the event
//! at any grade and at grade 3 or higher, as two horizontal bars side by side.

use super::axis::ValueAxis;
use super::canvas::{
    draw_axes_and_x_ticks, draw_title, draw_x_title, format_tick, wrap_text, Anchor, Canvas, Key,
    Legend, LegendItem, Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, text_width, CANVAS_WIDTH, DARK_GREY, LABEL_PX, OI_SKY_BLUE, OI_VERMILLION, PAD,
    SMALL_PX, TICK_PX, TITLE_PX,
};
use super::PlotError;

/// One preferred term.
#[derive(Debug, Clone, PartialEq)]
pub struct AeBar {
    /// Preferred term (MedDRA `AEDECOD`); long terms wrap onto several lines.
    pub term: String,
    /// Subjects with the event at any grade.
    pub any_grade: usize,
    /// Subjects with the event at grade 3 or higher.
    pub grade3plus: usize,
}

const ANY_GRADE: (&str, plotters::style::RGBColor) = ("Any grade", OI_SKY_BLUE);
const GRADE3PLUS: (&str, plotters::style::RGBColor) = ("Grade \u{2265}3", OI_VERMILLION);
const BAR_H: i32 = 16;
const BAR_GAP: i32 = 3;
const ROW_GAP: i32 = 10;

/// "7 (33.3%)"
fn value_label(count: usize, n_subjects: usize) -> String {
    format!("{count} ({:.1}%)", percent(count, n_subjects))
}

fn percent(count: usize, n_subjects: usize) -> f64 {
    // Counts are far below 2^52, so the conversion is exact.
    count as f64 / n_subjects as f64 * 100.0
}

/// Draws the adverse-event bar chart: `terms` top to bottom in the given order (the caller
/// sorts and truncates), as percentages of `n_subjects`, under `title` (empty for none).
///
/// Errors: [`PlotError::NoData`] for no terms; [`PlotError::InvalidInput`] when
/// `n_subjects` is 0, or a term has more subjects than `n_subjects` or more at grade ≥3 than
/// at any grade.
pub fn ae_bars(terms: &[AeBar], n_subjects: usize, title: &str) -> Result<String, PlotError> {
    ae_bars_labelled(terms, n_subjects, title, (ANY_GRADE.0, GRADE3PLUS.0))
}

/// [`ae_bars`] with the legend's two labels given (`Any severity`, `Severe` when the data
/// have severity only).
pub fn ae_bars_labelled(
    terms: &[AeBar],
    n_subjects: usize,
    title: &str,
    (any_label, severe_label): (&str, &str),
) -> Result<String, PlotError> {
    if terms.is_empty() {
        return Err(PlotError::NoData);
    }
    if n_subjects == 0 {
        return Err(PlotError::InvalidInput(
            "adverse-event bars need at least one subject in the population".to_string(),
        ));
    }
    for t in terms {
        if t.any_grade > n_subjects || t.grade3plus > t.any_grade {
            return Err(PlotError::InvalidInput(format!(
                "adverse event '{}': {} subjects at any grade and {} at grade 3 or higher, \
                 out of {n_subjects}",
                t.term, t.any_grade, t.grade3plus
            )));
        }
    }

    let w = CANVAS_WIDTH;
    let max_pct = terms
        .iter()
        .map(|t| percent(t.any_grade, n_subjects))
        .fold(10.0, f64::max);
    let axis = ValueAxis::nice(0.0, max_pct, 5.0);

    let max_label_w = w * 40 / 100;
    let mut labels = Vec::with_capacity(terms.len());
    let mut label_w = 0;
    for t in terms {
        let lines = wrap_text(&t.term, TICK_PX, max_label_w)?;
        for l in &lines {
            label_w = label_w.max(text_width(l, TICK_PX)?);
        }
        labels.push(lines);
    }
    let mut value_w = 0;
    for t in terms {
        for count in [t.any_grade, t.grade3plus] {
            value_w = value_w.max(text_width(&value_label(count, n_subjects), SMALL_PX)?);
        }
    }
    let left = PAD + label_w + 10;
    let last_tick_w = text_width(&format_tick(axis.hi, axis.decimals), TICK_PX)?;
    let right = w - PAD - (value_w + 6).max(last_tick_w / 2 + 2);

    let mut y = PAD;
    let title_lines = wrap_text(title, TITLE_PX, w - 2 * PAD)?;
    let title_top = y;
    if !title_lines.is_empty() {
        y += line_height(TITLE_PX) * i32::try_from(title_lines.len()).unwrap_or(1) + 6;
    }
    let legend = Legend::flow(
        vec![
            LegendItem {
                key: Key::Swatch(ANY_GRADE.1),
                label: any_label.to_string(),
            },
            LegendItem {
                key: Key::Swatch(GRADE3PLUS.1),
                label: severe_label.to_string(),
            },
        ],
        w - left - PAD,
    )?;
    let legend_top = y;
    let plot_top = y + legend.height() + 10;
    let line_h = line_height(TICK_PX);
    let mut row_tops = Vec::with_capacity(terms.len());
    let mut row_y = plot_top + ROW_GAP / 2;
    let mut row_heights = Vec::with_capacity(terms.len());
    for lines in &labels {
        let text_h = line_h * i32::try_from(lines.len()).unwrap_or(1);
        let row_h = text_h.max(2 * BAR_H + BAR_GAP);
        row_tops.push(row_y);
        row_heights.push(row_h);
        row_y += row_h + ROW_GAP;
    }
    let plot_bottom = row_y - ROW_GAP / 2;
    let tick_label_top = plot_bottom + TICK_LEN + 4;
    let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let xs = Scale::new(0.0, axis.hi, left, right);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        draw_title(&c, &title_lines, w / 2, title_top)?;
        legend.draw(&c, (left, legend_top))?;

        // Light vertical grid lines help read percentages off long bars.
        for t in axis.ticks.iter().filter(|t| **t > 0.0) {
            let x = xs.at(*t);
            c.line(
                (x, plot_top),
                (x, plot_bottom),
                plotters::style::RGBColor(0xE5, 0xE5, 0xE5),
                1,
            )?;
        }

        for ((t, lines), (top, row_h)) in terms
            .iter()
            .zip(&labels)
            .zip(row_tops.iter().zip(&row_heights))
        {
            let cy = top + row_h / 2;
            let text_h = line_h * i32::try_from(lines.len()).unwrap_or(1);
            for (k, line) in lines.iter().enumerate() {
                let ly = cy - text_h / 2 + line_h * i32::try_from(k).unwrap_or(0) + line_h / 2;
                c.text(
                    line,
                    (left - 10, ly),
                    TICK_PX,
                    DARK_GREY,
                    Anchor::End,
                    VAnchor::Center,
                )?;
            }
            let bars = [
                (t.any_grade, ANY_GRADE.1, cy - BAR_GAP / 2 - BAR_H),
                (t.grade3plus, GRADE3PLUS.1, cy + BAR_GAP - BAR_GAP / 2),
            ];
            for (count, colour, bar_top) in bars {
                let x1 = xs.at(percent(count, n_subjects));
                if count > 0 {
                    c.fill_rect((left, bar_top), (x1.max(left + 1), bar_top + BAR_H), colour)?;
                }
                c.text(
                    &value_label(count, n_subjects),
                    (x1 + 4, bar_top + BAR_H / 2),
                    SMALL_PX,
                    DARK_GREY,
                    Anchor::Start,
                    VAnchor::Center,
                )?;
            }
        }

        draw_axes_and_x_ticks(
            &c,
            &xs,
            (&axis.ticks, axis.decimals),
            (left, right),
            (plot_top, plot_bottom),
            tick_label_top,
        )?;
        draw_x_title(
            &c,
            &format!("Subjects (%), N = {n_subjects}"),
            (left, right),
            x_title_top,
        )?;
        c.finish()?;
    }
    Ok(svg)
}
