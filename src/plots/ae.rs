//! Adverse-event bar chart: for each preferred term, the percentage of subjects with the event
//! at any grade and at grade 3 or higher, as two horizontal bars side by side; for a cohort
//! with arms, one bar per arm, its grade ≥3 part darker.

use super::axis::ValueAxis;
use super::canvas::{
    draw_axes_and_x_ticks, draw_title, draw_x_title, format_tick, wrap_text, Anchor, Canvas, Key,
    Legend, LegendItem, Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, series_colour, text_width, tint, CANVAS_WIDTH, DARK_GREY, LABEL_PX, OI_SKY_BLUE,
    OI_VERMILLION, PAD, SMALL_PX, TICK_PX, TITLE_PX,
};
use super::PlotError;

/// One preferred term.
#[derive(Debug, Clone, PartialEq)]
pub struct AeBar {
    /// Preferred term (MedDRA `AEDECOD`); long terms wrap onto several lines.
    pub term: String,
    /// Subjects with the event at any grade.
    pub any_grade: usize,
    /// Subjects with the event at grade 3 or higher; `None` when the data have no grade (no
    /// bar, no legend entry).
    pub grade3plus: Option<usize>,
}

const ANY_GRADE: (&str, plotters::style::RGBColor) = ("Any grade", OI_SKY_BLUE);
const GRADE3PLUS: (&str, plotters::style::RGBColor) = ("Grade \u{2265}3", OI_VERMILLION);
const BAR_H: i32 = 16;
const BAR_GAP: i32 = 3;
const ROW_GAP: i32 = 10;

/// Each term's label wrapped to at most 40% of the canvas `w`, and the widest line.
fn term_labels(terms: &[AeBar], w: i32) -> Result<(Vec<Vec<String>>, i32), PlotError> {
    let mut labels = Vec::with_capacity(terms.len());
    let mut widest = 0;
    for t in terms {
        let lines = wrap_text(&t.term, TICK_PX, w * 40 / 100)?;
        for l in &lines {
            widest = widest.max(text_width(l, TICK_PX)?);
        }
        labels.push(lines);
    }
    Ok((labels, widest))
}

/// Each term's row (top, height) from `plot_top` down: as tall as its label or `bars_h`,
/// whichever is taller, [`ROW_GAP`] apart; and the plot's bottom.
fn row_layout(labels: &[Vec<String>], bars_h: i32, plot_top: i32) -> (Vec<(i32, i32)>, i32) {
    let line_h = line_height(TICK_PX);
    let mut rows = Vec::with_capacity(labels.len());
    let mut row_y = plot_top + ROW_GAP / 2;
    for lines in labels {
        let row_h = (line_h * i32::try_from(lines.len()).unwrap_or(1)).max(bars_h);
        rows.push((row_y, row_h));
        row_y += row_h + ROW_GAP;
    }
    (rows, row_y - ROW_GAP / 2)
}

/// Light vertical grid lines at the ticks above 0: they help read percentages off long bars.
fn draw_grid(
    c: &Canvas,
    xs: &Scale,
    ticks: &[f64],
    (top, bottom): (i32, i32),
) -> Result<(), PlotError> {
    for t in ticks.iter().filter(|t| **t > 0.0) {
        let x = xs.at(*t);
        c.line(
            (x, top),
            (x, bottom),
            plotters::style::RGBColor(0xE5, 0xE5, 0xE5),
            1,
        )?;
    }
    Ok(())
}

/// A term's label lines, right-aligned before the bars at `left`, centred on `cy`.
fn draw_term_label(c: &Canvas, lines: &[String], left: i32, cy: i32) -> Result<(), PlotError> {
    let line_h = line_height(TICK_PX);
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
    Ok(())
}

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
        if t.any_grade > n_subjects || t.grade3plus.is_some_and(|g| g > t.any_grade) {
            return Err(PlotError::InvalidInput(format!(
                "adverse event '{}': {} subjects at any grade and {} at grade 3 or higher, \
                 out of {n_subjects}",
                t.term,
                t.any_grade,
                t.grade3plus.unwrap_or(0)
            )));
        }
    }
    let graded = terms.iter().any(|t| t.grade3plus.is_some());

    let w = CANVAS_WIDTH;
    let max_pct = terms
        .iter()
        .map(|t| percent(t.any_grade, n_subjects))
        .fold(10.0, f64::max);
    let axis = ValueAxis::nice(0.0, max_pct, 5.0);

    let (labels, label_w) = term_labels(terms, w)?;
    let mut value_w = 0;
    for t in terms {
        for count in std::iter::once(t.any_grade).chain(t.grade3plus) {
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
    let mut items = vec![LegendItem {
        key: Key::Swatch(ANY_GRADE.1),
        label: any_label.to_string(),
    }];
    if graded {
        items.push(LegendItem {
            key: Key::Swatch(GRADE3PLUS.1),
            label: severe_label.to_string(),
        });
    }
    let legend = Legend::flow(items, w - left - PAD)?;
    let legend_top = y;
    let plot_top = y + legend.height() + 10;
    let (rows, plot_bottom) = row_layout(&labels, 2 * BAR_H + BAR_GAP, plot_top);
    let tick_label_top = plot_bottom + TICK_LEN + 4;
    let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let xs = Scale::new(0.0, axis.hi, left, right);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        draw_title(&c, &title_lines, w / 2, title_top)?;
        legend.draw(&c, (left, legend_top))?;

        draw_grid(&c, &xs, &axis.ticks, (plot_top, plot_bottom))?;

        for ((t, lines), (top, row_h)) in terms.iter().zip(&labels).zip(&rows) {
            let cy = top + row_h / 2;
            draw_term_label(&c, lines, left, cy)?;
            let bars = [
                Some((t.any_grade, ANY_GRADE.1, cy - BAR_GAP / 2 - BAR_H)),
                t.grade3plus
                    .map(|g| (g, GRADE3PLUS.1, cy + BAR_GAP - BAR_GAP / 2)),
            ];
            for (count, colour, bar_top) in bars.into_iter().flatten() {
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

/// One arm of an adverse-event chart by arm.
#[derive(Debug, Clone, PartialEq)]
pub struct AeArm {
    /// The arm, shown in the legend with its N.
    pub arm: String,
    /// The arm's safety population, the denominator of its percentages.
    pub n_subjects: usize,
    /// The arm's counts per preferred term, in the chart's order: the same terms for every arm
    /// (0 for a term the arm has not had).
    pub terms: Vec<AeBar>,
}

/// How much of an arm's colour its any-grade bar keeps (the rest white); its grade ≥3 part is
/// drawn in the full colour.
const ANY_GRADE_TINT: f64 = 0.4;

/// "47.0 (22.1)": the percentages at any grade and (in brackets) at grade ≥3; "47.0" when
/// the data have no grade.
fn arm_value_label(any: f64, severe: Option<f64>) -> String {
    match severe {
        Some(severe) => format!("{any:.1} ({severe:.1})"),
        None => format!("{any:.1}"),
    }
}

/// Every arm has subjects, the same terms as the first, and possible counts.
fn check_arms(arms: &[AeArm], first: &AeArm) -> Result<(), PlotError> {
    for a in arms {
        if a.n_subjects == 0 {
            return Err(PlotError::InvalidInput(format!(
                "adverse-event bars of arm '{}' need at least one subject in its population",
                a.arm
            )));
        }
        let same_terms = a.terms.len() == first.terms.len()
            && a.terms
                .iter()
                .zip(&first.terms)
                .all(|(x, y)| x.term == y.term);
        if !same_terms {
            return Err(PlotError::InvalidInput(format!(
                "arm '{}' lists other adverse-event terms than arm '{}'",
                a.arm, first.arm
            )));
        }
        for t in &a.terms {
            if t.any_grade > a.n_subjects || t.grade3plus.is_some_and(|g| g > t.any_grade) {
                return Err(PlotError::InvalidInput(format!(
                    "adverse event '{}' in arm '{}': {} subjects at any grade and {} at grade 3 \
                     or higher, out of {}",
                    t.term,
                    a.arm,
                    t.any_grade,
                    t.grade3plus.unwrap_or(0),
                    a.n_subjects
                )));
            }
        }
    }
    Ok(())
}

/// The legend: each arm with its N, then the two shades (any grade; the part at grade ≥3
/// when the data have grades).
fn arms_legend(
    arms: &[AeArm],
    (any_label, severe_label): (&str, &str),
    w: i32,
) -> Result<Legend, PlotError> {
    let arm_items = arms
        .iter()
        .enumerate()
        .map(|(i, a)| LegendItem {
            key: Key::Swatch(series_colour(i)),
            label: format!("{} (N = {})", a.arm, a.n_subjects),
        })
        .collect();
    let graded = arms
        .iter()
        .flat_map(|a| &a.terms)
        .any(|t| t.grade3plus.is_some());
    let mut shade_items = vec![LegendItem {
        key: Key::Swatch(tint(DARK_GREY, ANY_GRADE_TINT)),
        label: any_label.to_string(),
    }];
    if graded {
        shade_items.push(LegendItem {
            key: Key::Swatch(DARK_GREY),
            label: format!("{severe_label} (in brackets)"),
        });
    }
    Legend::flow_groups(vec![arm_items, shade_items], w - 2 * PAD)
}

/// Draws the adverse-event chart of a cohort with arms: per preferred term (top to bottom, in
/// the given order) one bar per arm, in the arm's colour, as long as the percentage of the
/// arm's subjects with the event at any grade (light) with the part at grade ≥3 darker, and
/// both percentages written after it. Percentages are of each arm's own `n_subjects`. The
/// legend gives each arm with its N, then the two shades as `labels` name them
/// (`Any grade`, `Grade ≥3`); `title` may be empty for none.
///
/// Errors: [`PlotError::NoData`] for no arm or no term; [`PlotError::InvalidInput`] when an
/// arm has no subject, the arms list different terms, or a count is impossible (more subjects
/// than the arm's N, more at grade ≥3 than at any grade).
pub fn ae_bars_by_arm(
    arms: &[AeArm],
    title: &str,
    (any_label, severe_label): (&str, &str),
) -> Result<String, PlotError> {
    let Some(first) = arms.first() else {
        return Err(PlotError::NoData);
    };
    if first.terms.is_empty() {
        return Err(PlotError::NoData);
    }
    check_arms(arms, first)?;

    let w = CANVAS_WIDTH;
    let pct = |a: &AeArm, count: usize| percent(count, a.n_subjects);
    let max_pct = arms
        .iter()
        .flat_map(|a| a.terms.iter().map(move |t| pct(a, t.any_grade)))
        .fold(10.0, f64::max);
    let axis = ValueAxis::nice(0.0, max_pct, 5.0);

    let (labels, label_w) = term_labels(&first.terms, w)?;
    let mut value_w = 0;
    for a in arms {
        for t in &a.terms {
            let label = arm_value_label(pct(a, t.any_grade), t.grade3plus.map(|g| pct(a, g)));
            value_w = value_w.max(text_width(&label, SMALL_PX)?);
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
    let legend = arms_legend(arms, (any_label, severe_label), w)?;
    let legend_top = y;
    let plot_top = y + legend.height() + 10;
    let n_arms = i32::try_from(arms.len()).unwrap_or(i32::MAX);
    let bars_h = n_arms * BAR_H + (n_arms - 1) * BAR_GAP;
    let (rows, plot_bottom) = row_layout(&labels, bars_h, plot_top);
    let tick_label_top = plot_bottom + TICK_LEN + 4;
    let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let xs = Scale::new(0.0, axis.hi, left, right);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        draw_title(&c, &title_lines, w / 2, title_top)?;
        legend.draw(&c, (PAD, legend_top))?;

        draw_grid(&c, &xs, &axis.ticks, (plot_top, plot_bottom))?;

        for (r, (lines, (top, row_h))) in labels.iter().zip(&rows).enumerate() {
            let cy = top + row_h / 2;
            draw_term_label(&c, lines, left, cy)?;
            let bars_top = cy - bars_h / 2;
            for (i, a) in arms.iter().enumerate() {
                let Some(t) = a.terms.get(r) else { continue };
                let bar_top = bars_top + i32::try_from(i).unwrap_or(0) * (BAR_H + BAR_GAP);
                let (any, severe) = (pct(a, t.any_grade), t.grade3plus.map(|g| pct(a, g)));
                let colour = series_colour(i);
                let x_any = xs.at(any);
                if t.any_grade > 0 {
                    let end = x_any.max(left + 1);
                    c.fill_rect(
                        (left, bar_top),
                        (end, bar_top + BAR_H),
                        tint(colour, ANY_GRADE_TINT),
                    )?;
                }
                if let (Some(g), Some(severe)) = (t.grade3plus, severe) {
                    if g > 0 {
                        let end = xs.at(severe).max(left + 1);
                        c.fill_rect((left, bar_top), (end, bar_top + BAR_H), colour)?;
                    }
                }
                c.text(
                    &arm_value_label(any, severe),
                    (x_any + 4, bar_top + BAR_H / 2),
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
        draw_x_title(&c, "Subjects (%)", (left, right), x_title_top)?;
        c.finish()?;
    }
    Ok(svg)
}
