//! The look shared by every figure: the embedded font, text sizes, the Okabe–Ito palette and
//! the colour of each RECIST response.
//!
//! Sizes are SVG pixels for a canvas about 560 px wide, which is printed at one column
//! (~3.5 in, 252 pt): 1 px ≈ 0.45 pt, so 14 px text is ~6.3 pt and 17 px text ~7.7 pt.

use std::sync::OnceLock;

use plotters::style::{register_font, FontDesc, FontFamily, FontStyle, RGBColor};

use crate::model::{Response, ResponseCategory};

use super::PlotError;

/// DejaVu Sans, compiled in so text metrics never depend on the machine's fonts.
pub(crate) const FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The family name the font is registered under in plotters, written as-is into every
/// `font-family` attribute. It is a CSS fallback list so that a browser without DejaVu Sans
/// picks a narrower sans-serif (never a wider one), keeping labels inside the canvas.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans, Arial, sans-serif";

/// The family resvg finds in its (embedded-only) font database.
pub(crate) const FONT_NAME: &str = "DejaVu Sans";

/// plotters writes `font-size = size / 1.24` into the SVG; sizes here are the SVG values.
const PLOTTERS_FONT_SCALE: f64 = 1.24;

/// Figure title.
pub(crate) const TITLE_PX: f64 = 20.0;
/// Axis titles and legend entries.
pub(crate) const LABEL_PX: f64 = 17.0;
/// Tick labels and the number-at-risk table.
pub(crate) const TICK_PX: f64 = 16.0;
/// Dense labels: subject ids on swimmer lanes, values at bar ends.
pub(crate) const SMALL_PX: f64 = 14.0;

/// Canvas width of every figure (wider only when there are more bars than pixels).
pub(crate) const CANVAS_WIDTH: i32 = 560;
/// Outer padding of the canvas.
pub(crate) const PAD: i32 = 10;

pub(crate) const WHITE: RGBColor = RGBColor(255, 255, 255);
pub(crate) const BLACK: RGBColor = RGBColor(0, 0, 0);
/// Axis lines, reference lines and secondary text.
pub(crate) const DARK_GREY: RGBColor = RGBColor(0x4D, 0x4D, 0x4D);
pub(crate) const GREY: RGBColor = RGBColor(0x99, 0x99, 0x99);

// Okabe & Ito (2008), "Color Universal Design": distinguishable with every common form of
// colour-vision deficiency.
pub(crate) const OI_ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub(crate) const OI_SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
pub(crate) const OI_GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
pub(crate) const OI_BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub(crate) const OI_VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
pub(crate) const OI_PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);

/// Colours for cohorts/arms, in order. Okabe–Ito yellow is left out: curves and the coloured
/// risk-table labels would be unreadable on white.
const SERIES_COLOURS: [RGBColor; 7] = [
    OI_BLUE,
    OI_VERMILLION,
    OI_GREEN,
    OI_PURPLE,
    OI_ORANGE,
    OI_SKY_BLUE,
    BLACK,
];

/// The colour of the `index`-th series (cycling when there are more series than colours;
/// [`series_dash`] tells the rounds apart).
pub(crate) fn series_colour(index: usize) -> RGBColor {
    SERIES_COLOURS
        .get(index % SERIES_COLOURS.len())
        .copied()
        .unwrap_or(BLACK)
}

/// How the `index`-th series' line is drawn: solid for the first round of colours, dashed for
/// the second, dotted for the third, so that 21 curves (more than the 20 a figure holds) are
/// told apart by colour and line together.
pub(crate) fn series_dash(index: usize) -> Dash {
    match (index / SERIES_COLOURS.len()) % 3 {
        0 => Dash::Solid,
        1 => Dash::Dashed,
        _ => Dash::Dotted,
    }
}

/// A line's pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dash {
    /// Unbroken.
    Solid,
    /// Dashes of 8 px, 4 px apart.
    Dashed,
    /// Dashes of 2 px, 3 px apart.
    Dotted,
}

impl Dash {
    /// Dash and gap lengths in pixels; `None` for a solid line.
    pub(crate) fn pattern(self) -> Option<(f64, f64)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((8.0, 4.0)),
            Dash::Dotted => Some((2.0, 3.0)),
        }
    }
}

/// `colour` lightened towards white, keeping `share` (0 to 1) of it: a paler shade of the
/// same hue for a bar drawn behind its darker part.
pub(crate) fn tint(colour: RGBColor, share: f64) -> RGBColor {
    let mix = |c: u8| (f64::from(c) * share + 255.0 * (1.0 - share)).round() as u8;
    RGBColor(mix(colour.0), mix(colour.1), mix(colour.2))
}

/// Registers the embedded font with plotters once per process.
pub(crate) fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| register_font(FONT_FAMILY, FontStyle::Normal, FONT_BYTES).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Render(
            "the embedded DejaVu Sans font could not be parsed".to_string(),
        ))
    }
}

/// The plotters font for text that shows `size_px` high in the SVG.
pub(crate) fn font(size_px: f64) -> FontDesc<'static> {
    FontDesc::new(
        FontFamily::Name(FONT_FAMILY),
        size_px * PLOTTERS_FONT_SCALE,
        FontStyle::Normal,
    )
}

/// Width of `text` in SVG pixels. It errs on the wide side (by ~6%), which is the safe side
/// for keeping labels apart and inside the canvas.
pub(crate) fn text_width(text: &str, size_px: f64) -> Result<i32, PlotError> {
    ensure_font()?;
    let (w, _) = font(size_px)
        .box_size(text)
        .map_err(|e| PlotError::Render(format!("cannot measure text: {e}")))?;
    Ok(i32::try_from(w).unwrap_or(i32::MAX))
}

/// Height of one line of text of `size_px`, with leading.
pub(crate) fn line_height(size_px: f64) -> i32 {
    (size_px * 1.3).round() as i32
}

/// The colour a response category is drawn in: RECIST's in the Okabe–Ito palette; another
/// built-in criteria's in the colour of the RECIST category it stands nearest to (darker shades
/// where both may sit in one legend); anything else purple.
pub(crate) fn response_colour(category: &ResponseCategory) -> RGBColor {
    use ResponseCategory::{Known, Like, Other};
    match category {
        Known(Response::CompleteResponse) => OI_BLUE,
        Known(Response::PartialResponse) => OI_SKY_BLUE,
        Known(Response::StableDisease) => OI_ORANGE,
        Known(Response::NonCrNonPd) => OI_GREEN,
        Known(Response::ProgressiveDisease) => OI_VERMILLION,
        Known(Response::NotEvaluable) => GREY,
        Known(Response::NotDone) => RGBColor(0xCC, 0xCC, 0xCC),
        Like(Response::CompleteResponse, code) if *code != "iCR" => RGBColor(0x00, 0x3F, 0x6B),
        // A dark teal: told apart from CR's blue, PR's sky blue and NON-CR/NON-PD's green.
        Like(Response::PartialResponse, "VGPR") => RGBColor(0x11, 0x7A, 0x65),
        Like(Response::StableDisease, "MR") => RGBColor(0xF0, 0xE4, 0x42),
        // Lugano's PET categories beside their CT ones: darker shades.
        Like(Response::PartialResponse, "PMR") => RGBColor(0x1F, 0x86, 0xB8),
        Like(Response::StableDisease, "NMR") => RGBColor(0xB0, 0x6A, 0x00),
        Like(Response::ProgressiveDisease, "PMD") => RGBColor(0x99, 0x2A, 0x00),
        // An unconfirmed progression is not yet one: reddish purple.
        Like(Response::ProgressiveDisease, "iUPD") => RGBColor(0xCC, 0x79, 0xA7),
        Like(r, _) => response_colour(&Known(*r)),
        Other(_) => OI_PURPLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legends_read_in_the_criteria_order_with_colours_apart() {
        let order = |codes: &[&str]| {
            let mut keys: Vec<ResponseCategory> =
                codes.iter().map(|c| ResponseCategory::parse(c)).collect();
            keys.sort();
            keys.iter().map(ResponseCategory::label).collect::<Vec<_>>()
        };
        assert_eq!(
            order(&["PD", "NE", "SD", "MR", "PR", "VGPR", "CR", "sCR"]),
            ["sCR", "CR", "VGPR", "PR", "MR", "SD", "PD", "NE"]
        );
        assert_eq!(
            order(&["NE", "PD", "PMD", "SD", "NMR", "PR", "PMR", "CR", "CMR"]),
            ["CMR", "CR", "PMR", "PR", "NMR", "SD", "PMD", "PD", "NE"]
        );
        assert_eq!(order(&["iCPD", "iUPD", "iSD"]), ["iSD", "iUPD", "iCPD"]);
        // IMWG's blues are told apart: no two of its colours within 60 of each other (sum of
        // channel differences).
        let imwg: Vec<RGBColor> = ["sCR", "CR", "VGPR", "PR", "MR", "SD", "PD"]
            .iter()
            .map(|c| response_colour(&ResponseCategory::parse(c)))
            .collect();
        for (i, a) in imwg.iter().enumerate() {
            for b in &imwg[i + 1..] {
                let d = (a.0 as i32 - b.0 as i32).abs()
                    + (a.1 as i32 - b.1 as i32).abs()
                    + (a.2 as i32 - b.2 as i32).abs();
                assert!(d >= 60, "{a:?} and {b:?} too close");
            }
        }
    }

    #[test]
    fn font_registers_and_measures() {
        let narrow = text_width("1", TICK_PX).unwrap();
        let wide = text_width("100", TICK_PX).unwrap();
        assert!(narrow > 0 && wide > 2 * narrow);
    }

    #[test]
    fn responses_have_distinct_colours() {
        let keys = ["CR", "PR", "SD", "NON-CR/NON-PD", "PD", "NE", "", "weird"];
        let colours: Vec<_> = keys
            .iter()
            .map(|k| response_colour(&ResponseCategory::parse(k)))
            .collect();
        for (i, a) in colours.iter().enumerate() {
            for b in colours.iter().skip(i + 1) {
                assert_ne!(a, b);
            }
        }
        assert_eq!(ResponseCategory::parse(" pr ").label(), "PR");
    }

    #[test]
    fn each_criteria_set_draws_its_categories_in_distinct_colours() {
        // as-given is the union of the others: iCR and CR mean the same there.
        for id in crate::criteria::BUILT_IN
            .iter()
            .filter(|id| **id != "as-given")
        {
            let set = crate::criteria::Criteria::built_in(id).unwrap();
            let keys: Vec<ResponseCategory> = set
                .reported()
                .map(|c| ResponseCategory::parse(&c.code))
                .collect();
            assert!(
                keys.iter()
                    .all(|k| !matches!(k, ResponseCategory::Other(_))),
                "{id}"
            );
            let colours: Vec<_> = keys.iter().map(response_colour).collect();
            for (i, a) in colours.iter().enumerate() {
                for b in colours.iter().skip(i + 1) {
                    assert_ne!(a, b, "{id}");
                }
            }
        }
        assert_eq!(ResponseCategory::parse("vgpr").label(), "VGPR");
    }
}
