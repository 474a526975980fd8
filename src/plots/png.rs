//! Rasterising a figure's SVG to PNG with resvg, using only the embedded font so the pixels do
//! not depend on the fonts installed on the machine.

use std::cell::RefCell;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{PixmapMut, PremultipliedColorU8, Transform};
use resvg::usvg::{fontdb, Options, Tree};

use super::glyphs::{self, Background};
use super::style::{FONT_BYTES, FONT_NAME};
use super::PlotError;

/// Device pixels per SVG pixel of the figures' PNG files and of the figures in Word files:
/// twice their SVG size, for print (320 dpi for a 560-pixel figure printed 3.5 in wide).
pub const PNG_SCALE: f32 = 2.0;

/// Largest PNG side, in pixels: a guard against a scale that would exhaust memory.
const MAX_SIDE: f32 = 16_384.0;

/// Largest buffer a thread keeps for its next image (64 MiB: a figure at scale 2 takes about
/// 5 MiB of pixels); a larger one is given back after use.
const KEEP_BYTES: usize = 64 << 20;

/// Capacity a thread's pixel buffer is first given (16 MiB: any figure up to 4 megapixels), so
/// that a larger figure after a smaller one does not take a new buffer: only the pages an
/// image touches are ever backed, and each new buffer was fresh memory to fault in.
const PIXELS_RESERVED: usize = 16 << 20;

/// Buffers reused from one image to the next on a thread. A fresh buffer per figure (and the
/// compressed stream grown by doubling) is fresh memory the kernel must fault in and zero,
/// which cost as much as drawing the figure; a build's threads rasterise figure after figure.
#[derive(Default)]
struct Scratch {
    /// The image's pixels, premultiplied RGBA, then straight RGBA for the encoder.
    pixels: Vec<u8>,
    /// The zlib stream of the filtered rows.
    zlib: Vec<u8>,
}

impl Scratch {
    /// Gives back any buffer grown past [`KEEP_BYTES`].
    fn trim(&mut self) {
        for buf in [&mut self.pixels, &mut self.zlib] {
            if buf.capacity() > KEEP_BYTES {
                *buf = Vec::new();
            }
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

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
/// Plain text is drawn from cached glyph masks (see the `glyphs` module): the glyphs resvg
/// would draw, placed to an eighth of a device pixel; text outside that module's plain subset
/// is drawn by resvg.
///
/// Errors: [`PlotError::InvalidInput`] for a scale that is not positive and finite or would
/// make an image wider or taller than 16 384 pixels; [`PlotError::Raster`] when the SVG does
/// not parse or the PNG cannot be encoded.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PlotError> {
    rasterise(svg, scale, false, true)
}

/// A figure's PNG for its file and the Word report: [`svg_to_png`] at [`PNG_SCALE`], or, for a
/// figure too tall or wide for that (an adverse-event chart of many long terms), at the
/// largest scale that keeps it within 16 384 pixels, rather than failing the cohort.
pub fn figure_png(svg: &str) -> Result<Vec<u8>, PlotError> {
    rasterise(svg, PNG_SCALE, true, true)
}

/// [`svg_to_png`]; with `fit`, a smaller scale where `scale` would pass [`MAX_SIDE`]; with
/// `glyph_text` false, every text drawn by resvg.
fn rasterise(svg: &str, mut scale: f32, fit: bool, glyph_text: bool) -> Result<Vec<u8>, PlotError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(PlotError::InvalidInput(format!(
            "PNG scale must be a positive number, not {scale}"
        )));
    }
    let options = options();
    let take_at = |scale: f32| take(svg, scale, glyph_text, &options);
    let (mut drawing, size) = take_at(scale)?;
    let side = size.0.max(size.1);
    if fit && side * scale > MAX_SIDE {
        // A hair under the limit, so that rounding up cannot pass it; the shapes taken out
        // are taken again for their edges at this scale.
        scale = MAX_SIDE / side * (1.0 - 1e-6);
        (drawing, _) = take_at(scale)?;
    }
    let (w, h) = pixel_size(size, scale)?;
    let len = (w as usize)
        .checked_mul(h as usize)
        .and_then(|n| n.checked_mul(4))
        .ok_or_else(|| PlotError::Raster(format!("cannot allocate a {w} x {h} image")))?;
    SCRATCH.with_borrow_mut(|scratch| {
        // A background covering every pixel is filled here (premultiplied opaque colour is the
        // colour itself) and its element skipped; otherwise transparent black, as a new pixmap
        // starts. A buffer too small is replaced, not grown: growing would copy its old pixels
        // and then clear them.
        let background = covering(&drawing, scale, w, h);
        if let Some((items, colour)) = in_bands(&drawing, scale, w, h) {
            if let Some(png) = rasterise_banded(scratch, &items, colour, w, h)? {
                scratch.trim();
                return Ok(png);
            }
        }
        if scratch.pixels.capacity() < len {
            scratch.pixels = Vec::with_capacity(len.max(PIXELS_RESERVED));
        }
        scratch.pixels.clear();
        match background {
            Some(b) if b.colour == [u8::MAX; 3] => scratch.pixels.resize(len, u8::MAX),
            Some(b) => {
                let [r, g, b] = b.colour;
                scratch
                    .pixels
                    .extend(std::iter::repeat_n([r, g, b, u8::MAX], len / 4).flatten());
            }
            None => scratch.pixels.resize(len, 0),
        }
        let mut pixmap = PixmapMut::from_bytes(&mut scratch.pixels, w, h)
            .ok_or_else(|| PlotError::Raster(format!("cannot allocate a {w} x {h} image")))?;
        let filled = background.is_some();
        match &drawing {
            Drawing::Whole(tree) => {
                resvg::render(tree, Transform::from_scale(scale, scale), &mut pixmap)
            }
            Drawing::Split(split, Some(tree)) => {
                render_split(tree, split, scale, filled, &mut pixmap)
            }
            // Nothing left paints but a background the pixels do not already hold.
            Drawing::Split(split, None) if split.background.is_some() && !filled => {
                let tree = parse(&split.svg, &options)?;
                render_split(&tree, split, scale, false, &mut pixmap)
            }
            Drawing::Split(split, None) => glyphs::draw(&split.items, scale, &mut pixmap),
        }
        let png = encode_png(scratch, w, h);
        scratch.trim();
        png
    })
}

/// Options for usvg: the embedded font for every family.
fn options() -> Options<'static> {
    Options {
        font_family: FONT_NAME.to_string(),
        fontdb: font_db(),
        ..Options::default()
    }
}

/// What `svg` is drawn from at `scale` (split when `glyph_text` and the glyph path can take
/// it), and the root's size.
fn take(
    svg: &str,
    scale: f32,
    glyph_text: bool,
    options: &Options,
) -> Result<(Drawing, (f32, f32)), PlotError> {
    let Some(split) = glyph_text.then(|| glyphs::split(svg, scale)).flatten() else {
        let tree = parse(svg, options)?;
        let size = (tree.size().width(), tree.size().height());
        return Ok((Drawing::Whole(tree), size));
    };
    if let Some(size) = split.only_taken {
        return Ok((Drawing::Split(split, None), size));
    }
    let tree = parse(&split.svg, options)?;
    let size = (tree.size().width(), tree.size().height());
    Ok((Drawing::Split(split, Some(tree)), size))
}

/// usvg's tree of `source`.
fn parse(source: &str, options: &Options) -> Result<Tree, PlotError> {
    Tree::from_str(source, options).map_err(|e| PlotError::Raster(e.to_string()))
}

/// A split figure's background when it covers every pixel of the `width` × `height` image.
fn covering(drawing: &Drawing, scale: f32, width: u32, height: u32) -> Option<Background> {
    match drawing {
        Drawing::Split(split, _) => split.background,
        Drawing::Whole(_) => None,
    }
    .filter(|b| b.width * scale >= width as f32 && b.height * scale >= height as f32)
}

/// What is drawn a band of rows at a time ([`rasterise_banded`]), and over which background
/// colour: a split figure over an opaque background whose items, and shapes left to usvg if
/// any ([`glyphs::prepare_bands`]), can all be drawn so.
fn in_bands<'a>(
    drawing: &'a Drawing,
    scale: f32,
    width: u32,
    height: u32,
) -> Option<(Vec<glyphs::Banded<'a>>, [u8; 3])> {
    let colour = covering(drawing, scale, width, height)?.colour;
    let Drawing::Split(split, tree) = drawing else {
        return None;
    };
    let items = glyphs::prepare_bands(split, tree.as_ref(), scale, width, height)?;
    Some((items, colour))
}

/// Whether [`figure_png`] draws `svg` a band of rows at a time, never holding the whole image
/// (unless its rows would be stored rather than compressed): a test keeps this crate's
/// figures on that path, but for the spider plot, whose long lines are drawn whole.
pub fn drawn_in_bands(svg: &str) -> bool {
    let Ok((drawing, size)) = take(svg, PNG_SCALE, true, &options()) else {
        return false;
    };
    let Ok((w, h)) = pixel_size(size, PNG_SCALE) else {
        return false;
    };
    in_bands(&drawing, PNG_SCALE, w, h).is_some()
}

/// The image's width and height in pixels for a root of `size` at `scale` (at least one
/// each); an error past [`MAX_SIDE`].
fn pixel_size(size: (f32, f32), scale: f32) -> Result<(u32, u32), PlotError> {
    let (w, h) = ((size.0 * scale).ceil(), (size.1 * scale).ceil());
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(PlotError::InvalidInput(format!(
            "a PNG of {w} x {h} pixels is too large; use a smaller scale"
        )));
    }
    Ok((w.max(1.0) as u32, h.max(1.0) as u32))
}

/// What a figure is drawn from: usvg's tree of the whole SVG, or the SVG split
/// ([`glyphs::split`]) with usvg's tree of what is left, none when nothing left paints.
enum Drawing {
    Whole(Tree),
    Split(glyphs::Split, Option<Tree>),
}

/// Renders an SVG whose plain texts and shapes were taken out ([`glyphs::split`]): the groups
/// of other elements by resvg, each item taken after the group it followed, so the painting
/// order is kept;
/// with `filled`, the background group is skipped (its colour is already in the pixels).
fn render_split(
    tree: &Tree,
    split: &glyphs::Split,
    scale: f32,
    filled: bool,
    pixmap: &mut PixmapMut,
) {
    let root = Transform::from_scale(scale, scale);
    let mut items = &split.items[..];
    for node in tree.root().children() {
        if filled && node.id() == glyphs::BACKGROUND_ID {
            continue;
        }
        if let Some(run) = glyphs::run_index(node) {
            let before = items.partition_point(|t| t.before_run <= run);
            glyphs::draw(&items[..before], scale, pixmap);
            items = &items[before..];
        }
        // resvg draws a node at its bounding box's corner; undo that shift.
        if let Some(bbox) = node.abs_layer_bounding_box() {
            resvg::render_node(node, root.pre_translate(bbox.x(), bbox.y()), pixmap);
        }
    }
    glyphs::draw(items, scale, pixmap);
}

/// PNG bytes of the pixels in `scratch` (`width` × `height`, premultiplied RGBA), compressed
/// for speed: rows filtered with PNG's Sub filter (each byte less the same byte of the pixel
/// to its left: a figure's flat colours become runs of zeros), then deflated at fdeflate's
/// fast level, or stored unfiltered when that would not shrink them. This is what the png
/// crate does at its fast level, written out here so that each row is filtered as it is
/// compressed ([`super::deflate::Compressor::write_sub_row`]) into a stream reused from figure
/// to figure (the crate grows a new one per image); its writer still frames the chunks.
///
/// tiny-skia keeps colours premultiplied by alpha and PNG wants them straight; for an opaque
/// image (every figure has a white background) the two are the same bytes, so only a
/// translucent image is converted, in place.
fn encode_png(scratch: &mut Scratch, width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    let raster = |e: std::io::Error| PlotError::Raster(e.to_string());
    let Scratch { pixels, zlib } = scratch;
    let stride = width as usize * 4;
    zlib.clear();
    let mut compressor = super::deflate::Compressor::new(zlib);
    for line in pixels.chunks_exact_mut(stride) {
        demultiply(line);
        compressor.write_sub_row(line);
    }
    compressor.finish();
    // As the png crate does: when the fast level does not shrink the rows (noise, photographs),
    // store them unfiltered instead.
    if !shrunk(zlib, stride, height) {
        zlib.clear();
        let mut stored = fdeflate::StoredOnlyCompressor::new(std::io::Cursor::new(&mut *zlib))
            .map_err(raster)?;
        for line in pixels.chunks_exact(stride) {
            stored.write_data(&[0]).map_err(raster)?;
            stored.write_data(line).map_err(raster)?;
        }
        stored.finish().map_err(raster)?;
    }
    png_file(zlib, width, height)
}

/// Bytes of pixels drawn and encoded at a time by [`rasterise_banded`]: a band stays in the
/// core's cache from its fill to its compression.
const BAND_BYTES: usize = 128 << 10;

/// [`encode_png`]'s PNG of an image drawn a band of rows at a time: each band filled with the
/// opaque background `colour`, `items` drawn on it ([`glyphs::draw_band`]), its rows filtered
/// and compressed, so the image's pixels are never all in memory (and never leave the cache).
/// A band's rows are read only in the columns drawn there (and the pixel after each): the
/// rest is background, whose filtered bytes are zero.
/// The rows and calls to the compressor are [`encode_png`]'s, so the bytes are the same;
/// `None` when the rows would be stored rather than compressed (that needs every pixel: the
/// caller draws the whole image instead).
fn rasterise_banded(
    scratch: &mut Scratch,
    items: &[glyphs::Banded],
    colour: [u8; 3],
    width: u32,
    height: u32,
) -> Result<Option<Vec<u8>>, PlotError> {
    let Scratch { pixels, zlib } = scratch;
    let stride = width as usize * 4;
    let band_rows = (BAND_BYTES / stride).clamp(1, height as usize);
    if pixels.capacity() < band_rows * stride {
        *pixels = Vec::with_capacity((band_rows * stride).max(PIXELS_RESERVED));
    }
    // One row of the background, copied row by row (a loop of 4-byte pixels is not vectorised).
    let [r, g, b] = colour;
    let background: Vec<u8> = std::iter::repeat_n([r, g, b, u8::MAX], width as usize)
        .flatten()
        .collect();
    // The band is background throughout before each band is drawn: filled once, then put back
    // where the band before was drawn.
    pixels.clear();
    for _ in 0..band_rows {
        pixels.extend_from_slice(&background);
    }
    zlib.clear();
    let mut compressor = super::deflate::Compressor::new(zlib);
    let (mut columns, mut changes) = (Vec::new(), Vec::new());
    for y0 in (0..height as usize).step_by(band_rows) {
        let rows = band_rows.min(height as usize - y0);
        let band = &mut pixels[..rows * stride];
        let mut pixmap = PixmapMut::from_bytes(band, width, rows as u32).ok_or_else(|| {
            PlotError::Raster(format!("cannot allocate a {width} x {height} image"))
        })?;
        columns.clear();
        glyphs::draw_band(items, &mut pixmap, y0 as i64, &mut columns);
        changed_bytes(&mut columns, width, &mut changes);
        for line in band.chunks_exact_mut(stride) {
            for range in &changes {
                demultiply(&mut line[range.clone()]);
            }
            compressor.write_sub_row_where(line, &changes);
            for range in &changes {
                line[range.clone()].copy_from_slice(&background[range.clone()]);
            }
        }
    }
    compressor.finish();
    if !shrunk(zlib, stride, height) {
        return Ok(None);
    }
    png_file(zlib, width, height).map(Some)
}

/// The bytes of a row of `width` pixels whose Sub-filtered bytes may not be zero, given the
/// `columns` drawn on a background (pixel columns, from and to before, in any order, not
/// clipped): each column's pixels and the pixel after it, which differs from its left
/// neighbour when the column does. Sorted and disjoint, into `changes`.
fn changed_bytes(columns: &mut [(i64, i64)], width: u32, changes: &mut Vec<Range<usize>>) {
    changes.clear();
    columns.sort_unstable();
    let width = i64::from(width);
    for &(from, to) in columns.iter() {
        let (from, to) = (from.clamp(0, width), (to + 1).clamp(0, width));
        if from >= to {
            continue;
        }
        let bytes = 4 * from as usize..4 * to as usize;
        match changes.last_mut() {
            Some(last) if bytes.start <= last.end => last.end = last.end.max(bytes.end),
            _ => changes.push(bytes),
        }
    }
}

/// Whether the compressed rows are smaller than the rows stored.
fn shrunk(zlib: &[u8], stride: usize, height: u32) -> bool {
    let raw = (stride + 1) * height as usize;
    zlib.len() <= fdeflate::StoredOnlyCompressor::<()>::compressed_size(raw)
}

/// The PNG file of the compressed rows: signature, IHDR, the IDAT chunks (at most 2^31 - 1
/// bytes each), IEND.
fn png_file(zlib: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    const MAX_CHUNK: usize = i32::MAX as usize;
    let chunks = zlib.len().div_ceil(MAX_CHUNK).max(1);
    let mut out = Vec::with_capacity(8 + 25 + zlib.len() + 12 * chunks + 12);
    let png_error = |e: png::EncodingError| PlotError::Raster(e.to_string());
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_error)?;
    for chunk in zlib.chunks(MAX_CHUNK) {
        writer
            .write_chunk(png::chunk::IDAT, chunk)
            .map_err(png_error)?;
    }
    writer.finish().map_err(png_error)?;
    Ok(out)
}

/// Turns premultiplied RGBA into straight RGBA in place, unless every pixel is opaque (the
/// two are then the same bytes; demultiplying leaves an opaque pixel as it is, so this may
/// be done to any part of an image at a time).
fn demultiply(pixels: &mut [u8]) {
    // Every alpha byte 255: AND all 8-byte words (two pixels each; no early exit, so the
    // loop vectorises), then look at the alpha bytes of the result and of an odd last pixel.
    // (Words as arrays: a slice copied into a word was a call per word, not a load.)
    const ALPHA: u64 = u64::from_le_bytes([0, 0, 0, 0xff, 0, 0, 0, 0xff]);
    let (words, last) = pixels.as_chunks::<8>();
    let all = words
        .iter()
        .fold(u64::MAX, |acc, w| acc & u64::from_le_bytes(*w));
    if all & ALPHA == ALPHA && last.get(3).is_none_or(|&a| a == u8::MAX) {
        return;
    }
    for pixel in pixels.chunks_exact_mut(4) {
        if let Some(c) = PremultipliedColorU8::from_rgba(pixel[0], pixel[1], pixel[2], pixel[3]) {
            let c = c.demultiply();
            pixel.copy_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_too_tall_for_its_scale_is_drawn_smaller() {
        // 500 x 10,000: at scale 2 it would be 20,000 pixels tall.
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="500" height="10000"><rect width="500" height="10000" fill="#0072B2"/></svg>"##;
        assert!(matches!(
            svg_to_png(svg, PNG_SCALE),
            Err(PlotError::InvalidInput(_))
        ));
        let png = resvg::tiny_skia::Pixmap::decode_png(&figure_png(svg).unwrap()).unwrap();
        assert_eq!((png.width(), png.height()), (820, 16_384));
        // A figure that fits keeps the scale.
        let small = r##"<svg xmlns="http://www.w3.org/2000/svg" width="500" height="300"/>"##;
        assert_eq!(
            figure_png(small).unwrap(),
            svg_to_png(small, PNG_SCALE).unwrap()
        );
    }

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

    /// The PNG with glyph-drawn text and the one resvg draws alone, decoded.
    fn both(svg: &str, scale: f32) -> (resvg::tiny_skia::Pixmap, resvg::tiny_skia::Pixmap) {
        let decode = |png: Vec<u8>| resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        (
            decode(rasterise(svg, scale, false, true).unwrap()),
            decode(rasterise(svg, scale, false, false).unwrap()),
        )
    }

    /// The smallest rectangle holding every pixel that is not white: (left, top, right, bottom).
    fn ink(p: &resvg::tiny_skia::Pixmap) -> Option<(u32, u32, u32, u32)> {
        let mut bounds: Option<(u32, u32, u32, u32)> = None;
        for (i, px) in p.pixels().iter().enumerate() {
            if (px.red(), px.green(), px.blue()) != (255, 255, 255) {
                let (x, y) = (i as u32 % p.width(), i as u32 / p.width());
                bounds = Some(match bounds {
                    None => (x, y, x, y),
                    Some((l, t, r, b)) => (l.min(x), t.min(y), r.max(x), b.max(y)),
                });
            }
        }
        bounds
    }

    fn page(body: &str) -> String {
        format!(
            r##"<svg width="300" height="120" xmlns="http://www.w3.org/2000/svg"><rect width="300" height="120" fill="#FFFFFF"/>{body}</svg>"##
        )
    }

    #[test]
    fn glyph_text_lands_where_resvg_draws_it() {
        let texts = [
            r##"<text x="150" y="60" text-anchor="middle" font-size="20" fill="#4D4D4D">AVATAR To Wa</text>"##,
            r##"<text x="290" y="60" dy="0.5ex" text-anchor="end" font-size="17" fill="#0072B2">median 28.2 (95% CI NE, NE)</text>"##,
            r##"<text x="3" y="10" dy="0.76em" text-anchor="start" font-size="16" fill="#000">&lt;5 &amp; ≥3 – ±0.1‰ ü</text>"##,
            r##"<text x="40" y="60" dy="0.76em" text-anchor="middle" font-size="17" fill="#4D4D4D" transform="rotate(270, 40, 60)">Probability</text>"##,
            r##"<text x="10.3" y="57.9" dx="0.37" dy="-0.2em" font-size="14.5px" fill="#D55E00">fi fl ffi 1/2</text>"##,
            // Greek, symbols, a combining accent, and characters the font lacks (drawn as its
            // missing-glyph box, as resvg draws them with only this font).
            r##"<text x="5" y="60" font-size="18" fill="#000">γ-GT ≥ 3 · e&#x301;x 肺癌 😀 Ω</text>"##,
            r##"<text x="0" y="118" font-size="150" fill="#000">Wg</text>"##,
        ];
        for text in texts {
            let svg = page(text);
            assert!(glyphs::split(&svg, 2.0).is_some(), "{text} should be plain");
            for scale in [1.0, 2.0, 3.3] {
                let (ours, theirs) = both(&svg, scale);
                let (a, b) = (ink(&ours).unwrap(), ink(&theirs).unwrap());
                let apart = [
                    a.0.abs_diff(b.0),
                    a.1.abs_diff(b.1),
                    a.2.abs_diff(b.2),
                    a.3.abs_diff(b.3),
                ];
                assert!(
                    apart.iter().all(|&d| d <= 1),
                    "{text} at {scale}: ink {a:?} against {b:?}"
                );
                let far = ours
                    .pixels()
                    .iter()
                    .zip(theirs.pixels())
                    .filter(|(p, q)| {
                        [
                            (p.red(), q.red()),
                            (p.green(), q.green()),
                            (p.blue(), q.blue()),
                        ]
                        .iter()
                        .any(|(a, b)| a.abs_diff(*b) > 48)
                    })
                    .count();
                let inked = theirs
                    .pixels()
                    .iter()
                    .filter(|p| (p.red(), p.green(), p.blue()) != (255, 255, 255))
                    .count();
                // resvg itself moves that many pixels by more than 48 levels when the text
                // moves by 1/32 of a pixel (its anti-aliasing samples a 4 x 4 grid); a quarter
                // of a pixel moves a third of them.
                assert!(
                    far * 100 <= inked * 15,
                    "{text} at {scale}: {far} of {inked} inked pixels far apart"
                );
            }
        }
    }

    #[test]
    fn glyph_text_keeps_the_painting_order() {
        // A text under an opaque rectangle is hidden; the same text on top of it shows.
        let covered = page(
            r##"<text x="10" y="60" font-size="20" fill="#000">hidden</text><rect x="0" y="0" width="300" height="120" fill="#FFFFFF"/>"##,
        );
        assert!(glyphs::split(&covered, 2.0).is_some());
        assert_eq!(ink(&both(&covered, 2.0).0), None);
        assert_eq!(
            rasterise(&covered, 2.0, false, true).unwrap(),
            rasterise(&covered, 2.0, false, false).unwrap()
        );
        let on_top = page(
            r##"<rect x="0" y="0" width="300" height="120" fill="#FFFFFF"/><text x="10" y="60" font-size="20" fill="#000">shown</text>"##,
        );
        assert!(ink(&both(&on_top, 2.0).0).is_some());
        // Between two rectangles: over the first, under the second.
        let between = page(
            r##"<rect x="0" y="0" width="150" height="120" fill="#56B4E9"/><text x="100" y="60" font-size="30" fill="#000">MMMMMM</text><rect x="150" y="0" width="150" height="120" fill="#E69F00"/>"##,
        );
        let (ours, theirs) = both(&between, 1.0);
        let right_half = |p: &resvg::tiny_skia::Pixmap| {
            p.pixels().chunks(300).all(|row| {
                row[150..]
                    .iter()
                    .all(|px| (px.red(), px.green(), px.blue()) == (0xE6, 0x9F, 0x00))
            })
        };
        assert!(right_half(&ours) && right_half(&theirs));
        let dark = ours
            .pixels()
            .chunks(300)
            .flat_map(|row| &row[..150])
            .filter(|p| p.red() < 40)
            .count();
        assert!(
            dark > 100,
            "the text shows over the first rectangle ({dark} dark pixels)"
        );
    }

    #[test]
    fn a_figure_with_nothing_left_for_usvg_is_drawn_without_it() {
        // Texts and boxes only, after a title and a background: usvg is not asked. An empty
        // group at the end paints nothing but sends the rest through usvg, which must give
        // the same image (the same size too, a fractional one included, where the
        // background no longer covers the last pixels and is drawn by resvg).
        for (width, height) in [("200", "100"), ("200.3", "99.7px"), ("57.125", "31")] {
            let rect_height = height.trim_end_matches("px");
            let svg = |tail: &str| {
                format!(
                    r##"<svg width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg"><title>t</title><desc>d</desc>
<rect x="0" y="0" width="{width}" height="{rect_height}" fill="#FFFFFF" opacity="1" stroke="none"/>
<rect x="10" y="10" width="30" height="20" fill="#0072B2" opacity="1" stroke="none"/>
<text x="20" y="50" font-size="12" fill="#4D4D4D">Months</text>
<text x="8" y="60" font-size="12" fill="#4D4D4D" transform="rotate(270, 8, 60)">Probability</text>{tail}</svg>"##
                )
            };
            let split = glyphs::split(&svg(""), PNG_SCALE).expect("taken out");
            assert!(split.only_taken.is_some(), "{width} x {height}");
            let through_usvg = glyphs::split(&svg("<g/>"), PNG_SCALE).expect("taken out");
            assert_eq!(through_usvg.only_taken, None);
            assert_eq!(
                figure_png(&svg("")).unwrap(),
                figure_png(&svg("<g/>")).unwrap(),
                "{width} x {height}"
            );
        }
    }

    #[test]
    fn a_figure_drawn_in_bands_is_the_png_drawn_whole() {
        // Texts (plain, rotated, large) and boxes (opaque, translucent, one through every
        // band) on white and on a colour, over eight bands of 81 rows: the PNG's bytes are
        // those of the image drawn whole, then encoded.
        for colour in [[255, 255, 255], [0x33, 0x66, 0x99]] {
            let [r, g, b] = colour;
            let svg = format!(
                r##"<svg width="200" height="300" xmlns="http://www.w3.org/2000/svg"><rect x="0" y="0" width="200" height="300" fill="#{r:02X}{g:02X}{b:02X}" opacity="1" stroke="none"/>
<rect x="30" y="5" width="4" height="290" fill="#000000" opacity="1" stroke="none"/>
<polygon fill-opacity="0.18" fill="#0072B2" opacity="1" stroke="none" points="40,30 190,30 190,170 40,170"/>
<rect x="60" y="38" width="100" height="5" fill="#D55E00" opacity="1" stroke="none"/>
<text x="100" y="41" font-size="12" text-anchor="middle" fill="#4D4D4D">Months since randomisation</text>
<text x="20" y="150" font-size="12" fill="#4D4D4D" transform="rotate(270, 20, 150)">Probability</text>
<text x="50" y="250" font-size="40" fill="#009E73">PFS 81%</text></svg>"##
            );
            let split = glyphs::split(&svg, PNG_SCALE).expect("texts and boxes taken out");
            let (w, h) = (400, 600);
            let items = glyphs::prepare_bands(&split, None, PNG_SCALE, w, h).expect("in bands");
            let banded = rasterise_banded(&mut Scratch::default(), &items, colour, w, h)
                .unwrap()
                .expect("compressed");
            let mut whole = Scratch {
                pixels: [r, g, b, 255].repeat((w * h) as usize),
                ..Scratch::default()
            };
            let mut pixmap = PixmapMut::from_bytes(&mut whole.pixels, w, h).unwrap();
            glyphs::draw(&split.items, PNG_SCALE, &mut pixmap);
            assert!(
                banded == encode_png(&mut whole, w, h).unwrap(),
                "{colour:?}"
            );
            assert_eq!(figure_png(&svg).unwrap(), banded, "{colour:?}");
        }
    }

    /// The PNG of `svg` drawn whole at [`PNG_SCALE`]: its background filled, what is left to
    /// usvg (if anything) rendered by resvg between the items taken out, as [`rasterise`]
    /// draws a split figure that cannot be drawn in bands.
    fn drawn_whole(svg: &str) -> Vec<u8> {
        let options = options();
        let (drawing, size) = take(svg, PNG_SCALE, true, &options).unwrap();
        let Drawing::Split(split, tree) = &drawing else {
            panic!("split");
        };
        let (w, h) = pixel_size(size, PNG_SCALE).unwrap();
        let [r, g, b] = covering(&drawing, PNG_SCALE, w, h)
            .expect("background")
            .colour;
        let mut whole = Scratch {
            pixels: [r, g, b, 255].repeat((w * h) as usize),
            ..Scratch::default()
        };
        let mut pixmap = PixmapMut::from_bytes(&mut whole.pixels, w, h).unwrap();
        match tree {
            Some(tree) => render_split(tree, split, PNG_SCALE, true, &mut pixmap),
            None => glyphs::draw(&split.items, PNG_SCALE, &mut pixmap),
        }
        encode_png(&mut whole, w, h).unwrap()
    }

    #[test]
    fn shapes_left_to_usvg_drawn_in_bands_give_the_pixels_drawn_whole() {
        // Pseudo-random markers as a swimmer plot draws them (triangles, diamonds and arrow
        // heads, filled, outlined or both, in either paint order; crosses and shafts 1 to 4
        // units wide) on whole, half and other units, between bars and texts, on white and
        // on a colour, over bands of 81 rows that cut through them. One figure in three also
        // has one kind of shape that is not drawn from coverage (translucent, dashed, round,
        // a hairline, past the image), which sends it whole: the same bytes either way.
        let mut random = super::super::test_random(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| random() % n;
        let (mut in_bands, mut whole) = (0, 0);
        let odd_ones = [
            r#" opacity="0.5""#,
            r#" stroke-dasharray="3 2""#,
            r#" stroke-linejoin="round""#,
            r#" stroke-linecap="round""#,
            "thin",
            "past",
        ];
        for case in 0..180 {
            let odd = (next(3) == 0).then(|| odd_ones[next(6) as usize]);
            let background = if next(2) == 0 {
                0xFFFFFF
            } else {
                next(1 << 24)
            };
            let mut body = String::from(
                r##"<rect x="60" y="20" width="100" height="12" fill="#56B4E9" opacity="1" stroke="none"/><text x="10" y="30" font-size="12" fill="#4D4D4D">ALTN-1003</text>"##,
            );
            let colour = |v: u64| format!("#{:06X}", v & 0xff_ffff);
            let at = |n: u64, next: &mut dyn FnMut(u64) -> u64| match next(6) {
                0 => next(n) as f64 + 0.5,
                1 => next(n) as f64 + next(1000) as f64 / 1000.0,
                _ => next(n) as f64,
            };
            let shapes = 10 + next(10);
            let odd_at = next(shapes);
            for k in 0..shapes {
                let (x, y) = (12.0 + at(170, &mut next), 12.0 + at(270, &mut next));
                let d = 3.0 + next(6) as f64;
                let (fill, line) = (colour(next(1 << 24)), colour(next(1 << 24)));
                let mut width = [1.0, 1.5, 2.0, 3.0, 4.0][next(5) as usize];
                let (extra, past) = match odd.filter(|_| k == odd_at) {
                    Some("past") => ("", 30.0),
                    Some("thin") => {
                        width = 0.25;
                        ("", 0.0)
                    }
                    Some(extra) => (extra, 0.0),
                    None => ("", 0.0),
                };
                // The odd shape is a line.
                let kind = if past + width < 1.0 || !extra.is_empty() || past > 0.0 {
                    5
                } else {
                    next(6)
                };
                match kind {
                    0 => body.push_str(&format!(
                        r#"<rect x="{x}" y="{y}" width="{}" height="{}" fill="{fill}" opacity="1" stroke="none"/>"#,
                        (next(60) as f64).min(195.0 - x),
                        next(12)
                    )),
                    1 => body.push_str(&format!(
                        r#"<text x="{x}" y="{y}" font-size="12" fill="{fill}">ALTN-{k}</text>"#
                    )),
                    2 | 3 => {
                        let x = x - past;
                        let points = if next(2) == 0 {
                            format!("{x},{} {},{} {},{}", y - d, x + d, y + d, x - d, y + d)
                        } else {
                            format!("{x},{} {},{y} {x},{} {},{y}", y - d, x + d, y + d, x - d)
                        };
                        let stroke = match next(3) {
                            0 => "stroke=\"none\"".to_string(),
                            _ => format!(r#"stroke="{line}" stroke-width="{width}""#),
                        };
                        let order = ["", r#" paint-order="stroke""#][next(2) as usize];
                        body.push_str(&format!(
                            r#"<polygon fill="{fill}" {stroke}{order}{extra} points="{points}"/>"#
                        ));
                    }
                    _ => {
                        let (x1, y1) = (x + at(40, &mut next) - 20.0, y + at(40, &mut next) - 20.0);
                        let (x1, y1) = (x1.clamp(12.0, 180.0) - past, y1.clamp(12.0, 288.0));
                        body.push_str(&format!(
                            r#"<polyline fill="none" stroke="{line}" stroke-width="{width}"{extra} points="{x},{y} {x1},{y1} {},{y1}"/>"#,
                            x1 + d
                        ));
                    }
                }
            }
            let svg = format!(
                r#"<svg width="200" height="300" xmlns="http://www.w3.org/2000/svg"><rect x="0" y="0" width="200" height="300" fill="{}" opacity="1" stroke="none"/>{body}</svg>"#,
                colour(background)
            );
            let png = figure_png(&svg).unwrap();
            assert!(png == drawn_whole(&svg), "case {case}: {svg}");
            // Without an odd shape, in bands; with one, whole unless its coverage is certain
            // after all (a round cap or join whose curves tiny-skia would not cut).
            let banded = drawn_in_bands(&svg);
            assert!(banded || odd.is_some(), "case {case}: {svg}");
            (in_bands, whole) = (in_bands + usize::from(banded), whole + usize::from(!banded));
        }
        assert!(
            in_bands > 120 && whole > 40,
            "{in_bands} in bands, {whole} whole"
        );
    }

    #[test]
    fn shapes_filled_directly_give_the_pixels_resvg_gives() {
        // Pseudo-random bars, step lines and bands (translucent or opaque polygons of
        // horizontal and vertical sides, some crossing themselves or turning back, by the
        // non-zero rule) on whole and half units, some reaching past the image, some with
        // repeated points and segments shorter than the stroke is wide, over a translucent
        // and a diagonal shape so the painting order shows.
        let mut random = super::super::test_random(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| random() % n;
        let (mut bands, mut taken) = (0, 0);
        for case in 0..100 {
            let mut body = String::from(
                r##"<polygon fill-opacity="0.18" fill="#0072B2" points="5,5 90,5 90,50 5,50"/><polyline fill="none" opacity="1" stroke="#D55E00" stroke-width="2" points="0,0 100,60"/>"##,
            );
            let colour = |v: u64| format!("#{:06X}", v & 0xff_ffff);
            for _ in 0..12 {
                let half = |n: u64, next: &mut dyn FnMut(u64) -> u64| {
                    let v = next(n) as f64 - 10.0;
                    if next(3) == 0 {
                        v + 0.5
                    } else {
                        v
                    }
                };
                let kind = next(3);
                if kind == 2 {
                    let mut points = String::new();
                    let (mut x, mut y) = (half(110, &mut next), half(70, &mut next));
                    let (x0, y0) = (x, y);
                    let mut horizontal = next(2) == 0;
                    for _ in 0..2 + next(12) {
                        points.push_str(&format!("{x},{y} "));
                        let step = next(40) as f64 - 15.0;
                        if horizontal {
                            x += step
                        } else {
                            y += step
                        }
                        horizontal = !horizontal;
                    }
                    // Closed by a vertical and a horizontal side back to the start.
                    points.push_str(&format!("{x},{y} {x},{y0} "));
                    let opacity = ["0.18", "0.5", "1", "0", "0.333", "0.07"][next(6) as usize];
                    let written = if x == x0 {
                        String::new()
                    } else {
                        format!("{x0},{y0}")
                    };
                    body.push_str(&format!(
                        r#"<polygon fill-opacity="{opacity}" fill="{}" points="{points}{written}"/>"#,
                        colour(next(1 << 24))
                    ));
                    bands += 1;
                } else if kind == 0 {
                    let (x, y) = (half(110, &mut next), half(70, &mut next));
                    let (w, h) = (next(40) as f64 + 0.5 * next(2) as f64, next(20) as f64);
                    body.push_str(&format!(
                        r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" opacity="1" fill="{}" stroke="none"/>"#,
                        colour(next(1 << 24))
                    ));
                } else {
                    let (mut x, mut y) = (half(110, &mut next), half(70, &mut next));
                    let mut points = format!("{x},{y} ");
                    let mut horizontal = next(2) == 0;
                    for _ in 0..1 + next(6) {
                        let step = next(12) as f64;
                        if horizontal {
                            x += step
                        } else {
                            y += step
                        }
                        points.push_str(&format!("{x},{y} "));
                        horizontal = !horizontal;
                    }
                    body.push_str(&format!(
                        r#"<polyline fill="none" opacity="1" stroke="{}" stroke-width="{}" points="{points}"/>"#,
                        colour(next(1 << 24)),
                        1 + next(9)
                    ));
                }
            }
            let svg = format!(
                r##"<svg width="100" height="60" xmlns="http://www.w3.org/2000/svg"><rect width="100" height="60" fill="#FFFFFF"/>{body}</svg>"##
            );
            taken += glyphs::pixel_filled_shapes(&svg);
            for scale in [2.0, 1.0, 1.5] {
                let (ours, reference) = both(&svg, scale);
                assert!(
                    ours.data() == reference.data(),
                    "case {case} at scale {scale}: {svg}"
                );
            }
        }
        // At scale 2 every band is on the grid, so taken (with the translucent square each
        // scene starts with and the bars and steps of area).
        assert!(
            taken >= bands + 100 && bands > 300,
            "{taken} taken, {bands} bands"
        );
        // The example's kinds of shape are taken at scale 2.
        let svg = page(
            r##"<rect x="10" y="20" width="30" height="5" opacity="1" fill="#56B4E9" stroke="none"/><polyline fill="none" opacity="1" stroke="#0072B2" stroke-width="3" points="10,10 20,10 20,10 20,30 40,30"/><polygon fill-opacity="0.18" fill="#0072B2" points="454,44 522,44 522,49 713,49 713,49 713,141 522,141 522,130 454,130 "/>"##,
        );
        assert_eq!(glyphs::pixel_filled_shapes(&svg), 3);
    }

    #[test]
    fn a_background_filled_directly_gives_the_pixels_resvg_gives() {
        // An empty text keeps the glyph path (so the background is filled directly) without
        // drawing anything; at scale 1.5 the 201-wide root ends inside a pixel, so there the
        // rectangle is left for resvg to draw with its anti-aliased edge.
        for (colour, width, scale) in [
            ("#FFFFFF", 200, 2.0),
            ("#336699", 200, 2.0),
            ("#336699", 201, 1.5),
        ] {
            let svg = format!(
                r##"<svg width="{width}" height="60" xmlns="http://www.w3.org/2000/svg" role="img"><title>t</title><rect x="0" y="0" width="{width}" height="60" fill="{colour}" opacity="1" stroke="none"/><text x="3" y="9" font-size="12"></text><circle cx="50" cy="30" r="20" fill="#D55E00"/></svg>"##
            );
            assert!(glyphs::split(&svg, scale).is_some_and(|s| s.background.is_some()));
            let (ours, reference) = both(&svg, scale);
            assert!(ours.data() == reference.data(), "{colour} {width} {scale}");
        }
    }

    #[test]
    fn other_text_is_drawn_by_resvg() {
        // Nothing plain to take out: the very same PNG as resvg's.
        for text in [
            r##"<text x="10" y="60" font-size="20"><tspan fill="#D55E00">span</tspan></text>"##,
            r##"<text x="10" y="60" font-size="20" opacity="0.5">half</text>"##,
            r##"<text x="10" y="60" font-size="20" font-weight="bold">bold</text>"##,
        ] {
            let svg = page(text);
            assert!(glyphs::split(&svg, 2.0).is_none(), "{text}");
            assert_eq!(
                rasterise(&svg, 2.0, false, true).unwrap(),
                rasterise(&svg, 2.0, false, false).unwrap()
            );
        }
    }

    #[test]
    fn noise_is_stored_not_deflated() {
        // 32 x 32 one-pixel squares of pseudo-random colour and opacity: the fast level cannot
        // shrink them, so the rows are stored, and the PNG still decodes to the same pixels.
        let mut next = super::super::test_random(0x2545_f491_4f6c_dd1d);
        let mut body = String::new();
        for y in 0..32 {
            for x in 0..32 {
                let v = next();
                body.push_str(&format!(
                    r##"<rect x="{x}" y="{y}" width="1" height="1" fill="#{:06x}" fill-opacity="{:.3}"/>"##,
                    v & 0xff_ffff,
                    ((v >> 24) & 0xff) as f64 / 255.0
                ));
            }
        }
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32">{body}</svg>"#
        );
        let png = svg_to_png(&svg, 1.0).unwrap();
        let raw = (32 * 4 + 1) * 32;
        assert!(
            png.len() <= fdeflate::StoredOnlyCompressor::<()>::compressed_size(raw) + 64,
            "{} bytes for {raw} of rows",
            png.len()
        );
        let decoded = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        let options = Options {
            fontdb: font_db(),
            ..Options::default()
        };
        let tree = Tree::from_str(&svg, &options).unwrap();
        let mut drawn = resvg::tiny_skia::Pixmap::new(32, 32).unwrap();
        resvg::render(&tree, Transform::default(), &mut drawn.as_mut());
        for (a, b) in decoded.pixels().iter().zip(drawn.pixels()) {
            let apart = [
                a.red().abs_diff(b.red()),
                a.green().abs_diff(b.green()),
                a.blue().abs_diff(b.blue()),
                a.alpha().abs_diff(b.alpha()),
            ];
            // Straight colours in the PNG, premultiplied again on decoding: rounding only.
            assert!(apart.iter().all(|&d| d <= 1), "{a:?} against {b:?}");
        }
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
