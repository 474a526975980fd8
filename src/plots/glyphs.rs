//! Text of the PNG path drawn from cached glyph masks.
//!
//! usvg lays out and outlines every `<text>` anew (it parses the font's tables several times per
//! glyph and builds a shaping plan per element), and resvg then fills every glyph outline with
//! anti-aliasing: together two thirds of rasterising a figure, for the same few dozen glyphs at
//! four sizes. Here the figure's top-level `<text>` elements are taken out of the SVG before
//! usvg sees it and drawn in their place in the painting order: shaped with rustybuzz as usvg
//! shapes them (results kept per string), each glyph's coverage rasterised once per size and
//! eighth-of-a-pixel position by tiny-skia (the same rasteriser resvg uses), then blended.
//!
//! Only text whose meaning is certain is taken: a plain `<text>` child of an unprefixed root
//! `<svg>` in the SVG namespace without styling or a viewBox other than its size, with no
//! attributes beyond `x`, `y`, `dx`, `dy`, `text-anchor`, `font-family` (every family resolves
//! to the one embedded font), `font-size`, `opacity="1"`, a `#rgb`/`#rrggbb` `fill` and a
//! `rotate(...)` transform (none in another namespace, every value written plainly: anything
//! usvg would read differently or reject is left to it), and holding no markup, no
//! right-to-left script and no bidirectional control or paragraph separator. Anything else
//! stays in the SVG for usvg, and a document with a `style` element (in any namespace) or
//! already using this module's group ids is left whole. Glyphs are placed as usvg places
//! them; their origins are rounded to an eighth of a device pixel, so a glyph may sit up to a
//! sixteenth of a pixel from where resvg would draw it (a quarter-pixel grid was as fast but
//! left twice the difference on letters' edges).

use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::tiny_skia::{
    FillRule, Mask, Paint, Path, PathBuilder, PathSegment, PixmapMut, Point, Transform,
};
use rustybuzz::ttf_parser::{GlyphId, OutlineBuilder, Rect};
use rustybuzz::{Face, ShapePlan, UnicodeBuffer};

use super::boxes::Boxes;
use super::style::FONT_BYTES;

/// The id prefix of the groups that hold the SVG's elements between two texts taken out.
const RUN_ID: &str = "readout-run-";

/// Bytes of glyph masks (and entries of any kind) the cache holds before it starts afresh: a
/// figure's glyph at scale 2 is a few hundred bytes, the largest cached one (a 128-pixel em)
/// about 12 KiB.
const CACHE_MASK_BYTES: usize = 32 << 20;
const CACHE_ENTRIES: usize = 200_000;

/// An SVG with its plain texts taken out, to be drawn in their place.
#[derive(Debug)]
pub(super) struct Split {
    /// The SVG without the texts; the elements between two texts are wrapped in a group with
    /// the id `readout-run-<k>` (`k` counting from 0).
    pub svg: String,
    /// The texts and shapes taken out, in document order.
    pub items: Vec<Taken>,
    /// The figure's background when it is painted first by a plain opaque rectangle from the
    /// origin at least the root's size: that element is then wrapped in the group
    /// [`BACKGROUND_ID`], which the rasteriser may skip after filling the pixels itself.
    pub background: Option<Background>,
    /// The root's width and height as usvg reads them, when nothing left in `svg` paints but
    /// the background (only a title, a description, comments or white space): the SVG then
    /// need not be read by usvg at all.
    pub only_taken: Option<(f32, f32)>,
}

/// The id of the group holding a [`Split`]'s background rectangle.
pub(super) const BACKGROUND_ID: &str = "readout-background";

/// A plain background rectangle: its colour and size in user units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Background {
    pub colour: [u8; 3],
    pub width: f32,
    pub height: f32,
}

/// An element taken out of the SVG and drawn here, after the runs of other elements it
/// follows.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Taken {
    /// Drawn after group `readout-run-<k>` for every `k < before_run`, and before the others.
    pub before_run: usize,
    pub item: Item,
}

/// What an element taken out is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    Text(PlainText),
    /// Axis-aligned shapes on the pixel grid ([`super::boxes`]).
    Boxes(Boxes),
}

/// A `<text>` element drawn here rather than by usvg.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PlainText {
    /// The text after XML white-space handling.
    text: String,
    /// Where the first glyph's origin is before anchoring (`x + dx`, `y + dy`), in user units.
    origin: (f32, f32),
    anchor: Anchor,
    size: f32,
    colour: [u8; 3],
    /// `rotate(angle, cx, cy)`, degrees.
    rotate: Option<(f32, f32, f32)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Anchor {
    Start,
    Middle,
    End,
}

/// How many of `svg`'s `<text>` elements [`super::svg_to_png`] draws from glyph masks (the
/// others, if any, resvg draws): every text of this crate's figures, which a test checks so a
/// change to how figures write text cannot silently leave the fast path.
pub fn glyph_drawn_texts(svg: &str) -> usize {
    taken_at_png_scale(svg, |item| matches!(item, Item::Text(_)))
}

/// How many of `svg`'s elements [`super::svg_to_png`] fills straight into the pixels at the
/// PNG scale (see the `boxes` module): a test checks that every bar, grid line, step curve
/// and band of this crate's figures is.
pub fn pixel_filled_shapes(svg: &str) -> usize {
    taken_at_png_scale(svg, |item| matches!(item, Item::Boxes(_)))
}

/// How many items of a kind [`split`] takes out of `svg` at the PNG scale.
fn taken_at_png_scale(svg: &str, kind: fn(&Item) -> bool) -> usize {
    split(svg, super::png::PNG_SCALE)
        .map_or(0, |s| s.items.iter().filter(|t| kind(&t.item)).count())
}

/// The run a node of the split SVG's root is (`None` for any other node).
pub(super) fn run_index(node: &resvg::usvg::Node) -> Option<usize> {
    match node {
        resvg::usvg::Node::Group(g) => g.id().strip_prefix(RUN_ID)?.parse().ok(),
        _ => None,
    }
}

/// Takes the plain texts out of `svg`, and the shapes that fall on the pixel grid at `scale`
/// device pixels per user unit, or `None` when the document has none to take or is outside
/// what this module understands (then usvg draws everything).
pub(super) fn split(svg: &str, scale: f32) -> Option<Split> {
    if !["<text", "<rect", "<polyline", "<polygon"]
        .iter()
        .any(|t| svg.contains(t))
        || svg.contains(RUN_ID)
        || svg.contains(BACKGROUND_ID)
        || face().is_none()
    {
        return None;
    }
    let doc = roxmltree::Document::parse(svg).ok()?;
    let root = doc.root_element();
    // usvg reads CSS from an element named `style` in any namespace.
    if !plain_root(svg, &root) || doc.descendants().any(|n| n.tag_name().name() == "style") {
        return None;
    }
    let first = root.first_child()?;
    let last = root.last_child()?;
    let mut out = String::with_capacity(svg.len());
    out.push_str(&svg[..first.range().start]);
    let mut items = Vec::new();
    let mut run = 0;
    let mut open = false;
    let mut background = None;
    // Until an element paints, a plain rectangle covering the root is the background.
    let mut painted = false;
    // Whether anything left for usvg may paint.
    let mut rest_paints = false;
    for child in root.children() {
        if !painted && child.is_element() {
            if let Some(b) = plain_background(&child, &root) {
                background = Some(b);
                // A title or description before it is in a run of its own: the background
                // group stays at the top level, where the rasteriser can skip it.
                if open {
                    out.push_str("</g>");
                    open = false;
                    run += 1;
                }
                out.push_str("<g id=\"");
                out.push_str(BACKGROUND_ID);
                out.push_str("\">");
                out.push_str(&svg[child.range()]);
                out.push_str("</g>");
                painted = true;
                continue;
            }
            // A title or a description paints nothing.
            painted = !matches!(child.tag_name().name(), "title" | "desc")
                || child.tag_name().namespace() != Some(SVG_NS);
        }
        let item = plain_text(&child)
            .map(Item::Text)
            .or_else(|| super::boxes::plain(&child, scale).map(Item::Boxes));
        if let Some(item) = item {
            if open {
                out.push_str("</g>");
                open = false;
                run += 1;
            }
            items.push(Taken {
                before_run: run,
                item,
            });
        } else if child.is_text() && !open && child.text().is_some_and(|t| t.trim().is_empty()) {
            // White space between elements draws nothing: no run of its own.
        } else {
            rest_paints |= !(child.is_comment()
                || child.is_text() && child.text().is_some_and(|t| t.trim().is_empty())
                || child.tag_name().namespace() == Some(SVG_NS)
                    && matches!(child.tag_name().name(), "title" | "desc"));
            if !open {
                out.push_str("<g id=\"");
                out.push_str(RUN_ID);
                out.push_str(&run.to_string());
                out.push_str("\">");
                open = true;
            }
            out.push_str(&svg[child.range()]);
        }
    }
    if items.is_empty() {
        return None;
    }
    if open {
        out.push_str("</g>");
    }
    // The root's end tag as written, and whatever follows it.
    out.push_str(&svg[last.range().end..]);
    // usvg reads a length with no unit or `px` as an `f64`, then takes it as an `f32`.
    let length = |name: &str| {
        let v = root.attribute(name)?;
        plain_number(v.strip_suffix("px").unwrap_or(v))?;
        let n = v.strip_suffix("px").unwrap_or(v).parse::<f64>().ok()? as f32;
        (n.is_finite() && n > 0.0).then_some(n)
    };
    let only_taken = if rest_paints {
        None
    } else {
        length("width").zip(length("height"))
    };
    Some(Split {
        svg: out,
        items,
        background,
        only_taken,
    })
}

/// A plain rectangle ([`super::boxes::plain_rect`]) painting the whole root: at the origin
/// and at least the root's size.
fn plain_background(node: &roxmltree::Node, root: &roxmltree::Node) -> Option<Background> {
    let rect = super::boxes::plain_rect(node)?;
    let size = |name: &str| {
        let v = root.attribute(name)?;
        plain_number(v.strip_suffix("px").unwrap_or(v))
    };
    let (root_w, root_h) = (size("width")?, size("height")?);
    (rect.x == 0.0 && rect.y == 0.0 && rect.width >= root_w && rect.height >= root_h).then_some(
        Background {
            colour: rect.colour,
            width: rect.width,
            height: rect.height,
        },
    )
}

pub(super) const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The root is an `<svg>` whose user units are its pixels and that passes nothing on to its
/// children, written without a prefix and with SVG as the default namespace (the groups added
/// around runs are unprefixed).
fn plain_root(svg: &str, root: &roxmltree::Node) -> bool {
    let written = &svg[root.range()];
    if !root.has_tag_name((SVG_NS, "svg"))
        || root.lookup_namespace_uri(None) != Some(SVG_NS)
        || !written.starts_with("<svg")
        || !written[4..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
    {
        return false;
    }
    let number = |name: &str| -> Option<f32> {
        let v = root.attribute(name)?;
        v.strip_suffix("px").unwrap_or(v).trim().parse().ok()
    };
    for attribute in root.attributes() {
        if attribute.namespace().is_some() {
            return false;
        }
        match attribute.name() {
            // `role` and `aria-*` are for screen readers; they draw nothing.
            "width" | "height" | "version" | "baseProfile" | "role" => {}
            name if name.starts_with("aria-") => {}
            "viewBox" => {
                let (Some(w), Some(h)) = (number("width"), number("height")) else {
                    return false;
                };
                let parts: Vec<f32> = attribute
                    .value()
                    .split([' ', ','])
                    .filter(|p| !p.is_empty())
                    .map_while(|p| p.parse().ok())
                    .collect();
                if parts != [0.0, 0.0, w, h] {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

/// A `<text>` this module draws, or `None`.
fn plain_text(node: &roxmltree::Node) -> Option<PlainText> {
    if !node.has_tag_name((SVG_NS, "text")) {
        return None;
    }
    // One text node (or none): no tspan, no comment, no other markup.
    let mut children = node.children();
    let content = match (children.next(), children.next()) {
        (None, _) => "",
        (Some(c), None) if c.is_text() => c.text()?,
        _ => return None,
    };
    let text = collapse_white_space(content);
    if text.chars().any(|c| right_to_left(c) || bidi_control(c)) {
        return None;
    }
    // The size is required: usvg's default differs from a browser's.
    let v = node.attribute("font-size")?;
    let size = plain_number(v.strip_suffix("px").unwrap_or(v))?;
    if size <= 0.0 {
        return None;
    }
    let (mut x, mut y, mut dx, mut dy) = (0.0, 0.0, 0.0, 0.0);
    let mut anchor = Anchor::Start;
    let mut colour = [0, 0, 0];
    let mut rotate = None;
    for attribute in node.attributes() {
        if attribute.namespace().is_some() {
            return None;
        }
        let v = attribute.value();
        match attribute.name() {
            "x" => x = length(v, size)?,
            "y" => y = length(v, size)?,
            "dx" => dx = length(v, size)?,
            "dy" => dy = length(v, size)?,
            "text-anchor" => {
                anchor = match v {
                    "start" => Anchor::Start,
                    "middle" => Anchor::Middle,
                    "end" => Anchor::End,
                    _ => return None,
                }
            }
            "font-family" | "font-size" => {}
            "opacity" if plain_number(v)? == 1.0 => {}
            "fill" => colour = hex_colour(v)?,
            "transform" => rotate = Some(rotation(v)?),
            _ => return None,
        }
    }
    Some(PlainText {
        text,
        origin: (x + dx, y + dy),
        anchor,
        size,
        colour,
        rotate,
    })
}

/// XML white-space handling as usvg does it for `xml:space="default"`: line breaks and tabs
/// become spaces, runs of spaces one space, and one leading and one trailing space go.
fn collapse_white_space(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut previous = None;
    for c in content.chars() {
        let c = if matches!(c, '\r' | '\n' | '\t') {
            ' '
        } else {
            c
        };
        if c == ' ' && previous == Some(' ') {
            continue;
        }
        previous = Some(c);
        out.push(c);
    }
    if out.ends_with(' ') {
        out.pop();
    }
    if out.starts_with(' ') {
        out.remove(0);
    }
    out
}

/// Characters that make usvg split a text into bidirectional runs or paragraphs (it shapes
/// runs apart and draws only the first paragraph): explicit direction marks, embeddings,
/// overrides and isolates, and paragraph separators.
fn bidi_control(c: char) -> bool {
    matches!(c as u32,
        0x1C..=0x1E | 0x85 | 0x2029 | 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069)
}

/// Characters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan,
/// Mandaic and their presentation forms, and the RTL historic scripts): text with any of them
/// needs bidirectional reordering, left to usvg (the right-to-left marks are
/// [`bidi_control`]s).
fn right_to_left(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
}

/// A number written plainly: an optional minus, digits, and optionally a point and digits
/// (what usvg reads the same way; exponents, a plus sign, spaces and the like are left to it).
pub(super) fn plain_number(v: &str) -> Option<f32> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let plain = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !(plain(whole) && plain(fraction)) {
        return None;
    }
    v.parse().ok().filter(|n: &f32| n.is_finite())
}

/// A single length: a plain number with no unit or `px`, `em` (the font size) or `ex` (half of
/// it, as usvg takes it), white space around it allowed (`x`, `y`, `dx` and `dy` are lists).
fn length(v: &str, font_size: f32) -> Option<f32> {
    let v = v.trim();
    let (number, factor) = if let Some(n) = v.strip_suffix("em") {
        (n, font_size)
    } else if let Some(n) = v.strip_suffix("ex") {
        (n, font_size / 2.0)
    } else {
        (v.strip_suffix("px").unwrap_or(v), 1.0)
    };
    Some(plain_number(number)? * factor)
}

pub(super) fn hex_colour(v: &str) -> Option<[u8; 3]> {
    let hex = v.strip_prefix('#')?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let digit = |i: usize| u8::from_str_radix(hex.get(i..i + 1)?, 16).ok();
    match hex.len() {
        3 => Some([digit(0)? * 17, digit(1)? * 17, digit(2)? * 17]),
        6 => {
            let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
            Some([byte(0)?, byte(2)?, byte(4)?])
        }
        _ => None,
    }
}

/// `rotate(a)` or `rotate(a, cx, cy)`: plain numbers apart by one comma or by spaces (with
/// optional spaces around a comma), nothing else.
fn rotation(v: &str) -> Option<(f32, f32, f32)> {
    let inner = v.trim().strip_prefix("rotate")?.trim_start();
    let inner = inner.strip_prefix('(')?.strip_suffix(')')?.trim();
    let mut numbers = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let end = rest.find([' ', ',']).unwrap_or(rest.len());
        numbers.push(plain_number(&rest[..end])?);
        rest = rest[end..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
            if rest.is_empty() {
                return None;
            }
        }
    }
    match numbers[..] {
        [a] => Some((a, 0.0, 0.0)),
        [a, cx, cy] => Some((a, cx, cy)),
        _ => None,
    }
}

/// One shaped glyph, in font units.
#[derive(Debug, Clone, Copy)]
struct Shaped {
    id: u16,
    /// The cluster (byte offset in the text) it belongs to.
    cluster: u32,
    advance: i32,
    offset: (i32, i32),
}

/// A glyph's coverage at one size and sub-pixel position (or a shape's, placed in the image).
#[derive(Debug)]
pub(super) struct GlyphMask {
    /// Offset of the mask's top-left pixel from the glyph origin's pixel.
    left: i32,
    top: i32,
    width: u32,
    coverage: Vec<u8>,
}

impl GlyphMask {
    fn rows(&self) -> i64 {
        (self.coverage.len() / (self.width as usize).max(1)) as i64
    }
}

/// Shaped strings, outlines and masks, shared by the threads of a build.
#[derive(Default)]
struct Cache {
    shaped: FxHashMap<String, Arc<[Shaped]>>,
    /// Shaping plans by the segment properties rustybuzz guesses for a text (making one is
    /// most of shaping a short label).
    plans: Vec<(PlanKey, Arc<ShapePlan>)>,
    outlines: FxHashMap<u16, Option<Arc<(Path, Rect)>>>,
    masks: FxHashMap<(u16, u32, u8, u8), Option<Arc<GlyphMask>>>,
    /// Bytes of coverage in `masks`.
    mask_bytes: usize,
}

impl Cache {
    fn full(&self) -> bool {
        self.mask_bytes > CACHE_MASK_BYTES
            || self.shaped.len() + self.outlines.len() + self.masks.len() > CACHE_ENTRIES
    }
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// `cache`, locked. It is held only to look up and to insert: shaping a text or rasterising
/// a glyph under it kept the other threads waiting (about 5 ms of a worker's time a build);
/// what they make is the same whichever thread makes it first.
fn lock(cache: &Mutex<Cache>) -> std::sync::MutexGuard<'_, Cache> {
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The build's cache, locked ([`lock`]).
fn locked() -> std::sync::MutexGuard<'static, Cache> {
    lock(cache())
}

/// The embedded font, parsed once.
fn face() -> Option<&'static Face<'static>> {
    static FACE: OnceLock<Option<Face<'static>>> = OnceLock::new();
    FACE.get_or_init(|| Face::from_slice(FONT_BYTES, 0))
        .as_ref()
}

/// The segment properties a shaping plan is made for.
type PlanKey = (
    rustybuzz::Direction,
    rustybuzz::Script,
    Option<rustybuzz::Language>,
);

/// Shapes `text` as usvg does (rustybuzz, default features, segment properties guessed), with
/// the plan `rustybuzz::shape` would make kept in `cache` for texts of the same properties;
/// shaped once and kept there.
fn shaped(cache: &Mutex<Cache>, face: &Face<'static>, text: &str) -> Arc<[Shaped]> {
    if let Some(s) = lock(cache).shaped.get(text) {
        return s.clone();
    }
    let mut buffer = UnicodeBuffer::new();
    buffer.push_str(text);
    buffer.set_direction(rustybuzz::Direction::LeftToRight);
    buffer.guess_segment_properties();
    let key = (buffer.direction(), buffer.script(), buffer.language());
    let known = |plans: &[(PlanKey, Arc<ShapePlan>)]| {
        plans
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, plan)| plan.clone())
    };
    let found = known(&lock(cache).plans);
    let plan = found.unwrap_or_else(|| {
        let plan = Arc::new(ShapePlan::new(
            face,
            key.0,
            Some(key.1),
            key.2.as_ref(),
            &[],
        ));
        // Another thread may have made the same plan meanwhile: one is kept.
        let mut cache = lock(cache);
        known(&cache.plans).unwrap_or_else(|| {
            cache.plans.push((key.clone(), plan.clone()));
            plan
        })
    });
    let output = rustybuzz::shape_with_plan(face, &plan, buffer);
    let shaped: Arc<[Shaped]> = output
        .glyph_infos()
        .iter()
        .zip(output.glyph_positions())
        .map(|(info, pos)| Shaped {
            id: info.glyph_id as u16,
            cluster: info.cluster,
            advance: pos.x_advance,
            offset: (pos.x_offset, pos.y_offset),
        })
        .collect();
    lock(cache)
        .shaped
        .entry(text.to_string())
        .or_insert(shaped)
        .clone()
}

struct Outline(PathBuilder);

impl OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.0.quad_to(x1, y1, x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.0.cubic_to(x1, y1, x2, y2, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}

/// A glyph's outline in font units (y up) and its bounding box, `None` for a glyph without
/// one (a space).
fn outline(face: &Face<'static>, id: u16) -> Option<Arc<(Path, Rect)>> {
    let mut builder = Outline(PathBuilder::new());
    let bbox = face.outline_glyph(GlyphId(id), &mut builder)?;
    Some(Arc::new((builder.0.finish()?, bbox)))
}

/// Largest em, in device pixels, drawn from cached masks (a figure's largest text at scale 2
/// is 40); larger text is filled as a path.
const MASK_EM_PIXELS: f32 = 128.0;

/// Steps per device pixel that glyph origins are rounded to.
const SUBPIXEL: f32 = 8.0;

/// The coverage of glyph `outline` scaled by `k` device pixels per font unit, its origin at
/// (`fx`, `fy`) eighths of a pixel right of and below a pixel corner.
fn rasterise(outline: &(Path, Rect), k: f32, fx: u8, fy: u8) -> Option<Arc<GlyphMask>> {
    let (path, bbox) = outline;
    let (ox, oy) = (f32::from(fx) / SUBPIXEL, f32::from(fy) / SUBPIXEL);
    let left = (ox + k * f32::from(bbox.x_min)).floor() as i32 - 1;
    let right = (ox + k * f32::from(bbox.x_max)).ceil() as i32 + 1;
    let top = (oy - k * f32::from(bbox.y_max)).floor() as i32 - 1;
    let bottom = (oy - k * f32::from(bbox.y_min)).ceil() as i32 + 1;
    let (width, height) = ((right - left) as u32, (bottom - top) as u32);
    let mut mask = Mask::new(width, height)?;
    let transform = Transform::from_row(k, 0.0, 0.0, -k, ox - left as f32, oy - top as f32);
    mask.fill_path(path, FillRule::Winding, true, transform);
    Some(Arc::new(GlyphMask {
        left,
        top,
        width,
        coverage: mask.data().to_vec(),
    }))
}

/// Draws the items taken out onto `pixmap`, whose pixels are `scale` per user unit (the
/// scale they were taken out at; [`split`] only takes anything out when the font can be read).
pub(super) fn draw(items: &[Taken], scale: f32, pixmap: &mut PixmapMut) {
    let Some(face) = face() else {
        return;
    };
    for taken in items {
        match &taken.item {
            Item::Text(text) => draw_text(face, text, scale, pixmap),
            Item::Boxes(boxes) => super::boxes::fill(boxes, pixmap),
        }
    }
}

/// Where a text's glyphs go: cached masks placed at whole pixels (their masks' corners are
/// offset from these), or, for rotated or very large text, all glyphs in one path to be filled
/// with this transform, as resvg fills a text's outlines.
enum Placed {
    Masks(Vec<(Arc<GlyphMask>, i64, i64)>),
    Path(Path, Transform),
}

/// An item taken out, ready to be drawn a band of rows at a time, with the pixels it would
/// give drawn on the whole image at once.
pub(super) struct Banded<'a> {
    /// The rows it may paint: from the first, to before the second.
    rows: (i64, i64),
    what: BandedItem<'a>,
}

enum BandedItem<'a> {
    Boxes(&'a Boxes),
    Masks([u8; 3], Vec<(Arc<GlyphMask>, i64, i64)>),
    /// A rotated or very large text's coverage, its corner in image pixels.
    Coverage([u8; 3], GlyphMask),
}

/// The items of `split` ready to be drawn band by band ([`draw_band`]) on an image `width` ×
/// `height`, with the shapes its `tree` (usvg's, of the SVG left) still paints over the
/// background, if any, as coverage ([`super::shapes`]) in their place among the items, as
/// [`super::png`]'s `render_split` interleaves them. `None` when an item or a shape cannot be
/// drawn so ([`coverage`]), or the shapes would take more memory than drawing the image whole.
pub(super) fn prepare_bands<'a>(
    split: &'a Split,
    tree: Option<&resvg::usvg::Tree>,
    scale: f32,
    width: u32,
    height: u32,
) -> Option<Vec<Banded<'a>>> {
    let face = face()?;
    if tree.is_some_and(|tree| !super::shapes::small_enough(tree, scale, width, height)) {
        return None;
    }
    let root = Transform::from_scale(scale, scale);
    let mut out = Vec::with_capacity(split.items.len());
    let mut items = &split.items[..];
    for node in tree.into_iter().flat_map(|tree| tree.root().children()) {
        // Its colour fills the band before anything is drawn.
        if node.id() == BACKGROUND_ID {
            continue;
        }
        if let Some(run) = run_index(node) {
            let before = items.partition_point(|t| t.before_run <= run);
            for taken in &items[..before] {
                push_banded(face, taken, scale, (width, height), &mut out)?;
            }
            items = &items[before..];
        }
        super::shapes::of_node(node, root, width, height, &mut out)?;
    }
    for taken in items {
        push_banded(face, taken, scale, (width, height), &mut out)?;
    }
    Some(out)
}

/// An item taken out, ready for [`draw_band`], appended to `out`; `None` when a text filled as
/// a path cannot be ([`coverage`]).
fn push_banded<'a>(
    face: &'static Face<'static>,
    taken: &'a Taken,
    scale: f32,
    (width, height): (u32, u32),
    out: &mut Vec<Banded<'a>>,
) -> Option<()> {
    match &taken.item {
        Item::Boxes(boxes) => {
            let top = boxes.rects.iter().map(|r| r[1]).min();
            let bottom = boxes.rects.iter().map(|r| r[3]).max();
            if let (Some(top), Some(bottom)) = (top, bottom) {
                let what = BandedItem::Boxes(boxes);
                out.push(Banded {
                    rows: (top, bottom),
                    what,
                });
            }
        }
        Item::Text(text) => match place_text(face, text, scale) {
            Some(Placed::Masks(placed)) => {
                let rows = placed
                    .iter()
                    .fold((i64::MAX, i64::MIN), |(t, b), (m, _, y)| {
                        let top = y + i64::from(m.top);
                        (t.min(top), b.max(top + m.rows()))
                    });
                let what = BandedItem::Masks(text.colour, placed);
                out.push(Banded { rows, what });
            }
            Some(Placed::Path(path, transform)) => {
                let mask = coverage(&path, transform, width, height)?;
                out.push(Banded::covered(text.colour, mask));
            }
            None => {}
        },
    }
    Some(())
}

impl Banded<'_> {
    /// Opaque `colour` painted through `mask`, placed in the image.
    pub(super) fn covered(colour: [u8; 3], mask: GlyphMask) -> Self {
        let top = i64::from(mask.top);
        Banded {
            rows: (top, top + mask.rows()),
            what: BandedItem::Coverage(colour, mask),
        }
    }
}

/// Draws `items` onto `band`, which holds the image's rows from `y0` on, and adds to `columns`
/// the columns of every piece drawn there (from, to before; not clipped to the image): no
/// pixel outside them changes.
pub(super) fn draw_band(
    items: &[Banded],
    band: &mut PixmapMut,
    y0: i64,
    columns: &mut Vec<(i64, i64)>,
) {
    let y1 = y0 + i64::from(band.height());
    let touches = |top: i64, bottom: i64| top < y1 && bottom > y0;
    for item in items {
        if !touches(item.rows.0, item.rows.1) {
            continue;
        }
        match &item.what {
            BandedItem::Boxes(boxes) => {
                // `fill_at` paints each rectangle's columns on the rows it shares with the band.
                columns.extend(
                    (boxes.rects.iter())
                        .filter(|r| touches(r[1], r[3]))
                        .map(|r| (r[0], r[2])),
                );
                super::boxes::fill_at(boxes, band, y0);
            }
            BandedItem::Masks(colour, placed) => {
                for (mask, x, y) in placed {
                    let (left, top) = (x + i64::from(mask.left), y + i64::from(mask.top));
                    if touches(top, top + mask.rows()) {
                        columns.push((left, left + i64::from(mask.width)));
                        blend(band, mask, left, top - y0, *colour);
                    }
                }
            }
            BandedItem::Coverage(colour, mask) => {
                let (left, top) = (i64::from(mask.left), i64::from(mask.top));
                if touches(top, top + mask.rows()) {
                    columns.push((left, left + i64::from(mask.width)));
                    paint(band, mask, left, top - y0, *colour);
                }
            }
        }
    }
}

/// The coverage tiny-skia gives `path` filled with `transform` (anti-aliased, non-zero) in an
/// image `width` × `height`, computed in a mask of its own: the path moved by whole pixels
/// toward the origin (exact in `f32`), whose scan conversion in fixed point is then the same,
/// shifted. `None` where that is not certain: an image tiny-skia would draw in tiles, a path
/// reaching past the image (it would be clipped there), a curve tiny-skia would cut at a
/// vertical turning point (the cut's new points are computed in `f32`, which moving the path
/// rounds differently), or a cubic curve (glyphs of the embedded font have none).
pub(super) fn coverage(
    path: &Path,
    transform: Transform,
    width: u32,
    height: u32,
) -> Option<GlyphMask> {
    // tiny-skia's largest image drawn without tiles.
    const UNTILED: u32 = 8191;
    if width > UNTILED || height > UNTILED {
        return None;
    }
    // As `fill_path` does before scan conversion.
    let device = path.clone().transform(transform)?;
    let b = device.bounds();
    let (left, top) = (b.left().floor(), b.top().floor());
    let (right, bottom) = (b.right().ceil(), b.bottom().ceil());
    if !(left >= 0.0 && top >= 0.0 && right <= width as f32 && bottom <= height as f32) {
        return None;
    }
    let (mut start, mut last) = (Point::zero(), Point::zero());
    for segment in device.segments() {
        match segment {
            PathSegment::MoveTo(p) => (start, last) = (p, p),
            PathSegment::LineTo(p) => last = p,
            PathSegment::QuadTo(control, end) => {
                // tiny-skia's test (`is_not_monotonic`); where `a - b` is 0 it keeps the
                // points as they are, otherwise it cuts the curve.
                let (ab, bc) = (last.y - control.y, control.y - end.y);
                let turns = ab == 0.0 || (if ab < 0.0 { -bc } else { bc }) < 0.0;
                if turns && ab != 0.0 {
                    return None;
                }
                last = end;
            }
            PathSegment::CubicTo(..) => return None,
            PathSegment::Close => last = start,
        }
    }
    let local = device.transform(Transform::from_translate(-left, -top))?;
    let (w, h) = ((right - left) as u32, (bottom - top) as u32);
    let mut mask = Mask::new(w, h)?;
    mask.fill_path(&local, FillRule::Winding, true, Transform::identity());
    Some(GlyphMask {
        left: left as i32,
        top: top as i32,
        width: w,
        coverage: mask.data().to_vec(),
    })
}

/// Paints opaque `colour` through `mask` with its top-left pixel at (`left`, `top`) as
/// tiny-skia's pipeline paints an opaque colour through anti-aliased coverage: where the
/// coverage `c` is whole, the colour; where it is partial, each byte
/// `(byte · (255 − c) + source · c + 255) >> 8` (the rounding differs from [`blend`]'s).
fn paint(pixmap: &mut PixmapMut, mask: &GlyphMask, left: i64, top: i64, colour: [u8; 3]) {
    let [r, g, b] = colour.map(u16::from);
    let source = [r, g, b, 255];
    for_rows(pixmap, mask, left, top, |line, coverage| {
        for (pixel, &c) in line.iter_mut().zip(coverage) {
            let c = u16::from(c);
            for (byte, s) in pixel.iter_mut().zip(source) {
                *byte = ((u16::from(*byte) * (255 - c) + s * c + 255) >> 8) as u8;
            }
        }
    });
}

/// Hands `each` every row of `mask` placed with its top-left pixel at (`left`, `top`) that
/// falls in the image: its pixels there and their coverage.
#[inline(always)]
fn for_rows(
    pixmap: &mut PixmapMut,
    mask: &GlyphMask,
    left: i64,
    top: i64,
    mut each: impl FnMut(&mut [[u8; 4]], &[u8]),
) {
    let (width, height) = (i64::from(pixmap.width()), i64::from(pixmap.height()));
    let mask_width = i64::from(mask.width);
    // The mask's columns inside the image: the same for every row.
    let (first, last) = (
        (-left).clamp(0, mask_width),
        (width - left).clamp(0, mask_width),
    );
    if first >= last {
        return;
    }
    let (pixels, _) = pixmap.data_mut().as_chunks_mut::<4>();
    for (row, coverage) in mask.coverage.chunks_exact(mask.width as usize).enumerate() {
        let y = top + row as i64;
        if !(0..height).contains(&y) {
            continue;
        }
        let start = (y * width + left + first) as usize;
        let Some(line) = pixels.get_mut(start..start + (last - first) as usize) else {
            continue;
        };
        let coverage = coverage
            .get(first as usize..last as usize)
            .unwrap_or_default();
        each(line, coverage);
    }
}

fn draw_text(face: &Face<'static>, text: &PlainText, scale: f32, pixmap: &mut PixmapMut) {
    match place_text(face, text, scale) {
        Some(Placed::Masks(placed)) => {
            for (mask, x, y) in placed {
                let (left, top) = (x + i64::from(mask.left), y + i64::from(mask.top));
                blend(pixmap, &mask, left, top, text.colour);
            }
        }
        Some(Placed::Path(path, transform)) => {
            let [r, g, b] = text.colour;
            let mut paint = Paint::default();
            paint.set_color_rgba8(r, g, b, 255);
            paint.anti_alias = true;
            pixmap.fill_path(&path, &paint, FillRule::Winding, transform, None);
        }
        None => {}
    }
}

fn place_text(face: &Face<'static>, text: &PlainText, scale: f32) -> Option<Placed> {
    if text.text.is_empty() {
        return None;
    }
    {
        let mut cache = locked();
        if cache.full() {
            *cache = Cache::default();
        }
    }
    let shaped = shaped(cache(), face, &text.text);
    // User units per font unit.
    let sx = text.size / face.units_per_em() as f32;
    // Glyph origins in user units as usvg places them: clusters (glyphs sharing a cluster
    // index) advance by their widest glyph, glyphs within one by their own advance.
    let mut origins = Vec::with_capacity(shaped.len());
    let mut pen = 0.0_f32;
    let mut i = 0;
    while i < shaped.len() {
        let cluster = shaped[i].cluster;
        let mut within = 0_i32;
        let mut widest = 0.0_f32;
        while i < shaped.len() && shaped[i].cluster == cluster {
            let g = shaped[i];
            origins.push((
                g.id,
                pen + (within + g.offset.0) as f32 * sx,
                -(g.offset.1 as f32) * sx,
            ));
            within += g.advance;
            widest = widest.max(g.advance as f32 * sx);
            i += 1;
        }
        pen += widest;
    }
    let shift = match text.anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -pen / 2.0,
        Anchor::End => -pen,
    };
    let (x0, y0) = (text.origin.0 + shift, text.origin.1);
    // Device pixels per font unit.
    let k = sx * scale;
    if text.rotate.is_some() || text.size * scale > MASK_EM_PIXELS {
        // Rotated text (axis titles, one or two a figure) and very large text: all glyphs in
        // one path, filled as resvg fills a text's outlines.
        let mut all = PathBuilder::new();
        let mut cache = locked();
        for &(id, gx, gy) in &origins {
            let Some(outline) = glyph_outline(&mut cache, face, id) else {
                continue;
            };
            let ts = Transform::from_row(sx, 0.0, 0.0, -sx, x0 + gx, y0 + gy);
            if let Some(p) = outline.0.clone().transform(ts) {
                all.push_path(&p);
            }
        }
        drop(cache);
        let (angle, cx, cy) = text.rotate.unwrap_or_default();
        let transform = Transform::from_scale(scale, scale)
            .pre_concat(Transform::from_rotate_at(angle, cx, cy));
        return all.finish().map(|path| Placed::Path(path, transform));
    }

    // Each glyph's mask and where it goes: looked up under the lock, the glyphs not yet seen
    // rasterised outside it, then kept.
    let mut placed = Vec::with_capacity(origins.len());
    let mut missing = Vec::new();
    {
        let mut cache = locked();
        for &(id, gx, gy) in &origins {
            let qx = ((x0 + gx) * scale * SUBPIXEL).round();
            let qy = ((y0 + gy) * scale * SUBPIXEL).round();
            // Far outside any image (a pixmap side is at most 16 384 pixels): nothing to draw.
            if !(qx.abs() < 1e7 && qy.abs() < 1e7) {
                continue;
            }
            let (qx, qy) = (qx as i64, qy as i64);
            let step = SUBPIXEL as i64;
            let (fx, fy) = (qx.rem_euclid(step) as u8, qy.rem_euclid(step) as u8);
            let key = (id, k.to_bits(), fx, fy);
            let at = (qx.div_euclid(step), qy.div_euclid(step));
            match cache.masks.get(&key) {
                Some(mask) => placed.push((mask.clone(), at)),
                None => {
                    missing.push((placed.len(), key, glyph_outline(&mut cache, face, id)));
                    placed.push((None, at));
                }
            }
        }
    }
    if !missing.is_empty() {
        let made: Vec<_> = missing
            .into_iter()
            .map(|(i, key, outline)| {
                let (_, _, fx, fy) = key;
                (i, key, outline.and_then(|o| rasterise(&o, k, fx, fy)))
            })
            .collect();
        let mut cache = locked();
        for (i, key, mask) in made {
            if !cache.masks.contains_key(&key) {
                cache.mask_bytes += mask.as_ref().map_or(0, |m| m.coverage.len());
                cache.masks.insert(key, mask.clone());
            }
            placed[i].0 = mask;
        }
    }
    Some(Placed::Masks(
        placed
            .into_iter()
            .filter_map(|(mask, (x, y))| mask.map(|m| (m, x, y)))
            .collect(),
    ))
}

fn glyph_outline(cache: &mut Cache, face: &Face<'static>, id: u16) -> Option<Arc<(Path, Rect)>> {
    cache
        .outlines
        .entry(id)
        .or_insert_with(|| outline(face, id))
        .clone()
}

/// Paints opaque `colour` through `mask` with its top-left pixel at (`left`, `top`), source
/// over the premultiplied pixels: each byte becomes `(source · c + byte · (255 − c)) / 255`,
/// rounded, for coverage `c` (the source's alpha 255). Where `c` is 0 that is the byte itself,
/// and the result is premultiplied again (no channel can pass its alpha), so every pixel is
/// computed alike, which lets the loop use vector instructions.
fn blend(pixmap: &mut PixmapMut, mask: &GlyphMask, left: i64, top: i64, colour: [u8; 3]) {
    let [r, g, b] = colour.map(u16::from);
    let source = [r, g, b, 255];
    for_rows(pixmap, mask, left, top, |line, coverage| {
        for (pixel, &c) in line.iter_mut().zip(coverage) {
            let c = u16::from(c);
            let keep = 255 - c;
            *pixel = [
                mix(source[0], pixel[0], c, keep),
                mix(source[1], pixel[1], c, keep),
                mix(source[2], pixel[2], c, keep),
                mix(source[3], pixel[3], c, keep),
            ];
        }
    });
}

/// `(source · c + byte · keep) / 255` rounded, for `c + keep = 255`: in 16 bits throughout
/// (at most 65,025 before rounding, 65,407 while rounding), so vectors hold many at once.
#[inline(always)]
fn mix(source: u16, byte: u8, c: u16, keep: u16) -> u8 {
    let v = source * c + u16::from(byte) * keep + 128;
    ((v + (v >> 8)) >> 8) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(body: &str) -> String {
        format!(
            r#"<svg width="200" height="100" viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg">{body}</svg>"#
        )
    }

    /// The texts taken out, each with the run it follows.
    fn texts(split: &Split) -> Vec<(&PlainText, usize)> {
        split
            .items
            .iter()
            .filter_map(|t| match &t.item {
                Item::Text(text) => Some((text, t.before_run)),
                Item::Boxes(_) => None,
            })
            .collect()
    }

    const PLAIN: &str = r##"<text x="10" y="20" font-size="16" fill="#4D4D4D">a</text>"##;

    #[test]
    fn plain_texts_are_taken_out_in_painting_order() {
        let doc = svg(&format!(
            r##"
<rect width="200" height="100" fill="#FFFFFF"/>
<text x="100" y="10" dy="0.76em" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="20" opacity="1" fill="#123">
Title &amp; more
</text>
<text x="5" y="50" dy="0.5ex" text-anchor="end" font-size="14px" fill="#0072B2" transform="rotate(270, 5, 50)">Axis</text>
<polyline points="0,0 10,10" stroke="black"/>
{PLAIN}"##
        ));
        let split = split(&doc, 2.0).expect("plain texts");
        let taken: Vec<(&str, usize)> = texts(&split)
            .into_iter()
            .map(|(t, run)| (t.text.as_str(), run))
            .collect();
        // The rectangle paints the whole root first: the background, not a run.
        assert_eq!(taken, [("Title & more", 0), ("Axis", 0), ("a", 1)]);
        assert_eq!(
            split.background,
            Some(Background {
                colour: [255; 3],
                width: 200.0,
                height: 100.0
            })
        );
        let title = texts(&split)[0].0;
        assert_eq!(title.origin, (100.0, 10.0 + 0.76 * 20.0));
        assert_eq!(
            (title.anchor, title.size, title.colour),
            (Anchor::Middle, 20.0, [0x11, 0x22, 0x33])
        );
        let axis = texts(&split)[1].0;
        assert_eq!(axis.origin, (5.0, 50.0 + 0.5 * 14.0 / 2.0));
        assert_eq!((axis.anchor, axis.colour), (Anchor::End, [0, 0x72, 0xB2]));
        assert_eq!(axis.rotate, Some((270.0, 5.0, 50.0)));

        // What is left is the other elements, each run in its own group, and no text.
        let rest = roxmltree::Document::parse(&split.svg).expect("well-formed");
        let root = rest.root_element();
        assert_eq!(root.attribute("viewBox"), Some("0 0 200 100"));
        let groups: Vec<(&str, Vec<&str>)> = root
            .children()
            .filter(|n| n.is_element())
            .map(|g| {
                let names = g.children().filter(|n| n.is_element());
                (
                    g.attribute("id").unwrap(),
                    names.map(|n| n.tag_name().name()).collect(),
                )
            })
            .collect();
        assert_eq!(
            groups,
            [
                ("readout-background", vec!["rect"]),
                ("readout-run-0", vec!["polyline"])
            ]
        );
        assert!(!split.svg.contains("<text"));
    }

    #[test]
    fn items_drawn_band_by_band_give_the_pixels_drawn_whole() {
        // Pseudo-random texts (plain, rotated by several angles, larger than the masks'
        // limit, some reaching past the image) and translucent and opaque boxes, drawn on
        // the whole image and a band of rows at a time, in bands of several heights.
        let mut random = super::super::test_random(0x0bad_5eed_1234_5678);
        let mut next = |n: u64| random() % n;
        let (w, h) = (400u32, 240u32);
        let (mut banded, mut paths, mut refused) = (0, 0, 0);
        for case in 0..300 {
            let mut body = String::new();
            for _ in 0..3 {
                // Mostly inside the image; a few reach past its edges.
                let (x, y) = (
                    next(1700) as f32 / 10.0 + 15.0,
                    next(900) as f32 / 10.0 + 15.0,
                );
                let size = [8, 12, 17, 30, 17, 12, 70][next(7) as usize];
                let rotate = match next(8) {
                    0..=2 => format!(r#" transform="rotate(270, {x}, {y})""#),
                    3 => format!(r#" transform="rotate(90, {x}, {y})""#),
                    4 => format!(r#" transform="rotate({}, {x}, {y})""#, next(360)),
                    _ => String::new(),
                };
                let anchor = ["start", "middle", "end"][next(3) as usize];
                body.push_str(&format!(
                    r##"<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" fill="#{:06X}"{rotate}>{}</text>"##,
                    next(1 << 24),
                    ["PFS (%)", "Months", "g"][next(3) as usize]
                ));
                let (rx, ry) = (next(200), next(120));
                let (rx2, ry2) = (rx + next(40) + 1, ry + next(30) + 1);
                let opacity = if next(2) == 0 { "0.18" } else { "1" };
                body.push_str(&format!(
                    r##"<polygon fill-opacity="{opacity}" fill="#0072B2" opacity="1" stroke="none" points="{rx},{ry} {rx2},{ry} {rx2},{ry2} {rx},{ry2}"/>"##
                ));
            }
            let svg = format!(
                r##"<svg width="200" height="120" xmlns="http://www.w3.org/2000/svg"><rect x="0" y="0" width="200" height="120" fill="#FFFFFF" opacity="1" stroke="none"/>{body}</svg>"##
            );
            let split = split(&svg, 2.0).expect("texts and boxes taken out");
            assert!(split.only_taken.is_some(), "case {case}");
            let mut whole = vec![u8::MAX; (w * h * 4) as usize];
            draw(
                &split.items,
                2.0,
                &mut PixmapMut::from_bytes(&mut whole, w, h).unwrap(),
            );
            let Some(items) = prepare_bands(&split, None, 2.0, w, h) else {
                refused += 1;
                continue;
            };
            paths += items
                .iter()
                .filter(|i| matches!(i.what, BandedItem::Coverage(..)))
                .count();
            let rows = [1, 7, 64, h as usize][case % 4];
            let stride = w as usize * 4;
            let mut drawn = Vec::new();
            for y0 in (0..h as usize).step_by(rows) {
                let n = rows.min(h as usize - y0);
                let mut band = vec![u8::MAX; n * stride];
                let mut pixmap = PixmapMut::from_bytes(&mut band, w, n as u32).unwrap();
                let mut columns = Vec::new();
                draw_band(&items, &mut pixmap, y0 as i64, &mut columns);
                // Every pixel changed lies in a column reported.
                for (i, pixel) in band.chunks_exact(4).enumerate() {
                    let x = (i % w as usize) as i64;
                    let inside = columns.iter().any(|&(from, to)| (from..to).contains(&x));
                    assert!(
                        inside || pixel == [u8::MAX; 4],
                        "case {case}: pixel {x} of a row from {y0} changed"
                    );
                }
                drawn.extend_from_slice(&band);
            }
            assert!(drawn == whole, "case {case}, bands of {rows} rows");
            banded += 1;
        }
        // Most cases are drawn in bands, with many texts filled as paths among them; a text
        // past the image's edges is refused.
        assert!(
            banded > 80 && refused > 20,
            "{banded} banded, {refused} refused"
        );
        assert!(paths > 100, "{paths} paths' coverage");
    }

    #[test]
    fn only_a_plain_rectangle_over_the_whole_root_painted_first_is_the_background() {
        let background = |body: &str| split(&svg(&format!("{body}{PLAIN}")), 2.0)?.background;
        let whole = r##"<rect x="0" y="0" width="200" height="100" fill="#369" opacity="1" stroke="none"/>"##;
        assert_eq!(
            background(&format!("<title>t</title><desc>d</desc>{whole}")).map(|b| b.colour),
            Some([0x33, 0x66, 0x99])
        );
        // After a title and description (as every figure starts), the background's group is
        // still a child of the root, which the rasteriser skips, not inside their run.
        let after_title = split(
            &svg(&format!(
                r#"<title>t</title><desc>d</desc>{whole}<polyline points="0,0 9,9" stroke="red"/>{PLAIN}"#
            )),
            2.0,
        )
        .expect("a background and a text");
        let rest = roxmltree::Document::parse(&after_title.svg).expect("well-formed");
        let top: Vec<_> = rest
            .root_element()
            .children()
            .filter_map(|n| n.attribute("id"))
            .collect();
        assert_eq!(
            top,
            ["readout-run-0", "readout-background", "readout-run-1"]
        );
        for body in [
            // Not the whole root, not at the origin, not opaque, stroked, no fill, styled.
            r##"<rect width="199" height="100" fill="#fff"/>"##,
            r##"<rect x="1" width="300" height="100" fill="#fff"/>"##,
            r##"<rect width="200" height="100" fill="#fff" opacity="0.5"/>"##,
            r##"<rect width="200" height="100" fill="#fff" stroke="#000"/>"##,
            r##"<rect width="200" height="100"/>"##,
            r##"<rect width="200" height="100" fill="#fff" rx="3"/>"##,
            r##"<rect width="200" height="100" fill="#fff" transform="scale(0.5)"/>"##,
            // Not painted first.
            &format!(r##"<circle r="3"/>{whole}"##),
            &format!("{PLAIN}{whole}"),
        ] {
            assert_eq!(background(body), None, "{body}");
        }
    }

    #[test]
    fn texts_outside_the_plain_subset_stay_for_usvg() {
        let kept = [
            r##"<text x="1" y="2" font-size="16"><tspan>a</tspan></text>"##,
            r##"<text x="1" y="2" font-size="16">a<!-- note --></text>"##,
            r##"<text x="1" y="2" font-size="16" opacity="0.5">a</text>"##,
            r##"<text x="1" y="2" font-size="16" fill="none">a</text>"##,
            r##"<text x="1" y="2" font-size="16" fill="red">a</text>"##,
            r##"<text x="1" y="2" font-size="16" fill-opacity="0.5">a</text>"##,
            r##"<text x="1" y="2" font-size="16" class="c">a</text>"##,
            r##"<text x="1" y="2" font-size="16" id="t">a</text>"##,
            r##"<text x="1" y="2" font-size="16" font-weight="bold">a</text>"##,
            r##"<text x="1" y="2" font-size="16" xml:space="preserve">a</text>"##,
            r##"<text x="1 5" y="2" font-size="16">ab</text>"##,
            r##"<text x="10%" y="2" font-size="16">a</text>"##,
            r##"<text x="1" y="2">a</text>"##,
            r##"<text x="1" y="2" font-size="0">a</text>"##,
            r##"<text x="1" y="2" font-size="16" text-anchor="inherit">a</text>"##,
            r##"<text x="1" y="2" font-size="16" transform="translate(3)">a</text>"##,
            r##"<text x="1" y="2" font-size="16" transform="rotate(1, 2)">a</text>"##,
            r##"<text x="1" y="2" font-size="16">שלום</text>"##,
            r##"<text x="1" y="2" font-size="16">مرحبا</text>"##,
            // usvg draws only the first paragraph and shapes directional runs apart.
            r##"<text x="1" y="2" font-size="16">A&#x2029;B</text>"##,
            r##"<text x="1" y="2" font-size="16">A&#x85;B</text>"##,
            r##"<text x="1" y="2" font-size="16">a&#x202A;b&#x202C;c</text>"##,
            r##"<text x="1" y="2" font-size="16">a&#x2066;b&#x2069;</text>"##,
            // usvg ignores attributes in other namespaces.
            r##"<text xmlns:a="urn:a" x="1" y="2" font-size="16" a:fill="#f00">a</text>"##,
            r##"<text xmlns:a="urn:a" x="1" y="2" font-size="16" a:x="100">a</text>"##,
            // Values usvg reads differently or rejects.
            r##"<text x="1" y="2" font-size="16 ">a</text>"##,
            r##"<text x="1" y="2" font-size="16 px">a</text>"##,
            r##"<text x="1" y="2" font-size="+16">a</text>"##,
            r##"<text x="1" y="2" font-size="1e1">a</text>"##,
            r##"<text x="1" y="2" font-size=".5">a</text>"##,
            r##"<text x="1" y="2" font-size="16" text-anchor=" middle">a</text>"##,
            r##"<text x="1" y="2" font-size="16" fill="#+f+f+f">a</text>"##,
            r##"<text x="1" y="2" font-size="16" fill=" #fff">a</text>"##,
            r##"<text x="1" y="2" font-size="16" opacity="1.0 ">a</text>"##,
            r##"<text x="1" y="2" font-size="16" transform="rotate(,90)">a</text>"##,
            r##"<text x="1" y="2" font-size="16" transform="rotate(90,,1,2)">a</text>"##,
            r##"<text x="1" y="2" font-size="16" transform="rotate(90,)">a</text>"##,
        ];
        for text in kept {
            let split = split(&svg(&format!("{text}{PLAIN}")), 2.0).expect("the plain text");
            assert_eq!(texts(&split).len(), 1, "{text}");
            assert!(split.svg.contains(text), "{text} was not kept");
        }
    }

    #[test]
    fn documents_outside_the_plain_subset_are_left_whole() {
        let whole = [
            format!(r#"<svg width="20" height="10" fill="red" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" font-size="30" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" viewBox="0 0 40 20" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" style="fill:red" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg"><style>text {{ fill: red }}</style>{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg"><g>{PLAIN}</g></svg>"#),
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg">{PLAIN}"#),
            r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>"#.to_string(),
            // CSS from a `style` element in any namespace.
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg"><h:style xmlns:h="http://www.w3.org/1999/xhtml">text {{ fill: red }}</h:style>{PLAIN}</svg>"#),
            // A prefixed root: the groups added would be in no namespace.
            r##"<svg:svg xmlns:svg="http://www.w3.org/2000/svg" width="20" height="10"><svg:text x="1" y="2" font-size="16">a</svg:text></svg:svg>"##.to_string(),
            format!(r#"<svg xmlns="urn:x" xmlns:s="http://www.w3.org/2000/svg" width="20" height="10">{PLAIN}</svg>"#),
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg" xmlns:a="urn:a" a:b="1">{PLAIN}</svg>"#),
            // The group ids this module adds, already there.
            format!(r#"<svg width="20" height="10" xmlns="http://www.w3.org/2000/svg"><g id="readout-run-0"/>{PLAIN}</svg>"#),
        ];
        for doc in &whole {
            assert!(split(doc, 2.0).is_none(), "{doc}");
        }
        // Without a viewBox, or with one equal to the size, the document is split.
        let plain = format!(
            r#"<svg width="20px" height="10" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#
        );
        assert!(split(&plain, 2.0).is_some());
        let plain = format!(
            r#"<svg width="20" height="10" viewBox="0,0,20,10" xmlns="http://www.w3.org/2000/svg">{PLAIN}</svg>"#
        );
        assert!(split(&plain, 2.0).is_some());
        // What follows the root's last child is kept as written.
        let tail = format!(
            "<svg width=\"20\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"1\" height=\"1\"/>{PLAIN}</svg >\n<!-- end -->"
        );
        let split = split(&tail, 2.0).expect("plain");
        assert!(
            split.svg.ends_with("</g></svg >\n<!-- end -->"),
            "{}",
            split.svg
        );
    }

    #[test]
    fn white_space_is_handled_as_usvg_handles_it() {
        let cases = [
            ("\n  Overall  survival\n", "Overall survival"),
            ("a\tb\r\nc", "a b c"),
            (" ", ""),
            ("", ""),
            ("  x  ", "x"),
            ("keep", "keep"),
        ];
        for (content, text) in cases {
            assert_eq!(collapse_white_space(content), text, "{content:?}");
        }
    }

    #[test]
    fn lengths_colours_and_rotations() {
        assert_eq!(length("12", 16.0), Some(12.0));
        assert_eq!(length(" 12px", 16.0), Some(12.0));
        assert_eq!(length("0.5em", 16.0), Some(8.0));
        assert_eq!(length("0.5ex", 16.0), Some(4.0));
        assert_eq!(length("-1.5", 16.0), Some(-1.5));
        for bad in [
            "1pt", "10%", "", "em", "NaN", "inf", "1 2", "+1", "1e2", ".5", "5.", "-",
        ] {
            assert_eq!(length(bad, 16.0), None, "{bad}");
        }
        assert_eq!(hex_colour("#0072B2"), Some([0, 0x72, 0xB2]));
        assert_eq!(hex_colour("#fff"), Some([255, 255, 255]));
        for bad in [
            "0072B2", "#0072B", "#GGGGGG", "white", "#ff", "#+f+f+f", " #fff", "#fff ",
        ] {
            assert_eq!(hex_colour(bad), None, "{bad}");
        }
        assert_eq!(rotation("rotate(270, 32, 196)"), Some((270.0, 32.0, 196.0)));
        assert_eq!(rotation("rotate(-90 1 2)"), Some((-90.0, 1.0, 2.0)));
        assert_eq!(rotation("rotate(45)"), Some((45.0, 0.0, 0.0)));
        assert_eq!(rotation("rotate( 90 , 1 , 2 )"), Some((90.0, 1.0, 2.0)));
        for bad in [
            "rotate(1, 2)",
            "rotate()",
            "scale(2)",
            "rotate(1) scale(2)",
            "rotate(x)",
            "rotate(,90)",
            "rotate(90,,1,2)",
            "rotate(90,)",
            "rotate(1e1)",
        ] {
            assert_eq!(rotation(bad), None, "{bad}");
        }
    }

    /// Plans kept across texts of different scripts shape each as a plan of its own would,
    /// whichever text made the plan (the texts in one order, then in the other, each time in
    /// a cache of their own: a shaped text is kept, so a second pass would only read it back).
    #[test]
    fn kept_plans_shape_as_rustybuzz_does() {
        let face = face().expect("the embedded font");
        let texts = [
            "Median 12.3 months",
            "γ-GT ≥ 3",
            "12 (34.5%)",
            "肺癌 stage",
            "Ω",
            "e\u{301}x",
            "AVATAR To",
            "😀 ok",
            "— ±0.1‰",
            "Week 12",
            "αβγ δ",
        ];
        let orders: [Vec<&str>; 2] = [texts.to_vec(), texts.iter().rev().copied().collect()];
        for order in orders {
            let cache = Mutex::default();
            for text in order {
                let mut buffer = UnicodeBuffer::new();
                buffer.push_str(text);
                buffer.set_direction(rustybuzz::Direction::LeftToRight);
                let fresh = rustybuzz::shape(face, &[], buffer);
                let kept = shaped(&cache, face, text);
                let ids: Vec<u16> = fresh
                    .glyph_infos()
                    .iter()
                    .map(|g| g.glyph_id as u16)
                    .collect();
                let advances: Vec<i32> = fresh
                    .glyph_positions()
                    .iter()
                    .map(|p| p.x_advance)
                    .collect();
                assert_eq!(kept.iter().map(|g| g.id).collect::<Vec<_>>(), ids, "{text}");
                assert_eq!(
                    kept.iter().map(|g| g.advance).collect::<Vec<_>>(),
                    advances,
                    "{text}"
                );
            }
            // Latin, Greek, Han and Common texts: a plan each, not one per text.
            let plans = lock(&cache).plans.len();
            assert!((2..texts.len()).contains(&plans), "{plans} plans");
        }
    }

    #[test]
    fn clusters_advance_by_their_widest_glyph_and_kerning_applies() {
        let face = face().expect("the embedded font");
        // Kerned pairs shape narrower than their glyphs' own advances.
        let advance = |text: &str| -> i32 {
            shaped(&Mutex::default(), face, text)
                .iter()
                .map(|g| g.advance)
                .sum()
        };
        let alone = |c: char| advance(&c.to_string());
        assert!(advance("AV") < alone('A') + alone('V'));
        assert!(advance("To") < alone('T') + alone('o'));
        // One glyph per character for Latin text, in order.
        let latin = shaped(&Mutex::default(), face, "R/M non-SCCHN");
        assert_eq!(latin.len(), 13);
        assert!(latin.windows(2).all(|w| w[0].cluster < w[1].cluster));
    }
}
