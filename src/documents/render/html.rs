//! The last look at every HTML document readout writes.
//!
//! Every document: an attribute that holds a URL (`href`, `src`, `xlink:href`, `action`, ...)
//! keeps only a target [`super::safe_url`] allows, and any other is removed
//! ([`remove_unsafe_urls`]), so neither a template, a config text nor a data value can leave a
//! live `javascript:`, `vbscript:` or `data:` link. Markdown links are already rendered as text
//! by [`super::markdown_to_html`]; this covers what templates write. The scan follows HTML's
//! own rules where they matter here: comments (`<!-->` and `--!>` end them too), `<script>`,
//! `<style>`, `<textarea>` and `<title>` contents are not markup (except inside `<svg>` or
//! `<math>`, where they are); attribute values may be quoted either way or not at all;
//! character references in values are decoded before the check.
//!
//! A document that a user template took part in is rebuilt first by an HTML5 sanitizer with
//! an allow-list ([`sanitize_document`]): a real parser reads it as a browser would, and only
//! listed elements, attributes and URL schemes are written back (`docs/BAD-INPUT.md`).

use std::borrow::Cow;

/// Attributes whose value a browser follows or loads as a URL.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "xlink:href",
    "action",
    "formaction",
    "poster",
    "data",
    "background",
    "cite",
    "ping",
    "srcset",
    "lowsrc",
    "dynsrc",
    "longdesc",
    "usemap",
    "manifest",
    "codebase",
    "archive",
    "icon",
    "classid",
];

/// Elements whose contents are text, not markup.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp"];

/// `html` with every URL attribute whose target is not safe removed (borrowed when there is
/// none).
pub fn remove_unsafe_urls(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    // Byte ranges of attributes to remove, in order.
    let mut remove: Vec<(usize, usize)> = Vec::new();
    // How deep in `<svg>` or `<math>` the scan is: there `<style>` and the other raw-text
    // elements hold markup (the scan may count deeper than a browser, never shallower).
    let mut foreign = 0usize;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'<', &bytes[i..]) {
        let lt = i + k;
        let rest = &bytes[lt..];
        if rest.starts_with(b"<!--") {
            i = comment_end(bytes, lt + 4);
            continue;
        }
        if rest.get(1) == Some(&b'/') {
            // Only the end of foreign content matters among end tags.
            let name = &rest[2..];
            if starts_with_ignoring_case(name, b"svg") || starts_with_ignoring_case(name, b"math") {
                foreign = foreign.saturating_sub(1);
            }
            i = lt + 2;
            continue;
        }
        if !rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
            i = lt + 1;
            continue;
        }
        let name_end = lt
            + 1
            + rest[1..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'/' | b'>'))
                .count();
        // Names compared without regard to case, as HTML reads them (not lowercased into
        // a new string: an inline figure has hundreds of tags).
        let name = &html[lt + 1..name_end];
        if name.eq_ignore_ascii_case("svg") || name.eq_ignore_ascii_case("math") {
            foreign += 1;
        }
        let mut j = name_end;
        // Attributes until `>`.
        loop {
            while j < bytes.len() && (bytes[j].is_ascii_whitespace() || bytes[j] == b'/') {
                j += 1;
            }
            if j >= bytes.len() || bytes[j] == b'>' {
                break;
            }
            let attr_start = j;
            while j < bytes.len()
                && !bytes[j].is_ascii_whitespace()
                && !matches!(bytes[j], b'/' | b'>' | b'=')
            {
                j += 1;
            }
            // A stray `=` or quote where a name should start is a one-character name.
            if j == attr_start {
                j += 1;
            }
            let attr = &html[attr_start..j];
            let mut k = j;
            while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                k += 1;
            }
            let mut value = None;
            if k < bytes.len() && bytes[k] == b'=' {
                k += 1;
                while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                    k += 1;
                }
                let (start, end, after) = match bytes.get(k) {
                    Some(&q @ (b'"' | b'\'')) => {
                        let end =
                            memchr::memchr(q, &bytes[k + 1..]).map_or(bytes.len(), |e| k + 1 + e);
                        (k + 1, end, (end + 1).min(bytes.len()))
                    }
                    _ => {
                        let end = k + bytes[k..]
                            .iter()
                            .take_while(|b| !b.is_ascii_whitespace() && **b != b'>')
                            .count();
                        (k, end, end)
                    }
                };
                value = Some(&html[start..end]);
                j = after;
            }
            if let Some(value) = value {
                let url = URL_ATTRIBUTES.iter().find(|a| a.eq_ignore_ascii_case(attr));
                if url.is_some_and(|attr| !safe_target(attr, value)) {
                    remove.push((attr_start, j));
                }
            }
        }
        i = (j + 1).min(bytes.len());
        if foreign == 0 && RAW_TEXT.iter().any(|t| t.eq_ignore_ascii_case(name)) {
            let close = format!("</{name}");
            i = find_ignoring_case(&html[i..], &close).map_or(bytes.len(), |e| i + e);
        }
    }
    if remove.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    for (start, end) in remove {
        out.push_str(&html[at..start]);
        at = end;
    }
    out.push_str(&html[at..]);
    Cow::Owned(out)
}

/// Where a comment whose text starts at `body` ends, as HTML's tokenizer reads it: `<!-->`
/// and `<!--->` are whole comments, `-->` or `--!>` end the others, and an unclosed one runs
/// to the end.
fn comment_end(bytes: &[u8], body: usize) -> usize {
    let text = &bytes[body..];
    if text.starts_with(b">") {
        return body + 1;
    }
    if text.starts_with(b"->") {
        return body + 2;
    }
    let close = memchr::memmem::find(text, b"-->").map(|e| body + e + 3);
    let bang = memchr::memmem::find(text, b"--!>").map(|e| body + e + 4);
    match (close, bang) {
        (Some(a), Some(b)) => a.min(b),
        (Some(end), None) | (None, Some(end)) => end,
        (None, None) => bytes.len(),
    }
}

fn starts_with_ignoring_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn find_ignoring_case(haystack: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    (0..haystack.len().saturating_sub(n) + 1)
        .filter(|i| haystack.is_char_boundary(*i))
        .find(|&i| {
            haystack
                .get(i..i + n)
                .is_some_and(|s| s.eq_ignore_ascii_case(needle))
        })
}

/// Whether the (still encoded) value of URL attribute `attr` is a safe target; `srcset`
/// holds several, each followed by its size.
fn safe_target(attr: &str, value: &str) -> bool {
    let decoded = decode_references(value);
    if attr == "srcset" {
        return decoded.split(',').all(|candidate| {
            super::safe_url(candidate.trim_start().split(' ').next().unwrap_or(""))
        });
    }
    super::safe_url(&decoded)
}

/// Decodes the character references a browser decodes in an attribute value: numeric ones
/// (with or without `;`) and the named ones that spell URL syntax. Others stay as written,
/// which leaves a scheme that contains them unrecognised (and so refused).
pub(crate) fn decode_references(value: &str) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp + 1..];
        if let Some(num) = rest.strip_prefix('#') {
            let (hex, digits) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let len = digits
                .chars()
                .take_while(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_ascii_digit()
                    }
                })
                .count();
            // Any number of digits (leading zeros included), as browsers read them; a value
            // past Unicode is U+FFFD.
            let radix = if hex { 16 } else { 10 };
            let code = digits[..len].chars().try_fold(0u32, |code, c| {
                let code = code * radix + c.to_digit(radix)?;
                (code <= 0x10_FFFF).then_some(code)
            });
            if len > 0 {
                out.push(code.and_then(char::from_u32).unwrap_or('\u{fffd}'));
                rest = &digits[len..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
                continue;
            }
            out.push('&');
            continue;
        }
        let named = [
            ("colon;", ':'),
            ("Tab;", '\t'),
            ("NewLine;", '\n'),
            ("amp;", '&'),
            ("amp", '&'),
            ("lt;", '<'),
            ("gt;", '>'),
            ("quot;", '"'),
            ("apos;", '\''),
            ("sol;", '/'),
            ("quest;", '?'),
            ("num;", '#'),
            ("nbsp;", '\u{a0}'),
        ];
        match named.iter().find(|(name, _)| rest.starts_with(name)) {
            Some((name, c)) => {
                out.push(*c);
                rest = &rest[name.len()..];
            }
            None => out.push('&'),
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The SVG elements of readout's figures (plotters draws with these, readout adds the title
/// and description) and their relatives.
const SVG_TAGS: &[&str] = &[
    "svg", "g", "rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "text",
    "tspan", "title", "desc",
];

/// The presentation attributes of [`SVG_TAGS`], as html5ever names them (`viewBox` in its
/// SVG case).
const SVG_ATTRIBUTES: &[&str] = &[
    "width",
    "height",
    "viewBox",
    "preserveAspectRatio",
    "xmlns",
    "x",
    "y",
    "dx",
    "dy",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "x1",
    "y1",
    "x2",
    "y2",
    "points",
    "d",
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-dasharray",
    "stroke-linecap",
    "stroke-linejoin",
    "opacity",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "text-anchor",
    "dominant-baseline",
    "transform",
];

/// HTML elements kept besides ammonia's own list (text, lists, tables, figures, links and
/// images): the sections of readout's documents and `<style>` (CSS runs no script).
const EXTRA_HTML_TAGS: &[&str] = &[
    "article", "section", "header", "footer", "main", "aside", "tfoot", "style",
];

/// Attributes kept on every element besides ammonia's `lang` and `title`.
const GENERIC_ATTRIBUTES: &[&str] = &["class", "id", "style", "dir", "role", "aria-label"];

/// Elements removed with everything in them (the others not allowed are removed, their text
/// kept).
const REMOVED_WITH_CONTENT: &[&str] = &[
    "script", "noscript", "template", "iframe", "object", "embed", "textarea", "select",
];

/// `<meta name>`s kept in the head.
const META_NAMES: &[&str] = &[
    "viewport",
    "generator",
    "description",
    "author",
    "keywords",
    "color-scheme",
];

/// The allow-list: URLs only `http:`, `https:`, `mailto:`, relative and fragments; links get
/// `rel="noopener noreferrer"`; comments go.
static SANITIZER: std::sync::LazyLock<ammonia::Builder<'static>> = std::sync::LazyLock::new(|| {
    let mut builder = ammonia::Builder::default();
    builder
        .add_tags(EXTRA_HTML_TAGS)
        .add_tags(SVG_TAGS)
        .clean_content_tags(REMOVED_WITH_CONTENT.iter().copied().collect())
        .add_generic_attributes(GENERIC_ATTRIBUTES)
        .add_tag_attributes("a", &["target"])
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .strip_comments(true);
    for tag in SVG_TAGS {
        builder.add_tag_attributes(tag, SVG_ATTRIBUTES);
    }
    builder
});

/// A whole HTML document through the sanitizer: parsed as a browser parses it (html5ever),
/// its body cleaned by the allow-list above (ammonia, which cleans fragments), its head
/// rebuilt from what is safe there: `<meta charset="utf-8">`, the listed `<meta name>`s, the
/// title as text and `<style>` sheets as written. `<script>`, `<link>`, `<base>` and
/// `http-equiv` go. Comes out a full document whatever came in.
pub fn sanitize_document(html: &str) -> String {
    use html5ever::tendril::TendrilSink;
    let dom = html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default())
        .one(html);
    let root = child_elements(&dom.document)
        .into_iter()
        .find(|n| is_html_element(n, "html"));
    let (head, body) = match &root {
        Some(root) => {
            let children = child_elements(root);
            let find = |name| children.iter().find(|n| is_html_element(n, name)).cloned();
            (find("head"), find("body"))
        }
        None => (None, None),
    };
    let mut out = String::with_capacity(html.len() + 256);
    out.push_str("<!DOCTYPE html>\n<html");
    if let Some(lang) = root.as_ref().and_then(|r| attribute(r, "lang")) {
        if !lang.is_empty()
            && lang.len() <= 35
            && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            out.push_str(&format!(" lang=\"{lang}\""));
        }
    }
    out.push_str(">\n<head>\n<meta charset=\"utf-8\">\n");
    if let Some(head) = &head {
        push_head(&mut out, head);
    }
    out.push_str("</head>\n<body");
    if let Some(body) = &body {
        for name in ["class", "id", "lang", "dir", "style"] {
            if let Some(value) = attribute(body, name) {
                out.push_str(&format!(" {name}=\"{}\"", escape_attribute(&value)));
            }
        }
    }
    out.push('>');
    if let Some(body) = &body {
        let mut inner = Vec::with_capacity(html.len());
        let handle: markup5ever_rcdom::SerializableHandle = body.clone().into();
        // Writing to memory does not fail.
        let _ = html5ever::serialize(&mut inner, &handle, Default::default());
        // Without the line ends the parser moved in from after `</body>` and `</html>`, so
        // that a document sanitized again comes out the same.
        let clean = SANITIZER
            .clean(&String::from_utf8_lossy(&inner))
            .to_string();
        out.push_str(clean.trim_end());
    }
    out.push_str("\n</body>\n</html>\n");
    out
}

/// The head's meta names, title and style sheets, one a line.
fn push_head(out: &mut String, head: &markup5ever_rcdom::Handle) {
    for element in child_elements(head) {
        if is_html_element(&element, "meta") {
            let name = attribute(&element, "name").map(|n| n.to_ascii_lowercase());
            let content = attribute(&element, "content");
            if let (Some(name), Some(content)) = (name, content) {
                if META_NAMES.contains(&name.as_str()) {
                    out.push_str(&format!(
                        "<meta name=\"{name}\" content=\"{}\">\n",
                        escape_attribute(&content)
                    ));
                }
            }
        } else if is_html_element(&element, "title") {
            out.push_str(&format!(
                "<title>{}</title>\n",
                escape_text(&text_of(&element))
            ));
        } else if is_html_element(&element, "style") {
            // The parser ended the sheet at `</style`: it cannot hold one, checked anyway.
            let css = text_of(&element);
            if !css.to_ascii_lowercase().contains("</style") {
                out.push_str(&format!("<style>{css}</style>\n"));
            }
        }
    }
}

fn child_elements(node: &markup5ever_rcdom::Handle) -> Vec<markup5ever_rcdom::Handle> {
    node.children
        .borrow()
        .iter()
        .filter(|c| matches!(c.data, markup5ever_rcdom::NodeData::Element { .. }))
        .cloned()
        .collect()
}

fn is_html_element(node: &markup5ever_rcdom::Handle, local: &str) -> bool {
    match &node.data {
        markup5ever_rcdom::NodeData::Element { name, .. } => {
            name.ns == html5ever::ns!(html) && &*name.local == local
        }
        _ => false,
    }
}

fn attribute(node: &markup5ever_rcdom::Handle, local: &str) -> Option<String> {
    match &node.data {
        markup5ever_rcdom::NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == local)
            .map(|a| a.value.to_string()),
        _ => None,
    }
}

/// The text directly in an element (a title's or a style sheet's).
fn text_of(node: &markup5ever_rcdom::Handle) -> String {
    let mut text = String::new();
    for child in node.children.borrow().iter() {
        if let markup5ever_rcdom::NodeData::Text { contents } = &child.data {
            text.push_str(&contents.borrow());
        }
    }
    text
}

fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape_attribute(value: &str) -> String {
    escape_text(value).replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_url_attributes_are_removed_and_the_rest_kept() {
        let kept = "<p><a href=\"https://a.org/?x=1&amp;y=2\">a</a> <a href='#s'>b</a> \
                    <img src=figures/km.svg alt=\"k\"> <a href=\"mailto:x@y.org\">m</a></p>";
        assert!(matches!(remove_unsafe_urls(kept), Cow::Borrowed(_)));
        for (html, expected) in [
            ("<a href=\"javascript:alert(1)\">x</a>", "<a >x</a>"),
            ("<A HREF='JavaScript:alert(1)'>x</A>", "<A >x</A>"),
            ("<a href=javascript:alert(1)>x</a>", "<a >x</a>"),
            ("<a href=\"&#106;avascript:alert(1)\">x</a>", "<a >x</a>"),
            (
                "<a href=\"&#x6A;avascript&colon;alert(1)\">x</a>",
                "<a >x</a>",
            ),
            ("<a href=\"java&Tab;script:alert(1)\">x</a>", "<a >x</a>"),
            ("<a href=\"&#0000106avascript:alert(1)\">x</a>", "<a >x</a>"),
            ("<img src=\"data:text/html,x\" alt=y>", "<img  alt=y>"),
            (
                "<svg><a xlink:href=\"vbscript:x\"><text>t</text></a></svg>",
                "<svg><a ><text>t</text></a></svg>",
            ),
            ("<form action=\"javascript:x\"></form>", "<form ></form>"),
            ("<img srcset=\"a.png 1x, javascript:x 2x\">", "<img >"),
            (
                "<a title=\"javascript:ok\" href=\" javascript:x\">t</a>",
                "<a title=\"javascript:ok\" >t</a>",
            ),
        ] {
            assert_eq!(remove_unsafe_urls(html), expected, "{html}");
        }
        // Text, comments and raw-text elements are not markup.
        for html in [
            "<p>&lt;a href=\"javascript:x\"&gt;</p>",
            "<!-- <a href=\"javascript:x\"> -->",
            "<style>a[href=\"javascript:x\"]{}</style>",
            "<title><a href=javascript:x></title>",
        ] {
            assert_eq!(remove_unsafe_urls(html), html, "{html}");
        }
    }

    /// What the scan missed (issue 28): numeric references longer than 8 digits, anchors
    /// after comments that end early (`<!-->`, `--!>`), and `<style>` inside `<svg>`, whose
    /// contents are markup there.
    #[test]
    fn the_scan_reads_long_references_short_comments_and_foreign_styles() {
        for (html, expected) in [
            (
                "<a href=\"javascript&#0000000000058;alert(1)\">x</a>",
                "<a >x</a>",
            ),
            (
                "<a href=\"javascript&#x0000000003A;alert(1)\">x</a>",
                "<a >x</a>",
            ),
            (
                "<a href=\"javascript&#99999999999999999999;alert(1)\">x</a>",
                "<a href=\"javascript&#99999999999999999999;alert(1)\">x</a>",
            ),
            (
                "<!--> <a href=\"javascript:alert(1)\">x</a>",
                "<!--> <a >x</a>",
            ),
            (
                "<!---> <a href=\"javascript:alert(1)\">x</a>",
                "<!---> <a >x</a>",
            ),
            (
                "<!-- --!> <a href=\"javascript:alert(1)\">x</a> -->",
                "<!-- --!> <a >x</a> -->",
            ),
            (
                "<svg><style><p></p><a href=\"javascript:alert(1)\">x</a></style></svg>",
                "<svg><style><p></p><a >x</a></style></svg>",
            ),
            (
                "<math><title><a href=\"javascript:alert(1)\">x</a></title></math>",
                "<math><title><a >x</a></title></math>",
            ),
        ] {
            assert_eq!(remove_unsafe_urls(html), expected, "{html}");
        }
        // After the foreign content ends, `<style>` is text again.
        let html = "<svg></svg><style>a[href=\"javascript:x\"]{}</style>";
        assert_eq!(remove_unsafe_urls(html), html);
    }

    const HOSTILE_DOCUMENT: &str = concat!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width\">\n",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(0)\">\n",
        "<title>T &amp; <x></title>\n<style>\nbody{color:red}\n.a>b{}\n</style>\n",
        "<script>alert(1)</script>\n<base href=\"javascript:alert(2)//\">\n",
        "<link rel=\"stylesheet\" href=\"https://example.org/x.css\">\n</head>\n",
        "<body class=\"k\" onload=\"alert(3)\">\n<article><h1>H</h1>\n",
        "<a href=\"javascript&#0000000000058;alert(4)\">a</a>\n",
        "<a href=\"javascript&#x0000000003A;alert(5)\">b</a>\n",
        "<!--> <a href=\"javascript:alert(6)\">c</a>\n",
        "<!-- --!> <a href=\"javascript:alert(7)\">d</a>\n",
        "<svg><style><p></p><a href=\"javascript:alert(8)\">e</a></style></svg>\n",
        "<img src=x onerror=alert(9)>\n<script>alert(10)</script>\n",
        "<form action=\"javascript:alert(11)\"><button formaction=\"javascript:alert(12)\">f</button></form>\n",
        "<iframe src=\"https://example.org/\"></iframe><object data=\"x.swf\"></object>\n",
        "<math><mi xlink:href=\"javascript:alert(13)\">g</mi></math>\n",
        "<figure id=\"fig-km\"><svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" ",
        "xmlns=\"http://www.w3.org/2000/svg\"><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" ",
        "opacity=\"1\" fill=\"#FFFFFF\" stroke=\"none\"/><polyline fill=\"none\" opacity=\"1\" ",
        "stroke=\"#000\" stroke-width=\"1\" points=\"1,1 2,2 \"/><text x=\"1\" y=\"2\" ",
        "dy=\"0.76em\" text-anchor=\"start\" font-family=\"DejaVu Sans\" font-size=\"10\" ",
        "opacity=\"1\" fill=\"#000\" onclick=\"alert(14)\">t &lt; 1</text></svg>",
        "<figcaption>F</figcaption></figure>\n",
        "<table class=\"t\"><thead><tr><th class=\"num\" colspan=\"2\">x</th></tr></thead>",
        "<tbody><tr class=\"r\"><td class=\"level\" rowspan=\"2\">1</td></tr></tbody></table>\n",
        "<a href=\"https://example.org/\">ok</a> <a href=\"#fig-km\">f</a> ",
        "<a href=\"figures/km.svg\">r</a> <a href=\"mailto:a@b.org\">m</a>\n",
        "</article>\n</body>\n</html>\n"
    );

    #[test]
    fn the_sanitizer_keeps_a_whole_document_and_only_what_is_allowed() {
        let clean = sanitize_document(HOSTILE_DOCUMENT);
        assert!(
            clean.starts_with(concat!(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                "<meta name=\"viewport\" content=\"width=device-width\">\n",
                "<title>T &amp; &lt;x&gt;</title>\n<style>\nbody{color:red}\n.a>b{}\n</style>\n",
                "</head>\n<body class=\"k\">\n<article><h1>H</h1>\n"
            )),
            "{clean}"
        );
        assert!(clean.ends_with("</article>\n</body>\n</html>\n"), "{clean}");
        for gone in [
            "javascript",
            "alert",
            "<script",
            "onerror",
            "onload",
            "onclick",
            "http-equiv",
            "<base",
            "<link",
            "<iframe",
            "<object",
            "<form",
            "formaction",
            "<!--",
        ] {
            assert!(!clean.contains(gone), "{gone} in {clean}");
        }
        for kept in [
            "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">",
            "<rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" opacity=\"1\" fill=\"#FFFFFF\" stroke=\"none\"></rect>",
            "<polyline fill=\"none\" opacity=\"1\" stroke=\"#000\" stroke-width=\"1\" points=\"1,1 2,2 \"></polyline>",
            "font-family=\"DejaVu Sans\" font-size=\"10\" opacity=\"1\" fill=\"#000\">t &lt; 1</text>",
            "<figure id=\"fig-km\">",
            "<th class=\"num\" colspan=\"2\">x</th>",
            "<td class=\"level\" rowspan=\"2\">1</td>",
            "<a href=\"https://example.org/\" rel=\"noopener noreferrer\">ok</a>",
            "<a href=\"#fig-km\" rel=\"noopener noreferrer\">f</a>",
            "<a href=\"figures/km.svg\" rel=\"noopener noreferrer\">r</a>",
            "<a href=\"mailto:a@b.org\" rel=\"noopener noreferrer\">m</a>",
            "<img src=\"x\">",
        ] {
            assert!(clean.contains(kept), "{kept} not in {clean}");
        }
        // Sanitized again, the same: what is written is what was checked.
        assert_eq!(sanitize_document(&clean), clean);
    }

    #[test]
    fn a_fragment_or_nothing_comes_out_a_whole_document() {
        assert_eq!(
            sanitize_document("<p>x</p><script>y</script>"),
            "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body><p>x</p>\n</body>\n</html>\n"
        );
        assert_eq!(
            sanitize_document(""),
            "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n</head>\n<body>\n</body>\n</html>\n"
        );
        // A language that is not a language tag is left out.
        assert!(sanitize_document("<html lang='en\" onload=\"x'>")
            .starts_with("<!DOCTYPE html>\n<html>\n"));
    }
}
