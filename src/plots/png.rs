//! Rasterising a figure's SVG to PNG with resvg, using only the embedded font so the pixels do
//! not depend on the fonts installed on the machine.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{fontdb, Options, Tree};

use super::style::{FONT_BYTES, FONT_NAME};
use super::PlotError;

/// Largest PNG side, in pixels: a guard against a scale that would exhaust memory.
const MAX_SIDE: f32 = 16_384.0;

/// A font database holding the embedded font only, built once. Every generic family maps to
/// it, so any `font-family` an SVG names resolves to the same glyphs.
fn font_db() -> Arc<fontdb::Database> {
    static DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_font_data(FONT_BYTES.to_vec());
        db.set_sans_serif_family(FONT_NAME);
        db.set_serif_family(FONT_NAME);
        db.set_monospace_family(FONT_NAME);
        db.set_cursive_family(FONT_NAME);
        db.set_fantasy_family(FONT_NAME);
        Arc::new(db)
    })
    .clone()
}

/// Rasterises an SVG (one of this module's figures, or any SVG) to PNG bytes, `scale` device
/// pixels per SVG pixel (2.0 gives 320 dpi for a 560-px-wide figure printed 3.5 in wide).
///
/// Errors: [`PlotError::InvalidInput`] for a scale that is not positive and finite or would
/// make an image wider or taller than 16 384 pixels; [`PlotError::Raster`] when the SVG does
/// not parse or the PNG cannot be encoded.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PlotError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(PlotError::InvalidInput(format!(
            "PNG scale must be a positive number, not {scale}"
        )));
    }
    let options = Options {
        font_family: FONT_NAME.to_string(),
        fontdb: font_db(),
        ..Options::default()
    };
    let tree = Tree::from_str(svg, &options).map_err(|e| PlotError::Raster(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil(),
        (size.height() * scale).ceil(),
    );
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(PlotError::InvalidInput(format!(
            "a PNG of {w} x {h} pixels is too large; use a smaller scale"
        )));
    }
    let mut pixmap = Pixmap::new(w.max(1.0) as u32, h.max(1.0) as u32)
        .ok_or_else(|| PlotError::Raster(format!("cannot allocate a {w} x {h} image")))?;
    resvg::render(
        &tree,
        Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    encode_png(&pixmap)
}

/// PNG bytes of a pixmap, compressed for speed: tiny-skia's own encoder uses the default
/// (slow) deflate level, which took most of a figure's time; a figure's flat colours compress
/// well even at the fast level.
///
/// tiny-skia keeps colours premultiplied by alpha and PNG wants them straight; for an opaque
/// image (every figure has a white background) the two are the same bytes, so the pixels are
/// encoded as they are (converting them pixel by pixel was an eighth of the PNG time).
fn encode_png(pixmap: &Pixmap) -> Result<Vec<u8>, PlotError> {
    let data = pixmap.data();
    // Every alpha byte 255: AND all 8-byte words (two pixels each; no early exit, so the
    // loop vectorises), then look at the alpha bytes of the result and of an odd last pixel.
    const ALPHA: u64 = u64::from_le_bytes([0, 0, 0, 0xff, 0, 0, 0, 0xff]);
    let words = data.chunks_exact(8);
    let last = words.remainder();
    let all = words.fold(u64::MAX, |acc, w| {
        let mut le = [0u8; 8];
        le.copy_from_slice(w);
        acc & u64::from_le_bytes(le)
    });
    let opaque = all & ALPHA == ALPHA && last.get(3).is_none_or(|&a| a == u8::MAX);
    let rgba: std::borrow::Cow<'_, [u8]> = if opaque {
        std::borrow::Cow::Borrowed(data)
    } else {
        let mut rgba = Vec::with_capacity(data.len());
        for pixel in pixmap.pixels() {
            let c = pixel.demultiply();
            rgba.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
        }
        std::borrow::Cow::Owned(rgba)
    };
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder
            .write_header()
            .map_err(|e| PlotError::Raster(e.to_string()))?;
        writer
            .write_image_data(&rgba)
            .map_err(|e| PlotError::Raster(e.to_string()))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_scale_and_bad_svg() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#;
        assert!(matches!(
            svg_to_png(svg, 0.0),
            Err(PlotError::InvalidInput(_))
        ));
        assert!(matches!(
            svg_to_png(svg, f32::NAN),
            Err(PlotError::InvalidInput(_))
        ));
        assert!(matches!(
            svg_to_png(svg, 5000.0),
            Err(PlotError::InvalidInput(_))
        ));
        assert!(matches!(svg_to_png("<svg", 1.0), Err(PlotError::Raster(_))));
        let png = svg_to_png(svg, 2.0).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
    }

    /// Pixel `i` (row by row) of a PNG, as straight (not premultiplied) RGBA.
    fn pixel(png: &[u8], i: usize) -> [u8; 4] {
        let mut reader = png::Decoder::new(png).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        assert_eq!(reader.info().color_type, png::ColorType::Rgba);
        [buf[4 * i], buf[4 * i + 1], buf[4 * i + 2], buf[4 * i + 3]]
    }

    #[test]
    fn colours_are_straight_rgba_for_opaque_and_translucent_figures() {
        let rect = |opacity: &str| {
            format!(
                r##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="#ff8000" fill-opacity="{opacity}"/></svg>"##
            )
        };
        // Opaque: the pixels go to the encoder as they are.
        assert_eq!(
            pixel(&svg_to_png(&rect("1"), 1.0).unwrap(), 0),
            [255, 128, 0, 255]
        );
        // Half transparent: premultiplied (128, 64, 0) must come out as (255, 128, 0).
        let [r, g, b, a] = pixel(&svg_to_png(&rect("0.5"), 1.0).unwrap(), 0);
        assert_eq!((r, b), (255, 0));
        assert!(
            (127..=129).contains(&g) && (127..=129).contains(&a),
            "{g} {a}"
        );
        // An odd number of pixels, only the last one translucent.
        let odd = r##"<svg xmlns="http://www.w3.org/2000/svg" width="3" height="1"><rect width="2" height="1" fill="#ff8000"/><rect x="2" width="1" height="1" fill="#ff8000" fill-opacity="0.5"/></svg>"##;
        let png = svg_to_png(odd, 1.0).unwrap();
        assert_eq!(pixel(&png, 0), [255, 128, 0, 255]);
        let [r, g, b, a] = pixel(&png, 2);
        assert_eq!((r, b), (255, 0));
        assert!(
            (127..=129).contains(&g) && (127..=129).contains(&a),
            "{g} {a}"
        );
    }
}
