//! A thin pixel-space drawing layer over plotters' SVG backend, plus the layout helpers every
//! figure shares: linear scales, tick choice and formatting, text wrapping and legends.
//!
//! Figures lay themselves out in whole pixels before drawing (the SVG size must be known up
//! front), so everything here works in integer SVG coordinates.

use plotters::backend::SVGBackend;
use plotters::coord::Shift;
use plotters::drawing::{DrawingArea, IntoDrawingArea};
use plotters::element::{Circle, DashedPathElement, PathElement, Polygon, Rectangle, Text};
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color, FontTransform, RGBColor};

use super::style::{
    ensure_font, font, line_height, text_width, Dash, BLACK, DARK_GREY, LABEL_PX, TICK_PX,
    TITLE_PX, WHITE,
};
use super::PlotError;

/// A point in SVG pixels.
pub(crate) type Px = (i32, i32);

/// Rounds a pixel coordinate computed in floating point.
pub(crate) fn px(v: f64) -> i32 {
    // `as` saturates and maps NaN to 0; inputs are validated finite before layout.
    v.round() as i32
}

fn render_err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError::Render(e.to_string())
}

/// Horizontal and vertical text anchors.
#[derive(Clone, Copy)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

#[derive(Clone, Copy)]
pub(crate) enum VAnchor {
    Top,
    Center,
}

/// Marker shapes, distinguishable without colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    TriangleUp,
    Diamond,
    Cross,
    Circle,
    Plus,
}

/// An SVG drawing surface in pixel coordinates.
pub(crate) struct Canvas<'a> {
    area: DrawingArea<SVGBackend<'a>, Shift>,
}

impl<'a> Canvas<'a> {
    /// A white canvas writing into `buf`.
    pub(crate) fn new(buf: &'a mut String, width: i32, height: i32) -> Result<Self, PlotError> {
        ensure_font()?;
        let w = u32::try_from(width.max(1)).map_err(render_err)?;
        let h = u32::try_from(height.max(1)).map_err(render_err)?;
        let area = SVGBackend::with_string(buf, (w, h)).into_drawing_area();
        area.fill(&WHITE).map_err(render_err)?;
        Ok(Canvas { area })
    }

    /// Writes the SVG out; dropping without this would swallow the error.
    pub(crate) fn finish(self) -> Result<(), PlotError> {
        self.area.present().map_err(render_err)
    }

    pub(crate) fn line(&self, a: Px, b: Px, colour: RGBColor, width: u32) -> Result<(), PlotError> {
        self.polyline(&[a, b], colour, width)
    }

    pub(crate) fn polyline(
        &self,
        points: &[Px],
        colour: RGBColor,
        width: u32,
    ) -> Result<(), PlotError> {
        if points.len() < 2 {
            return Ok(());
        }
        self.area
            .draw(&PathElement::new(
                points.to_vec(),
                colour.stroke_width(width),
            ))
            .map_err(render_err)
    }

    /// A polyline in a pattern ([`Dash`]): plotters cuts a dashed one into its dashes.
    pub(crate) fn polyline_dashed(
        &self,
        points: &[Px],
        colour: RGBColor,
        width: u32,
        dash: Dash,
    ) -> Result<(), PlotError> {
        let Some((on, off)) = dash.pattern() else {
            return self.polyline(points, colour, width);
        };
        if points.len() < 2 {
            return Ok(());
        }
        self.area
            .draw(&DashedPathElement::new(
                points.to_vec(),
                on,
                off,
                colour.stroke_width(width),
            ))
            .map_err(render_err)
    }

    /// A dashed horizontal or vertical line (other directions are drawn solid).
    pub(crate) fn dashed(
        &self,
        a: Px,
        b: Px,
        colour: RGBColor,
        width: u32,
        dash: i32,
        gap: i32,
    ) -> Result<(), PlotError> {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = dx.abs().max(dy.abs());
        if (dx != 0 && dy != 0) || len == 0 || dash <= 0 {
            return self.line(a, b, colour, width);
        }
        let (ux, uy) = (dx.signum(), dy.signum());
        let mut s = 0;
        while s < len {
            let e = (s + dash).min(len);
            self.line(
                (a.0 + ux * s, a.1 + uy * s),
                (a.0 + ux * e, a.1 + uy * e),
                colour,
                width,
            )?;
            s = e + gap.max(1);
        }
        Ok(())
    }

    /// A filled rectangle between two corners (in any order).
    pub(crate) fn fill_rect(&self, a: Px, b: Px, colour: RGBColor) -> Result<(), PlotError> {
        let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
        let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
        self.area
            .draw(&Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))
            .map_err(render_err)
    }

    /// A filled polygon with the given opacity.
    pub(crate) fn polygon(
        &self,
        points: &[Px],
        colour: RGBColor,
        opacity: f64,
    ) -> Result<(), PlotError> {
        if points.len() < 3 {
            return Ok(());
        }
        self.area
            .draw(&Polygon::new(points.to_vec(), colour.mix(opacity).filled()))
            .map_err(render_err)
    }

    /// A marker centred on `c`, `r` pixels from centre to edge.
    pub(crate) fn marker(
        &self,
        shape: Marker,
        c: Px,
        r: i32,
        colour: RGBColor,
    ) -> Result<(), PlotError> {
        let r = r.max(1);
        let (x, y) = c;
        match shape {
            // A white outline lifts the marker off a coloured bar; on tiny markers it would
            // swallow the fill.
            Marker::TriangleUp => {
                let [a, b, d] = [(x, y - r), (x + r, y + r), (x - r, y + r)];
                self.polygon(&[a, b, d], colour, 1.0)?;
                if r >= 4 {
                    self.polyline(&[a, b, d, a], WHITE, 1)?;
                }
                Ok(())
            }
            Marker::Diamond => {
                let [a, b, d, e] = [(x, y - r), (x + r, y), (x, y + r), (x - r, y)];
                self.polygon(&[a, b, d, e], colour, 1.0)?;
                if r >= 4 {
                    self.polyline(&[a, b, d, e, a], WHITE, 1)?;
                }
                Ok(())
            }
            Marker::Circle => {
                let r = u32::try_from(r).unwrap_or(1);
                self.area
                    .draw(&Circle::new((x, y), r, colour.filled()))
                    .map_err(render_err)
            }
            Marker::Cross => {
                if r >= 4 {
                    self.line((x - r, y - r), (x + r, y + r), WHITE, 4)?;
                    self.line((x - r, y + r), (x + r, y - r), WHITE, 4)?;
                }
                self.line((x - r, y - r), (x + r, y + r), colour, 2)?;
                self.line((x - r, y + r), (x + r, y - r), colour, 2)
            }
            Marker::Plus => {
                self.line((x - r, y), (x + r, y), colour, 2)?;
                self.line((x, y - r), (x, y + r), colour, 2)
            }
        }
    }

    /// A right-pointing arrow from `from`, `len` pixels long.
    pub(crate) fn arrow_right(
        &self,
        from: Px,
        len: i32,
        head: i32,
        colour: RGBColor,
    ) -> Result<(), PlotError> {
        let (x, y) = from;
        let tip = x + len;
        self.line((x, y), (tip - head, y), colour, 2)?;
        self.polygon(
            &[
                (tip, y),
                (tip - head, y - head / 2 - 1),
                (tip - head, y + head / 2 + 1),
            ],
            colour,
            1.0,
        )
    }

    pub(crate) fn text(
        &self,
        s: &str,
        at: Px,
        size_px: f64,
        colour: RGBColor,
        h: Anchor,
        v: VAnchor,
    ) -> Result<(), PlotError> {
        self.text_rotated(s, at, size_px, colour, h, v, false)
    }

    /// Text, optionally turned to read bottom to top (for y-axis titles).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn text_rotated(
        &self,
        s: &str,
        at: Px,
        size_px: f64,
        colour: RGBColor,
        h: Anchor,
        v: VAnchor,
        rotated: bool,
    ) -> Result<(), PlotError> {
        if s.is_empty() {
            return Ok(());
        }
        let hpos = match h {
            Anchor::Start => HPos::Left,
            Anchor::Middle => HPos::Center,
            Anchor::End => HPos::Right,
        };
        let vpos = match v {
            VAnchor::Top => VPos::Top,
            VAnchor::Center => VPos::Center,
        };
        let mut style = font(size_px).color(&colour).pos(Pos::new(hpos, vpos));
        if rotated {
            style = style.transform(FontTransform::Rotate270);
        }
        self.area
            .draw(&Text::new(s.to_string(), at, style))
            .map_err(render_err)
    }
}

/// A linear map from data values to pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    d0: f64,
    d1: f64,
    p0: f64,
    p1: f64,
}

impl Scale {
    /// Maps `[d0, d1]` onto `[p0, p1]` (pixels may run backwards, as y does).
    pub(crate) fn new(d0: f64, d1: f64, p0: i32, p1: i32) -> Scale {
        let d1 = if (d1 - d0).abs() < f64::EPSILON {
            d0 + 1.0
        } else {
            d1
        };
        Scale {
            d0,
            d1,
            p0: f64::from(p0),
            p1: f64::from(p1),
        }
    }

    pub(crate) fn at(&self, v: f64) -> i32 {
        px(self.p0 + (v - self.d0) / (self.d1 - self.d0) * (self.p1 - self.p0))
    }
}

/// Decimals needed to print multiples of `step` exactly (at most 3).
pub(crate) fn decimals_for(step: f64) -> usize {
    (0..3)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(3)
}

/// A tick label: fixed decimals and a true minus sign.
pub(crate) fn format_tick(v: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, v.abs());
    let is_zero = s.chars().all(|c| c == '0' || c == '.');
    if v < 0.0 && !is_zero {
        format!("\u{2212}{s}")
    } else {
        s
    }
}

/// Multiples of `step` from the first at or above `lo` to the last at or below `hi`.
pub(crate) fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    if step.is_nan() || step <= 0.0 || !lo.is_finite() || !hi.is_finite() || hi < lo {
        return Vec::new();
    }
    let tol = step * 1e-9;
    let first = ((lo - tol) / step).ceil() as i64;
    let last = ((hi + tol) / step).floor() as i64;
    if last - first > 10_000 {
        return Vec::new();
    }
    (first..=last).map(|k| k as f64 * step).collect()
}

/// The smallest nice step giving at most `max_intervals` intervals over `span`.
pub(crate) fn nice_step(span: f64, max_intervals: f64) -> f64 {
    let span = if span > 0.0 && span.is_finite() {
        span
    } else {
        1.0
    };
    crate::format::nice_steps()
        .into_iter()
        .find(|s| span / s <= max_intervals)
        .unwrap_or(span)
}

/// Most characters of one label laid out in a figure: a longer one (a data value may be a
/// megabyte) is cut, with an ellipsis, before it is measured, so layout stays quick whatever
/// the data hold. Tables show the full text.
pub(crate) const MAX_LABEL_CHARS: usize = 300;

/// `text`, cut to [`MAX_LABEL_CHARS`] characters with an ellipsis when longer.
fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_LABEL_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some(_) => {
            let mut cut: String = text.chars().take(MAX_LABEL_CHARS - 1).collect();
            cut.push('\u{2026}');
            std::borrow::Cow::Owned(cut)
        }
    }
}

/// The largest `n` in `lo..=hi` for which `fits(n)` holds, `fits` being true up to some point
/// and false after it; `lo` when none does. A binary search: labels are measured
/// O(log n) times, not once per character.
fn largest_fitting(
    lo: usize,
    hi: usize,
    mut fits: impl FnMut(usize) -> Result<bool, PlotError>,
) -> Result<usize, PlotError> {
    let (mut good, mut bad) = (lo, hi + 1);
    if !fits(lo)? {
        return Ok(lo);
    }
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if fits(mid)? {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Ok(good)
}

/// Greedy word wrap to `max_width` pixels. Words are also broken after `-` and `/`, and a
/// word wider than the line on its own is cut between characters, so every line fits. Text
/// longer than [`MAX_LABEL_CHARS`] is cut with an ellipsis first.
pub(crate) fn wrap_text(
    text: &str,
    size_px: f64,
    max_width: i32,
) -> Result<Vec<String>, PlotError> {
    let text = capped(text);
    let mut tokens: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let mut cur = String::new();
        for c in word.chars() {
            cur.push(c);
            if c == '-' || c == '/' {
                tokens.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            tokens.push(cur);
        }
        // Marks the end of a word: the next token starts after a space.
        tokens.push(" ".to_string());
    }
    tokens.pop();

    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for tok in tokens {
        let candidate = format!("{line}{tok}");
        if line.is_empty() || text_width(candidate.trim_end(), size_px)? <= max_width {
            line = candidate;
        } else {
            lines.push(line.trim_end().to_string());
            line = tok.trim_start().to_string();
        }
        // A single token too wide for a line: cut it after the most characters that fit
        // (at least one).
        while text_width(line.trim_end(), size_px)? > max_width && line.chars().count() > 1 {
            let chars: Vec<char> = line.chars().collect();
            let cut = largest_fitting(1, chars.len() - 1, |k| {
                let prefix: String = chars[..k].iter().collect();
                Ok(text_width(&prefix, size_px)? <= max_width)
            })?;
            lines.push(chars[..cut].iter().collect());
            line = chars[cut..].iter().collect();
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    Ok(lines)
}

/// Shortens `text` with an ellipsis so it fits in `max_width` pixels (text longer than
/// [`MAX_LABEL_CHARS`] is cut first).
pub(crate) fn truncate_to_width(
    text: &str,
    size_px: f64,
    max_width: i32,
) -> Result<String, PlotError> {
    let text = capped(text);
    if text_width(&text, size_px)? <= max_width {
        return Ok(text.into_owned());
    }
    let chars: Vec<char> = text.chars().collect();
    let with_ellipsis = |keep: usize| -> String {
        let mut s: String = chars[..keep].iter().collect();
        s.push('\u{2026}');
        s
    };
    let keep = largest_fitting(0, chars.len().saturating_sub(1), |keep| {
        Ok(keep == 0 || text_width(&with_ellipsis(keep), size_px)? <= max_width)
    })?;
    Ok(with_ellipsis(keep))
}

/// What a legend entry shows before its text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Key {
    Swatch(RGBColor),
    Line(RGBColor, Dash),
    Marker(Marker, RGBColor),
    Arrow,
    /// No key: a continuation line, indented like the entries above it.
    Blank,
}

#[derive(Clone, Debug)]
pub(crate) struct LegendItem {
    pub key: Key,
    pub label: String,
}

const KEY_W: i32 = 22;
const KEY_GAP: i32 = 6;
const ITEM_GAP: i32 = 18;

/// A legend laid out in rows that fit a given width.
pub(crate) struct Legend {
    /// Per row: items with their x offset from the legend's left edge.
    rows: Vec<Vec<(i32, LegendItem)>>,
}

impl Legend {
    /// Flows `items` left to right, starting a new row when one would pass `max_width`.
    /// An item too wide for any row has its label shortened.
    pub(crate) fn flow(items: Vec<LegendItem>, max_width: i32) -> Result<Legend, PlotError> {
        Legend::flow_groups(vec![items], max_width)
    }

    /// Like [`Legend::flow`], each group starting on a new row.
    pub(crate) fn flow_groups(
        groups: Vec<Vec<LegendItem>>,
        max_width: i32,
    ) -> Result<Legend, PlotError> {
        let mut rows: Vec<Vec<(i32, LegendItem)>> = Vec::new();
        for items in groups {
            let mut row: Vec<(i32, LegendItem)> = Vec::new();
            let mut x = 0;
            for mut item in items {
                let room = max_width - KEY_W - KEY_GAP;
                item.label = truncate_to_width(&item.label, LABEL_PX, room)?;
                let w = KEY_W + KEY_GAP + text_width(&item.label, LABEL_PX)?;
                if !row.is_empty() && x + w > max_width {
                    rows.push(std::mem::take(&mut row));
                    x = 0;
                }
                row.push((x, item));
                x += w + ITEM_GAP;
            }
            if !row.is_empty() {
                rows.push(row);
            }
        }
        Ok(Legend { rows })
    }

    /// One item per row.
    pub(crate) fn stacked(items: Vec<LegendItem>, max_width: i32) -> Result<Legend, PlotError> {
        let mut rows = Vec::new();
        for mut item in items {
            item.label = truncate_to_width(&item.label, LABEL_PX, max_width - KEY_W - KEY_GAP)?;
            rows.push(vec![(0, item)]);
        }
        Ok(Legend { rows })
    }

    pub(crate) fn height(&self) -> i32 {
        line_height(LABEL_PX) * i32::try_from(self.rows.len()).unwrap_or(0)
    }

    /// Draws the legend with its top-left corner at `origin`.
    pub(crate) fn draw(&self, canvas: &Canvas<'_>, origin: Px) -> Result<(), PlotError> {
        let lh = line_height(LABEL_PX);
        for (r, row) in self.rows.iter().enumerate() {
            let cy = origin.1 + lh * i32::try_from(r).unwrap_or(0) + lh / 2;
            for (dx, item) in row {
                let x = origin.0 + dx;
                match item.key {
                    Key::Swatch(c) => {
                        canvas.fill_rect((x + 3, cy - 7), (x + KEY_W - 3, cy + 7), c)?
                    }
                    Key::Line(c, dash) => {
                        canvas.polyline_dashed(&[(x, cy), (x + KEY_W, cy)], c, 3, dash)?
                    }
                    Key::Marker(m, c) => canvas.marker(m, (x + KEY_W / 2, cy), 6, c)?,
                    Key::Arrow => canvas.arrow_right((x + 2, cy), KEY_W - 4, 8, BLACK)?,
                    Key::Blank => {}
                }
                canvas.text(
                    &item.label,
                    (x + KEY_W + KEY_GAP, cy),
                    LABEL_PX,
                    DARK_GREY,
                    Anchor::Start,
                    VAnchor::Center,
                )?;
            }
        }
        Ok(())
    }
}

/// A y-axis title already wrapped into `lines`, read bottom to top, its first line's left
/// edge at `x`, centred on `mid_y`.
pub(crate) fn draw_y_title(
    c: &Canvas<'_>,
    lines: &[String],
    x: i32,
    mid_y: i32,
) -> Result<(), PlotError> {
    for (i, line) in lines.iter().enumerate() {
        let x = x + line_height(LABEL_PX) * i32::try_from(i).unwrap_or(0);
        c.text_rotated(
            line,
            (x, mid_y),
            LABEL_PX,
            DARK_GREY,
            Anchor::Middle,
            VAnchor::Top,
            true,
        )?;
    }
    Ok(())
}

/// Lines of text at `px`, centred on `center_x`, the first from `top` down.
fn draw_centred(
    c: &Canvas<'_>,
    lines: &[&str],
    px: f64,
    center_x: i32,
    top: i32,
) -> Result<(), PlotError> {
    for (i, line) in lines.iter().enumerate() {
        let top = top + line_height(px) * i32::try_from(i).unwrap_or(0);
        c.text(
            line,
            (center_x, top),
            px,
            DARK_GREY,
            Anchor::Middle,
            VAnchor::Top,
        )?;
    }
    Ok(())
}

/// A figure's title lines, centred on `center_x`, the first from `top` down.
pub(crate) fn draw_title(
    c: &Canvas<'_>,
    lines: &[String],
    center_x: i32,
    top: i32,
) -> Result<(), PlotError> {
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    draw_centred(c, &lines, TITLE_PX, center_x, top)
}

/// The x-axis title, centred under the plot area from `top` down.
pub(crate) fn draw_x_title(
    c: &Canvas<'_>,
    title: &str,
    (left, right): (i32, i32),
    top: i32,
) -> Result<(), PlotError> {
    draw_centred(c, &[title], LABEL_PX, (left + right) / 2, top)
}

/// Width taken by a y-axis title of `lines`.
pub(crate) fn y_title_width(lines: &[String]) -> i32 {
    line_height(LABEL_PX) * i32::try_from(lines.len()).unwrap_or(0)
}

/// RECIST thresholds of change in the sum of diameters, with their labels.
const PD_THRESHOLD: (f64, &str) = (20.0, "+20%");
const PR_THRESHOLD: (f64, &str) = (-30.0, "\u{2212}30%");

/// Width needed right of the plot for the threshold labels.
pub(crate) fn reference_label_width() -> Result<i32, PlotError> {
    let mut w = 0;
    for (_, label) in [PD_THRESHOLD, PR_THRESHOLD] {
        w = w.max(text_width(label, TICK_PX)?);
    }
    Ok(w + 6)
}

/// Dashed lines at the RECIST thresholds across `[left, right]`, unlabelled (a panel with
/// another to its right, which carries the labels).
pub(crate) fn draw_reference_dashes(
    c: &Canvas<'_>,
    ys: &Scale,
    left: i32,
    right: i32,
) -> Result<(), PlotError> {
    for (value, _) in [PD_THRESHOLD, PR_THRESHOLD] {
        let y = ys.at(value);
        c.dashed((left, y), (right, y), DARK_GREY, 1, 6, 4)?;
    }
    Ok(())
}

/// Dashed lines at the RECIST thresholds across `[left, right]`, labelled just right of the
/// plot; labels closer than a line apart are pushed apart.
pub(crate) fn draw_reference_lines(
    c: &Canvas<'_>,
    ys: &Scale,
    left: i32,
    right: i32,
) -> Result<(), PlotError> {
    let lh = line_height(TICK_PX);
    let (y_up, y_down) = (ys.at(PD_THRESHOLD.0), ys.at(PR_THRESHOLD.0));
    let short = (lh - (y_down - y_up)).max(0);
    let labelled = [
        (PD_THRESHOLD, y_up - (short + 1) / 2),
        (PR_THRESHOLD, y_down + (short + 1) / 2),
    ];
    for ((value, label), ly) in labelled {
        let y = ys.at(value);
        c.dashed((left, y), (right, y), DARK_GREY, 1, 6, 4)?;
        c.text(
            label,
            (right + 6, ly),
            TICK_PX,
            DARK_GREY,
            Anchor::Start,
            VAnchor::Center,
        )?;
    }
    Ok(())
}

/// Length of an axis tick mark, in pixels.
pub(crate) const TICK_LEN: i32 = 5;

/// The y axis at `left` and the x axis at `plot_bottom`, as one L.
pub(crate) fn draw_axes(
    c: &Canvas<'_>,
    (left, right): (i32, i32),
    (plot_top, plot_bottom): (i32, i32),
) -> Result<(), PlotError> {
    c.line((left, plot_top), (left, plot_bottom), DARK_GREY, 1)?;
    c.line((left, plot_bottom), (right, plot_bottom), DARK_GREY, 1)
}

/// The axes as one L ([`draw_axes`]) with the x axis's ticks ([`draw_x_ticks`]).
pub(crate) fn draw_axes_and_x_ticks(
    c: &Canvas<'_>,
    xs: &Scale,
    (ticks, decimals): (&[f64], usize),
    (left, right): (i32, i32),
    (plot_top, plot_bottom): (i32, i32),
    label_top: i32,
) -> Result<(), PlotError> {
    draw_axes(c, (left, right), (plot_top, plot_bottom))?;
    draw_x_ticks(c, xs, ticks, decimals, plot_bottom, label_top)
}

/// Tick marks and labels under the x axis at `plot_bottom`, labels from `label_top` down.
pub(crate) fn draw_x_ticks(
    c: &Canvas<'_>,
    xs: &Scale,
    ticks: &[f64],
    decimals: usize,
    plot_bottom: i32,
    label_top: i32,
) -> Result<(), PlotError> {
    for t in ticks {
        let x = xs.at(*t);
        c.line((x, plot_bottom), (x, plot_bottom + TICK_LEN), DARK_GREY, 1)?;
        c.text(
            &format_tick(*t, decimals),
            (x, label_top),
            TICK_PX,
            DARK_GREY,
            Anchor::Middle,
            VAnchor::Top,
        )?;
    }
    Ok(())
}

/// Tick marks and right-aligned labels left of the y axis at `left`.
pub(crate) fn draw_y_ticks(
    c: &Canvas<'_>,
    ys: &Scale,
    ticks: &[f64],
    decimals: usize,
    left: i32,
) -> Result<(), PlotError> {
    for t in ticks {
        let y = ys.at(*t);
        c.line((left - TICK_LEN, y), (left, y), DARK_GREY, 1)?;
        c.text(
            &format_tick(*t, decimals),
            (left - TICK_LEN - 4, y),
            TICK_PX,
            DARK_GREY,
            Anchor::End,
            VAnchor::Center,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plots::style::SMALL_PX;

    #[test]
    fn tick_labels() {
        assert_eq!(format_tick(-30.0, 0), "\u{2212}30");
        assert_eq!(format_tick(-0.0001, 1), "0.0");
        assert_eq!(format_tick(0.25, decimals_for(0.25)), "0.25");
        assert_eq!(decimals_for(6.0), 0);
        assert_eq!(ticks(0.0, 1.0, 0.2).len(), 6);
        assert_eq!(ticks(-100.0, 40.0, 20.0).first().copied(), Some(-100.0));
        assert!(ticks(0.0, 1.0, 0.0).is_empty());
    }

    /// A megabyte without a space (a data value may be as long as a row) is laid out from
    /// its first characters and an ellipsis; as the old character-by-character search would
    /// have found, every line fits and a shortened label is as long as fits.
    #[test]
    fn labels_of_any_length_are_capped_before_layout() {
        let huge = "A".repeat(1 << 20);
        let lines = wrap_text(&huge, TICK_PX, 250).unwrap();
        let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
        assert_eq!(chars, MAX_LABEL_CHARS);
        assert!(lines.last().unwrap().ends_with('\u{2026}'));
        for l in &lines {
            assert!(text_width(l, TICK_PX).unwrap() <= 250, "{l}");
        }
        let short = truncate_to_width(&huge, SMALL_PX, 80).unwrap();
        assert!(short.ends_with('\u{2026}'));
        assert!(text_width(&short, SMALL_PX).unwrap() <= 80);
        let one_more = format!("{}A\u{2026}", short.trim_end_matches('\u{2026}'));
        assert!(text_width(&one_more, SMALL_PX).unwrap() > 80);
        assert_eq!(truncate_to_width("short", SMALL_PX, 80).unwrap(), "short");
    }

    #[test]
    fn wrapping_keeps_every_line_within_width() {
        let text = "Gamma-glutamyltransferase increased in subjects with Supercalifragilisticexpialidocious";
        let lines = wrap_text(text, SMALL_PX, 90).unwrap();
        assert!(lines.len() > 2);
        for l in &lines {
            assert!(text_width(l, SMALL_PX).unwrap() <= 90, "{l}");
        }
        let joined: String = lines
            .concat()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let original: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(joined, original);
    }

    #[test]
    fn truncation_fits() {
        let s = truncate_to_width("A very long cohort label indeed", SMALL_PX, 80).unwrap();
        assert!(s.ends_with('\u{2026}'));
        assert!(text_width(&s, SMALL_PX).unwrap() <= 80);
    }
}
