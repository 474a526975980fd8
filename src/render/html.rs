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
        let name = html[lt + 1..name_end].to_ascii_lowercase();
        if name == "svg" || name == "math" {
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
            let attr = html[attr_start..j].to_ascii_lowercase();
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
                if URL_ATTRIBUTES.contains(&attr.as_str()) && !safe_target(&attr, value) {
                    remove.push((attr_start, j));
                }
            }
        }
        i = (j + 1).min(bytes.len());
        if foreign == 0 && RAW_TEXT.contains(&name.as_str()) {
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
fn decode_references(value: &str) -> Cow<'_, str> {
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
}
