//! Figures as deterministic SVG: Kaplan–Meier curves with a number-at-risk table, waterfall,
//! swimmer and spider plots of tumour response, adverse-event bar charts, and forest plots of
//! subgroup hazard ratios; plus rasterisation of any of them to PNG.
//!
//! Every figure is a pure function from the plain input types defined here (the pipeline adapts
//! its results to them) to an SVG string. The same input gives byte-identical output on any
//! machine: text is measured with the embedded DejaVu Sans and PNGs are rendered with only that
//! font. Colours are Okabe–Ito (colour-blind safe); sizes are chosen to stay readable when the
//! figure is printed one column (~3.5 in) wide.
//!
//! What this module does not do: compute statistics (Kaplan–Meier estimates, best responses and
//! percentages of change arrive computed), decide which figures a report has, or write files.
//! Empty input is [`PlotError::NoData`] so the caller can skip the figure with a note.

mod ae;
mod ae_dot;
mod axis;
mod boxes;
mod canvas;
mod deflate;
mod forest;
mod glyphs;
mod km;
mod png;
mod shapes;
mod spider;
mod style;
mod swimmer;
mod waterfall;

pub use ae::{ae_bars, ae_bars_by_arm, ae_bars_labelled, AeArm, AeBar};
pub use ae_dot::{ae_dot, AeDotRow};
pub use forest::{forest, forest_of, ForestRow, Ratio};
pub use glyphs::{glyph_drawn_texts, pixel_filled_shapes};
pub use km::{km_plot, number_at_risk, KmPlotOptions, KmPoint, KmSeries, KmTableRow};
pub use png::{drawn_in_bands, figure_png, svg_to_png, PNG_SCALE};
pub use spider::{spider, SpiderLine};
pub use swimmer::{swimmer, swimmer_by_arm, SwimArm, SwimLane};
pub use waterfall::{waterfall, waterfall_by_arm, WaterfallArm, WaterfallBar};

/// The width of `text` in ems of the figures' font (DejaVu Sans): its width at any size is
/// this times the size. For laying out text outside figures (the poster); 0 if the embedded
/// font cannot be read.
pub fn text_em(text: &str) -> f64 {
    style::text_width(text, 100.0).map_or(0.0, |w| f64::from(w) / 100.0)
}

/// The tests' pseudo-random numbers (xorshift from `seed`): the same scenes and streams on
/// every run.
#[cfg(test)]
fn test_random(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Why a figure could not be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlotError {
    /// Nothing to plot (no series, subjects or terms); the caller skips the figure.
    #[error("no data to plot")]
    NoData,
    /// The input cannot be drawn as given (a non-finite number, a survival probability outside
    /// [0, 1], more subjects with an event than in the population, ...).
    #[error("invalid figure input: {0}")]
    InvalidInput(String),
    /// plotters failed while drawing.
    #[error("failed to draw the figure: {0}")]
    Render(String),
    /// The SVG could not be parsed or rasterised to PNG.
    #[error("failed to rasterise the figure: {0}")]
    Raster(String),
}

/// Checks that a number from the input is finite, naming it in the error otherwise.
fn finite(value: f64, what: impl FnOnce() -> String) -> Result<f64, PlotError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(PlotError::InvalidInput(format!("{} is {value}", what())))
    }
}

/// The x-axis title for a time axis in `time_unit` ("Months" → "Time (months)").
fn time_axis_title(time_unit: &str) -> String {
    let unit = time_unit.trim();
    if unit.is_empty() {
        "Time".to_string()
    } else {
        format!("Time ({})", unit.to_lowercase())
    }
}
