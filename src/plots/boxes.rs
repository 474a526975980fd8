//! Axis-aligned shapes of the PNG path filled straight into the pixels.
//!
//! A figure's bars, grid lines, ticks, axes, step curves and confidence bands are rectangles,
//! polylines and polygons of horizontal and vertical segments on whole user units; at the PNG
//! scale their edges fall on pixel boundaries, where an anti-aliased fill covers each pixel
//! wholly or not at all. resvg nevertheless scan-converts each of them with anti-aliasing:
//! about two fifths of rasterising the example study's figures, and a translucent band is
//! blended pixel by pixel through tiny-skia's pipeline. Such an element is taken out of the
//! SVG with the texts ([`super::glyphs::split`]) and its pixels set here, in its place in the
//! painting order: an opaque colour copied, a translucent one blended with tiny-skia's
//! arithmetic (source over, premultiplied, in 8-bit steps).
//!
//! Only what is certain is taken: a `<rect>` with `x`, `y`, `width` and `height`, an opaque
//! `#rgb`/`#rrggbb` `fill`, `opacity="1"` and `stroke="none"`; a `<polyline>` with
//! `fill="none"`, `opacity="1"`, a `#rgb`/`#rrggbb` `stroke`, a `stroke-width` and `points`
//! written as `x,y` pairs apart by spaces, whose segments are horizontal or vertical and never
//! turn back (the default butt caps and miter joins: at a right angle the miter squares the
//! corner); a `<polygon>` with such `points`, every side (the closing one too) horizontal or
//! vertical, a `#rgb`/`#rrggbb` `fill`, an optional plain `fill-opacity`, `opacity="1"` and
//! `stroke="none"` (filled by the non-zero rule, as SVG's default); every number written
//! plainly, and every edge a whole number of pixels at the scale. Anything else stays for
//! resvg. Tests compare the pixels with resvg's.

use resvg::tiny_skia::{Color, PixmapMut, PremultipliedColorU8};

use super::glyphs::{hex_colour, plain_number, SVG_NS};

/// Rectangles painted in one colour: (left, top, right, bottom) in device pixels, possibly
/// reaching outside the image, none overlapping another of the same shape when translucent.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Boxes {
    pub colour: [u8; 3],
    /// The paint's alpha as resvg hands it to tiny-skia (the fill opacity × 255, rounded).
    pub alpha: u8,
    pub rects: Vec<[i64; 4]>,
}

/// The rectangles `node` paints at `scale` device pixels per user unit, or `None` when it is
/// not one of the shapes this module fills exactly.
pub(super) fn plain(node: &roxmltree::Node, scale: f32) -> Option<Boxes> {
    if node.tag_name().namespace() != Some(SVG_NS) || node.has_children() {
        return None;
    }
    match node.tag_name().name() {
        "rect" => rect(node, scale),
        "polyline" => polyline(node, scale),
        "polygon" => polygon(node, scale),
        _ => None,
    }
}

/// Hands each of `node`'s attributes (name, value) to `read`: `None` when one is in a
/// namespace or `read` refuses one.
fn read_attributes(
    node: &roxmltree::Node,
    mut read: impl FnMut(&str, &str) -> Option<()>,
) -> Option<()> {
    for attribute in node.attributes() {
        if attribute.namespace().is_some() {
            return None;
        }
        read(attribute.name(), attribute.value())?;
    }
    Some(())
}

/// A user-space coordinate in device pixels when it falls on a pixel boundary, exactly as
/// resvg computes it (in `f32`) and within the range where `f32` keeps whole numbers exact.
fn device(v: f32, scale: f32) -> Option<i64> {
    let d = v * scale;
    (d.is_finite() && d == d.round() && d.abs() < 4_194_304.0).then_some(d as i64)
}

/// Device rectangle of user-space edges, `None` unless every edge is on a pixel boundary.
fn device_rect([left, top, right, bottom]: [f32; 4], scale: f32) -> Option<[i64; 4]> {
    Some([
        device(left, scale)?,
        device(top, scale)?,
        device(right, scale)?,
        device(bottom, scale)?,
    ])
}

/// A plain `<rect>`: only `x`, `y`, `width` and `height`, a `#rgb`/`#rrggbb` `fill`,
/// `opacity="1"` and `stroke="none"`, each written plainly, a width and a height given, and
/// no children. The figures' bars and their background are such rectangles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PlainRect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub colour: [u8; 3],
}

/// `node` as a [`PlainRect`], or `None`.
pub(super) fn plain_rect(node: &roxmltree::Node) -> Option<PlainRect> {
    if !node.has_tag_name((SVG_NS, "rect")) || node.has_children() {
        return None;
    }
    let (mut x, mut y, mut width, mut height) = (0.0, 0.0, None, None);
    let mut colour = None;
    read_attributes(node, |name, v| {
        match name {
            "x" => x = plain_number(v)?,
            "y" => y = plain_number(v)?,
            "width" => width = Some(plain_number(v)?),
            "height" => height = Some(plain_number(v)?),
            "fill" => colour = Some(hex_colour(v)?),
            "opacity" if plain_number(v)? == 1.0 => {}
            "stroke" if v == "none" => {}
            _ => return None,
        }
        Some(())
    })?;
    Some(PlainRect {
        x,
        y,
        width: width?,
        height: height?,
        colour: colour?,
    })
}

fn rect(node: &roxmltree::Node, scale: f32) -> Option<Boxes> {
    let PlainRect {
        x,
        y,
        width,
        height,
        colour,
    } = plain_rect(node)?;
    // A rectangle without area draws nothing: usvg drops it.
    if !(width > 0.0 && height > 0.0) {
        return None;
    }
    Some(Boxes {
        colour,
        alpha: u8::MAX,
        rects: vec![device_rect([x, y, x + width, y + height], scale)?],
    })
}

fn polyline(node: &roxmltree::Node, scale: f32) -> Option<Boxes> {
    let (mut points, mut colour, mut width) = (None, None, 1.0);
    let mut unfilled = false;
    read_attributes(node, |name, v| {
        match name {
            "points" => points = Some(point_list(v)?),
            "stroke" => colour = Some(hex_colour(v)?),
            "stroke-width" => width = plain_number(v)?,
            "fill" if v == "none" => unfilled = true,
            "opacity" if plain_number(v)? == 1.0 => {}
            _ => return None,
        }
        Some(())
    })?;
    if !unfilled || width <= 0.0 {
        return None;
    }
    Some(Boxes {
        colour: colour?,
        alpha: u8::MAX,
        rects: stroke_rects(&points?, width / 2.0, scale)?,
    })
}

fn polygon(node: &roxmltree::Node, scale: f32) -> Option<Boxes> {
    let (mut points, mut colour, mut alpha) = (None, None, u8::MAX);
    read_attributes(node, |name, v| {
        match name {
            "points" => points = Some(point_list(v)?),
            "fill" => colour = Some(hex_colour(v)?),
            "fill-opacity" => alpha = opacity(v)?,
            "opacity" if plain_number(v)? == 1.0 => {}
            "stroke" if v == "none" => {}
            _ => return None,
        }
        Some(())
    })?;
    Some(Boxes {
        colour: colour?,
        alpha,
        rects: rectilinear_fill(&points?, scale)?,
    })
}

/// A plain opacity from 0 to 1 as resvg's paint alpha: usvg reads the number as `f64`, keeps
/// it as `f32` and tiny-skia's colour takes it in 255ths.
fn opacity(v: &str) -> Option<u8> {
    plain_number(v)?;
    let o = v.parse::<f64>().ok()? as f32;
    (0.0..=1.0)
        .contains(&o)
        .then(|| resvg::usvg::Opacity::new_clamped(o).to_u8())
}

/// The inside of a closed polygon of horizontal and vertical sides by the non-zero rule, as
/// rectangles that do not overlap: per band between two heights where a vertical side starts
/// or ends, the spans where the sides crossing the band wind round. `None` for a diagonal side
/// or a corner off the pixel grid.
fn rectilinear_fill(points: &[(f32, f32)], scale: f32) -> Option<Vec<[i64; 4]>> {
    let corners = points
        .iter()
        .map(|&(x, y)| Some((device(x, scale)?, device(y, scale)?)))
        .collect::<Option<Vec<_>>>()?;
    // Vertical sides as (x, top, bottom, +1 downward / -1 upward); the closing side included.
    let mut sides = Vec::new();
    for (i, &(x0, y0)) in corners.iter().enumerate() {
        let (x1, y1) = corners[(i + 1) % corners.len()];
        match (x0 == x1, y0 == y1) {
            (false, false) => return None,
            (true, false) => sides.push((x0, y0.min(y1), y0.max(y1), if y1 > y0 { 1 } else { -1 })),
            _ => {}
        }
    }
    let mut heights = sides.iter().flat_map(|s| [s.1, s.2]).collect::<Vec<_>>();
    heights.sort_unstable();
    heights.dedup();
    let (mut rects, mut crossing) = (Vec::new(), Vec::new());
    for band in heights.windows(2) {
        let (top, bottom) = (band[0], band[1]);
        crossing.clear();
        crossing.extend(
            sides
                .iter()
                .filter(|s| s.1 <= top && s.2 >= bottom)
                .map(|s| (s.0, s.3)),
        );
        crossing.sort_unstable();
        let (mut winding, mut start) = (0, 0);
        for &(x, way) in &crossing {
            let before = winding;
            winding += way;
            if before == 0 && winding != 0 {
                start = x;
            } else if before != 0 && winding == 0 && x > start {
                rects.push([start, top, x, bottom]);
            }
        }
    }
    Some(rects)
}

/// `x,y` pairs apart by spaces, each number plain (`10,53 32,53 `, as the figures write them).
fn point_list(v: &str) -> Option<Vec<(f32, f32)>> {
    v.split(' ')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (x, y) = p.split_once(',')?;
            Some((plain_number(x)?, plain_number(y)?))
        })
        .collect()
}

/// Which way a segment runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Right,
    Left,
    Down,
    Up,
}

impl Way {
    fn of((x0, y0): (f32, f32), (x1, y1): (f32, f32)) -> Option<Way> {
        match (x0 == x1, y0 == y1) {
            (false, true) => Some(if x1 > x0 { Way::Right } else { Way::Left }),
            (true, false) => Some(if y1 > y0 { Way::Down } else { Way::Up }),
            _ => None,
        }
    }

    fn horizontal(self) -> bool {
        matches!(self, Way::Right | Way::Left)
    }
}

/// The stroke of a polyline `half` user units either side of its points, as rectangles: each
/// segment's (butt ends), and at each right-angle turn the square the miter adds on the
/// outside of the corner. `None` for a diagonal segment, a turn back, no segment at all (a
/// lone point draws nothing, as resvg draws it), or an edge off the pixel grid.
fn stroke_rects(points: &[(f32, f32)], half: f32, scale: f32) -> Option<Vec<[i64; 4]>> {
    let mut distinct = points.to_vec();
    // A repeated point is a segment of no length: the stroker skips it.
    distinct.dedup();
    let ways = distinct
        .windows(2)
        .map(|w| Way::of(w[0], w[1]))
        .collect::<Option<Vec<Way>>>()?;
    if ways.is_empty()
        || ways
            .windows(2)
            .any(|w| w[0].horizontal() == w[1].horizontal() && w[0] != w[1])
    {
        return None;
    }
    let mut rects = Vec::with_capacity(2 * ways.len());
    for (i, &way) in ways.iter().enumerate() {
        let ((x0, y0), (x1, y1)) = (distinct[i], distinct[i + 1]);
        let edges = if way.horizontal() {
            [x0.min(x1), y0 - half, x0.max(x1), y0 + half]
        } else {
            [x0 - half, y0.min(y1), x0 + half, y0.max(y1)]
        };
        rects.push(device_rect(edges, scale)?);
        // The corner where this segment turns into the next: on past the corner along this
        // segment, and back from the next one.
        let Some(&next) = ways
            .get(i + 1)
            .filter(|n| n.horizontal() != way.horizontal())
        else {
            continue;
        };
        let on = |way: Way, v: f32| match way {
            Way::Right | Way::Down => [v, v + half],
            Way::Left | Way::Up => [v - half, v],
        };
        let back = |way: Way, v: f32| on(way, v).map(|e| 2.0 * v - e);
        let ([left, right], [top, bottom]) = if way.horizontal() {
            (on(way, x1), back(next, y1))
        } else {
            (back(next, x1), on(way, y1))
        };
        rects.push(device_rect(
            [
                left.min(right),
                top.min(bottom),
                left.max(right),
                top.max(bottom),
            ],
            scale,
        )?);
    }
    Some(rects)
}

/// Paints `boxes` into `pixmap`: every pixel of each rectangle (inside the image) becomes the
/// opaque colour, or the translucent one over it.
pub(super) fn fill(boxes: &Boxes, pixmap: &mut PixmapMut) {
    fill_at(boxes, pixmap, 0);
}

/// [`fill`] onto `pixmap` holding the image's rows from `y0` on (a band of it).
pub(super) fn fill_at(boxes: &Boxes, pixmap: &mut PixmapMut, y0: i64) {
    let (width, height) = (i64::from(pixmap.width()), i64::from(pixmap.height()));
    let [r, g, b] = boxes.colour;
    let Some(opaque) = PremultipliedColorU8::from_rgba(r, g, b, u8::MAX) else {
        return;
    };
    let source = over(Color::from_rgba8(r, g, b, boxes.alpha));
    for &[left, top, right, bottom] in &boxes.rects {
        let (left, right) = (left.clamp(0, width), right.clamp(0, width));
        let (top, bottom) = ((top - y0).clamp(0, height), (bottom - y0).clamp(0, height));
        if left >= right {
            continue;
        }
        for y in top..bottom {
            let (start, end) = ((y * width + left) as usize, (y * width + right) as usize);
            if boxes.alpha == u8::MAX {
                pixmap.pixels_mut()[start..end].fill(opaque);
            } else {
                blend(&mut pixmap.data_mut()[4 * start..4 * end], source);
            }
        }
    }
}

/// A colour as tiny-skia's 8-bit pipeline holds it for painting: premultiplied in `f32`, then
/// each channel in 255ths rounded half up.
fn over(colour: Color) -> [u16; 4] {
    let c = colour.premultiply();
    [c.red(), c.green(), c.blue(), c.alpha()].map(|v| (v * 255.0 + 0.5) as u16)
}

/// `source` painted over `pixels` (premultiplied RGBA bytes, whole pixels) as tiny-skia's
/// 8-bit pipeline does: each channel `s + (d × (255 − sa) + 255) / 256`, the sum stored as a
/// byte. Every channel has the same factor, so sixteen bytes (four pixels) go at a time, in
/// vector instructions.
fn blend(pixels: &mut [u8], source: [u16; 4]) {
    let keep = 255 - source[3];
    let mut four = [0u16; 16];
    for (i, s) in four.iter_mut().enumerate() {
        *s = source[i % 4];
    }
    let (chunks, rest) = pixels.as_chunks_mut::<16>();
    // The sixteen lanes written out: straight-line code the compiler turns into vector
    // operations whatever it inlines (loops and `array::from_fn` here were not, in some builds).
    macro_rules! lanes {
        ($chunk:ident: $($i:literal)*) => {
            [$((four[$i] + ((u16::from($chunk[$i]) * keep + 255) >> 8)) as u8),*]
        };
    }
    for chunk in chunks {
        *chunk = lanes!(chunk: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }
    for (d, &s) in rest.iter_mut().zip(&four) {
        *d = (s + ((u16::from(*d) * keep + 255) >> 8)) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(element: &str, scale: f32) -> Option<Boxes> {
        let svg = format!(r#"<svg xmlns="http://www.w3.org/2000/svg">{element}</svg>"#);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let node = doc.root_element().first_child().unwrap();
        plain(&node, scale)
    }

    #[test]
    fn rectangles_and_strokes_become_device_rectangles() {
        let bar = r##"<rect x="10" y="20" width="30" height="5" opacity="1" fill="#56B4E9" stroke="none"/>"##;
        assert_eq!(
            taken(bar, 2.0),
            Some(Boxes {
                colour: [0x56, 0xB4, 0xE9],
                alpha: 255,
                rects: vec![[20, 40, 80, 50]]
            })
        );
        // A tick 1 wide: 2 pixels at scale 2, butt ends.
        let tick = r##"<polyline fill="none" opacity="1" stroke="#999" stroke-width="1" points="166,261 172,261 "/>"##;
        assert_eq!(taken(tick, 2.0).unwrap().rects, [[332, 521, 344, 523]]);
        // A step: right, down, right; each corner squared on its outside by the miter, a
        // repeated point no segment.
        let step = r##"<polyline fill="none" opacity="1" stroke="#0072B2" stroke-width="3" points="10,10 20,10 20,10 20,30 40,30"/>"##;
        assert_eq!(
            taken(step, 2.0).unwrap().rects,
            [
                [20, 17, 40, 23],
                [40, 17, 43, 20],
                [37, 20, 43, 60],
                [37, 60, 40, 63],
                [40, 57, 80, 63]
            ]
        );
        // Leftward and upward segments.
        let back = r##"<polyline fill="none" stroke="#000" stroke-width="2" points="40,30 20,30 20,10"/>"##;
        assert_eq!(
            taken(back, 2.0).unwrap().rects,
            [[40, 58, 80, 62], [38, 60, 40, 62], [38, 20, 42, 60]]
        );
    }

    #[test]
    fn bands_become_rectangles_by_the_non_zero_rule() {
        // A confidence band: the upper bound rightward, the lower back, 0.18 of 255 as alpha.
        let band = r##"<polygon fill-opacity="0.18" fill="#0072B2" points="10,5 20,5 20,8 30,8 30,20 20,20 20,15 10,15 "/>"##;
        assert_eq!(
            taken(band, 2.0),
            Some(Boxes {
                colour: [0x00, 0x72, 0xB2],
                alpha: 46,
                rects: vec![[20, 10, 40, 16], [20, 16, 60, 30], [40, 30, 60, 40]]
            })
        );
        // Where a loop the other way round overlaps the first, the winding is 0: a hole. A
        // loop turning back on itself cancels out.
        let twice =
            r##"<polygon fill="#000" points="0,0 10,0 10,10 0,10 0,5 5,5 5,15 15,15 15,5 0,5"/>"##;
        assert_eq!(
            taken(twice, 1.0).unwrap().rects,
            [
                [0, 0, 10, 5],
                [0, 5, 5, 10],
                [10, 5, 15, 10],
                [5, 10, 15, 15]
            ]
        );
        let back = r##"<polygon fill="#000" points="0,0 10,0 10,10 0,10 0,0 0,10 10,10 10,0"/>"##;
        assert_eq!(taken(back, 1.0).unwrap().rects, Vec::<[i64; 4]>::new());
        // The side closing the polygon counts: here it is diagonal.
        let open =
            r##"<polygon fill="#000" points="0,0 10,0 10,10 0,10 0,0 5,0 15,0 15,10 5,10"/>"##;
        assert_eq!(taken(open, 1.0), None);
    }

    #[test]
    fn anything_else_stays_for_resvg() {
        for (element, scale) in [
            // Off the pixel grid at this scale.
            (
                r##"<rect x="10.25" y="20" width="30" height="5" fill="#000" stroke="none"/>"##,
                2.0,
            ),
            (
                r##"<rect x="10" y="20" width="30" height="5" fill="#000" stroke="none"/>"##,
                1.5,
            ),
            (
                r##"<polyline fill="none" stroke="#000" stroke-width="1" points="0,0 10,0"/>"##,
                1.0,
            ),
            // Not opaque, not one plain colour, stroked, rounded, transformed, styled.
            (
                r##"<rect width="3" height="5" fill="#000" opacity="0.5"/>"##,
                2.0,
            ),
            (
                r##"<rect width="3" height="5" fill="#000" fill-opacity="0.5"/>"##,
                2.0,
            ),
            (r##"<rect width="3" height="5" fill="black"/>"##, 2.0),
            (r##"<rect width="3" height="5"/>"##, 2.0),
            (
                r##"<rect width="3" height="5" fill="#000" stroke="#fff"/>"##,
                2.0,
            ),
            (r##"<rect width="3" height="5" fill="#000" rx="1"/>"##, 2.0),
            (
                r##"<rect width="3" height="5" fill="#000" transform="scale(2)"/>"##,
                2.0,
            ),
            (
                r##"<rect width="3" height="5" fill="#000" class="a"/>"##,
                2.0,
            ),
            (
                r##"<rect width="3" height="5" fill="#000"><title>t</title></rect>"##,
                2.0,
            ),
            // No area, no size, a value usvg reads another way.
            (r##"<rect width="0" height="5" fill="#000"/>"##, 2.0),
            (r##"<rect width="3" fill="#000"/>"##, 2.0),
            (r##"<rect width="3px" height="5" fill="#000"/>"##, 2.0),
            (r##"<rect width="3" height="5" fill="#000" x="1e1"/>"##, 2.0),
            // Polylines: diagonal, turning back, no segment, filled, dashed, capped, joined
            // otherwise, points written otherwise, an odd coordinate.
            (
                r##"<polyline fill="none" stroke="#000" points="0,0 10,10"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="0,0 10,0 5,0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="5,5 5,5"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="5,5"/>"##,
                2.0,
            ),
            (r##"<polyline stroke="#000" points="0,0 10,0"/>"##, 2.0),
            (r##"<polyline fill="none" points="0,0 10,0"/>"##, 2.0),
            (
                r##"<polyline fill="none" stroke="#000" stroke-dasharray="2" points="0,0 10,0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" stroke-linecap="square" points="0,0 10,0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" stroke-linejoin="round" points="0,0 10,0 10,5"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" stroke-width="0" points="0,0 10,0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="0 0 10 0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="0,0,10,0"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" points="0,0 10"/>"##,
                2.0,
            ),
            (
                r##"<polyline fill="none" stroke="#000" opacity="0.9" points="0,0 10,0"/>"##,
                2.0,
            ),
            (
                r##"<line x1="0" y1="0" x2="10" y2="0" stroke="#000"/>"##,
                2.0,
            ),
            // Polygons: a diagonal side (the closing one too), stroked, another rule, an
            // opacity written otherwise or out of range, no colour.
            (r##"<polygon fill="#000" points="0,0 10,0 10,10"/>"##, 2.0),
            (
                r##"<polygon fill="#000" points="0,0 10,0 10,10 5,10 5,5"/>"##,
                2.0,
            ),
            (
                r##"<polygon fill="#000" stroke="#fff" points="0,0 10,0 10,10 0,10"/>"##,
                2.0,
            ),
            (
                r##"<polygon fill="#000" fill-rule="evenodd" points="0,0 10,0 10,10 0,10"/>"##,
                2.0,
            ),
            (
                r##"<polygon fill="#000" fill-opacity="18%" points="0,0 10,0 10,10 0,10"/>"##,
                2.0,
            ),
            (
                r##"<polygon fill="#000" fill-opacity="1.5" points="0,0 10,0 10,10 0,10"/>"##,
                2.0,
            ),
            (r##"<polygon points="0,0 10,0 10,10 0,10"/>"##, 2.0),
            (
                r##"<polygon fill="#000" points="0,0 10,0 10,10 0,10" transform="scale(2)"/>"##,
                2.0,
            ),
        ] {
            assert_eq!(taken(element, scale), None, "{element} at {scale}");
        }
    }
}
