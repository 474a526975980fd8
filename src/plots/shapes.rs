//! The shapes a split figure still leaves to resvg (markers, arrow heads, diagonal strokes), as
//! coverage masks, so that the figure can be drawn a band of rows at a time like the others
//! (docs/PERFORMANCE.md, item 59).
//!
//! Each shape is what resvg's `render_node` paints for it: the path filled, then its outline
//! stroked (or the other way round, by its paint order), each with the transform resvg composes,
//! filled anti-aliased by tiny-skia in a mask of its own ([`glyphs::coverage`], which moves the
//! path by whole pixels, exact in `f32`, and refuses what that would change) and painted as
//! tiny-skia paints an opaque colour. Only what this mirrors exactly is taken: plain paths in
//! groups that resvg does not isolate, painted with one opaque colour, filled by the non-zero
//! rule, stroked without dashes and wider than a hairline. Anything else leaves the figure to
//! resvg whole.

use std::borrow::Cow;

use resvg::tiny_skia::{self, PathStroker, Transform};
use resvg::usvg::{FillRule, Node, Paint, Tree};

use super::glyphs::{self, Banded};

/// Coverage bytes, as a share of the image's pixels, past which a figure is drawn whole: long
/// strokes (a spider plot's lines) would take more memory as masks than the image itself.
const MASK_SHARE: usize = 4;

/// The shapes of the top-level `node` of a split tree, drawn with `root` (resvg's transform for
/// the figure), in painting order, appended to `out`; `None` when any is outside what this
/// module mirrors or does not lie wholly inside the `width` × `height` image.
pub(super) fn of_node(
    node: &Node,
    root: Transform,
    width: u32,
    height: u32,
    out: &mut Vec<Banded<'_>>,
) -> Option<()> {
    // As `render_split` and resvg's `render_node` compose it: to the layer's corner and back.
    let Some(bbox) = node.abs_layer_bounding_box() else {
        return Some(());
    };
    let transform = root
        .pre_translate(bbox.x(), bbox.y())
        .pre_translate(-bbox.x(), -bbox.y());
    shapes(node, transform, width, height, out)
}

/// Whether the shapes of `tree`'s top-level nodes are few and small enough to be drawn as
/// masks at `scale` in a `width` × `height` image (see [`MASK_SHARE`]): their layer boxes,
/// which hold everything they paint, are summed.
pub(super) fn small_enough(tree: &Tree, scale: f32, width: u32, height: u32) -> bool {
    let limit = (width as usize * height as usize / MASK_SHARE) as f32;
    let mut area = 0.0f32;
    for node in tree.root().children() {
        if node.id() == glyphs::BACKGROUND_ID {
            continue;
        }
        let mut add = |node: &Node| {
            if let Some(b) = node.abs_layer_bounding_box() {
                area += (b.width() * scale + 2.0) * (b.height() * scale + 2.0);
            }
        };
        // A run group's box would also hold the space between its shapes: each is summed.
        match node {
            Node::Group(group) => group.children().iter().for_each(add),
            _ => add(node),
        }
        if area > limit {
            return false;
        }
    }
    true
}

fn shapes(
    node: &Node,
    transform: Transform,
    width: u32,
    height: u32,
    out: &mut Vec<Banded<'_>>,
) -> Option<()> {
    match node {
        Node::Group(group) => {
            if group.should_isolate() {
                return None;
            }
            let transform = transform.pre_concat(group.transform());
            for child in group.children() {
                shapes(child, transform, width, height, out)?;
            }
            Some(())
        }
        Node::Path(path) => {
            if !path.is_visible() {
                return Some(());
            }
            if !path.rendering_mode().use_shape_antialiasing() {
                return None;
            }
            let fill_first = path.paint_order() == resvg::usvg::PaintOrder::FillAndStroke;
            for filled in [fill_first, !fill_first] {
                let shape = match filled {
                    true => fill(path)?,
                    false => stroke(path, transform)?,
                };
                if let Some((outline, colour)) = shape {
                    let mask = glyphs::coverage(&outline, transform, width, height)?;
                    out.push(Banded::covered(colour, mask));
                }
            }
            Some(())
        }
        Node::Image(_) | Node::Text(_) => None,
    }
}

/// The one opaque colour of a paint, if that is what it is.
fn opaque(paint: &Paint, opacity: resvg::usvg::Opacity) -> Option<[u8; 3]> {
    match paint {
        Paint::Color(c) if opacity.to_u8() == u8::MAX => Some([c.red, c.green, c.blue]),
        _ => None,
    }
}

/// What resvg's `fill_path` fills for `path`: its data, in its colour; nothing (`Some(None)`)
/// without a fill or with a flat bounding box.
fn fill(path: &resvg::usvg::Path) -> Option<Option<(Cow<'_, tiny_skia::Path>, [u8; 3])>> {
    let Some(fill) = path.fill() else {
        return Some(None);
    };
    let bounds = path.data().bounds();
    if bounds.width() == 0.0 || bounds.height() == 0.0 {
        return Some(None);
    }
    if fill.rule() != FillRule::NonZero {
        return None;
    }
    let colour = opaque(fill.paint(), fill.opacity())?;
    Some(Some((Cow::Borrowed(path.data()), colour)))
}

/// What resvg's `stroke_path` fills for `path` drawn with `transform`, through tiny-skia's:
/// the outline at the transform's resolution (filled by the non-zero rule), in its colour;
/// nothing (`Some(None)`) without a stroke.
fn stroke(
    path: &resvg::usvg::Path,
    transform: Transform,
) -> Option<Option<(Cow<'_, tiny_skia::Path>, [u8; 3])>> {
    let Some(stroke) = path.stroke() else {
        return Some(None);
    };
    let colour = opaque(stroke.paint(), stroke.opacity())?;
    let stroke = stroke.to_tiny_skia();
    // tiny-skia draws a stroke at most a pixel wide as a hairline, another way; a skewed
    // transform or a dash is not mirrored here.
    let (sx, sy) = (transform.sx.abs(), transform.sy.abs());
    let thin = stroke.width * sx <= 1.0 || stroke.width * sy <= 1.0;
    if stroke.dash.is_some() || transform.kx != 0.0 || transform.ky != 0.0 || thin {
        return None;
    }
    let outline = path
        .data()
        .stroke(&stroke, PathStroker::compute_resolution_scale(&transform))?;
    Some(Some((Cow::Owned(outline), colour)))
}
