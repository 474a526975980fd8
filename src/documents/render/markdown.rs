//! Markdown as readout writes it (`abstract.md`): whatever a template, a config text or the
//! study title put there, no link or image keeps an unsafe target and no raw HTML stays raw,
//! so pandoc or a static site generator cannot make them live (`docs/BAD-INPUT.md`).
//!
//! The text is read as CommonMark (pulldown-cmark, with byte offsets) and only the unsafe
//! parts are rewritten; everything else keeps its bytes, so Markdown without them comes out
//! as it went in:
//!
//! - a link or image whose target is not [`super::safe_link`]: its text alone;
//! - a reference definition with such a target: `\[` in front, so it reads as text (every
//!   definition of a label, not only the first, which other readers may prefer);
//! - raw HTML, and in text a `<` that could open a tag (other readers take tags CommonMark
//!   does not, such as `<img/src=x onerror=…>`): `&lt;`;
//! - in text a `{`, and the `{` opening a fenced code block's info: `\{` (pandoc's attributes
//!   `[x]{onclick=…}`, `` `…`{=html} ``).
//!
//! A rewrite can make new markup (a link's text may hold another), so the text is read again
//! until nothing is left to rewrite; nesting built to outlast `MAX_PASSES` readings gets
//! every markup character escaped.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// Readings of the text before it is escaped whole.
const MAX_PASSES: usize = 16;

/// Readings that look for reference definitions hidden behind an earlier one of their label.
const MAX_DEFINITION_ROUNDS: usize = 8;

/// `md` with unsafe links, images, reference definitions and raw HTML made text (borrowed
/// when there are none).
pub fn neutralise(md: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(md);
    for _ in 0..MAX_PASSES {
        let Some(edits) = unsafe_parts(&text) else {
            break;
        };
        if edits.is_empty() {
            return text;
        }
        text = Cow::Owned(apply(&text, edits));
    }
    Cow::Owned(escape_all(&text))
}

/// A rewrite: the bytes of `range` replaced by `with`.
struct Edit {
    range: Range<usize>,
    with: String,
}

/// The rewrites one reading of `md` finds; `None` when definitions hide too deep to find.
fn unsafe_parts(md: &str) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    for (span, dest) in definitions(md)? {
        if !super::safe_link(&dest) {
            if let Some(k) = md[span.clone()].find('[') {
                let at = span.start + k;
                edits.push(Edit {
                    range: at..at,
                    with: "\\".to_string(),
                });
            }
        }
    }
    // The unsafe link or image being replaced: its range, where its text starts and ends,
    // and how deep the events inside it are.
    let mut replacing: Option<(Range<usize>, Option<Range<usize>>, usize)> = None;
    let mut in_code_block = 0usize;
    for (event, range) in Parser::new_ext(md, OPTIONS).into_offset_iter() {
        if let Some((outer, inner, depth)) = &mut replacing {
            match &event {
                Event::End(TagEnd::Link | TagEnd::Image) if *depth == 0 => {
                    let with = inner.as_ref().map_or("", |r| &md[r.clone()]).to_string();
                    edits.push(Edit {
                        range: outer.clone(),
                        with,
                    });
                    replacing = None;
                    continue;
                }
                Event::Start(_) => *depth += 1,
                Event::End(_) => *depth -= 1,
                _ => {}
            }
            *inner = Some(match inner.take() {
                Some(r) => r.start.min(range.start)..r.end.max(range.end),
                None => range,
            });
            continue;
        }
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if !super::safe_link(&dest_url) =>
            {
                replacing = Some((range, None, 0));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code_block += 1;
                if let CodeBlockKind::Fenced(_) = kind {
                    // The info as written: after the fence and any spaces.
                    let block = &md[range.clone()];
                    let fence = block.trim_start_matches([' ', '\t']);
                    let info = fence
                        .trim_start_matches(['`', '~'])
                        .trim_start_matches([' ', '\t']);
                    if info.starts_with('{') {
                        let at = range.end - info.len();
                        edits.push(Edit {
                            range: at..at,
                            with: "\\".to_string(),
                        });
                    }
                }
            }
            Event::End(TagEnd::CodeBlock) => in_code_block = in_code_block.saturating_sub(1),
            Event::Html(_) | Event::InlineHtml(_) => {
                for (k, _) in md[range.clone()].match_indices('<') {
                    let at = range.start + k;
                    edits.push(Edit {
                        range: at..at + 1,
                        with: "&lt;".to_string(),
                    });
                }
            }
            Event::Text(_) if in_code_block == 0 => {
                let bytes = md.as_bytes();
                for at in range {
                    let opens_tag = bytes[at] == b'<'
                        && bytes
                            .get(at + 1)
                            .is_some_and(|b| b.is_ascii_alphabetic() || b"/!?".contains(b));
                    if (opens_tag || bytes[at] == b'{') && !escaped(bytes, at) {
                        edits.push(Edit {
                            range: at..at + 1,
                            with: if opens_tag { "&lt;" } else { "\\{" }.to_string(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    Some(edits)
}

/// The Markdown features readout's Markdown is read with (CommonMark, as it is rendered).
const OPTIONS: Options = Options::empty();

/// Every reference definition of `md`: its span and target. A reader keeps only the first
/// of a label, so the ones found are blanked and the text read again for those behind them.
fn definitions(md: &str) -> Option<Vec<(Range<usize>, String)>> {
    let mut found = Vec::new();
    let mut text: Cow<'_, str> = Cow::Borrowed(md);
    for _ in 0..MAX_DEFINITION_ROUNDS {
        let parser = Parser::new_ext(&text, OPTIONS);
        let round: Vec<(Range<usize>, String)> = parser
            .reference_definitions()
            .iter()
            .map(|(_, def)| (def.span.clone(), def.dest.to_string()))
            .collect();
        if round.is_empty() {
            return Some(found);
        }
        // Spaces in place of every byte but line ends keep the offsets and the lines.
        let mut bytes = text.into_owned().into_bytes();
        for (span, _) in &round {
            for b in &mut bytes[span.clone()] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
        text = Cow::Owned(String::from_utf8(bytes).ok()?);
        found.extend(round);
    }
    None
}

/// Whether the byte at `at` follows an odd number of backslashes.
fn escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
        % 2
        == 1
}

/// `md` with `edits` made; edits that overlap an earlier one wait for the next reading.
fn apply(md: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(md.len() + edits.len() * 3);
    let mut at = 0;
    for edit in edits {
        if edit.range.start < at {
            continue;
        }
        out.push_str(&md[at..edit.range.start]);
        out.push_str(&edit.with);
        at = edit.range.end;
    }
    out.push_str(&md[at..]);
    out
}

/// Every character that could start markup escaped, line ends kept.
fn escape_all(md: &str) -> String {
    let mut out = String::with_capacity(md.len() * 2);
    for ch in md.chars() {
        if ch.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(md: &str) -> String {
        neutralise(md).into_owned()
    }

    #[test]
    fn safe_markdown_keeps_its_bytes() {
        let md = "# Title\n\n**Background:** *Drug X* [ok](https://example.org/ \"t\"), \
                  [mail](mailto:a@b.org), [rel](figures/km.svg), [frag](#x), ![k](km.svg), \
                  <https://example.org/>, a < b, 13/38 (34.2%), \\<b\\>, \\{x}.\n\n\
                  [r]: https://example.org/r\n\n```\n<b>{x}</b>\n```\n\n    <i>{y}</i>\n\n`<b>`\n";
        assert!(matches!(neutralise(md), Cow::Borrowed(_)));
    }

    #[test]
    fn unsafe_links_images_and_definitions_become_text() {
        for (md, expected) in [
            ("[p](JaVaScRiPt:alert(1)) x", "p x"),
            ("![x](data:text/html;base64,PHNjcmlwdD4=)", "x"),
            ("[*a* b](vbscript:x)", "*a* b"),
            ("<javascript:alert(3)>", "javascript:alert(3)"),
            ("[a](&#106;avascript:x)", "a"),
            ("[a](javascript&#00000058;x)", "a"),
            ("[](javascript:x)!", "!"),
            (
                "[q][r]\n\n[r]: javascript:alert(1)\n",
                "q\n\n\\[r]: javascript:alert(1)\n",
            ),
            // A second definition of a label, which another reader may take.
            (
                "[r]: https://ok.org/\n[r]: javascript:x\n",
                "[r]: https://ok.org/\n\\[r]: javascript:x\n",
            ),
            ("[![i](javascript:1)](javascript:2)", "i"),
            (
                "[ok](https://ok.org/) [no](javascript:x)",
                "[ok](https://ok.org/) no",
            ),
        ] {
            assert_eq!(clean(md), expected, "{md}");
        }
    }

    #[test]
    fn raw_html_and_tags_other_readers_take_become_text() {
        for (md, expected) in [
            (
                "a <img src=x onerror=alert(1)> b",
                "a &lt;img src=x onerror=alert(1)> b",
            ),
            (
                "<script>alert(1)</script>\n",
                "&lt;script>alert(1)&lt;/script>\n",
            ),
            ("<!-- x -->", "&lt;!-- x -->"),
            (
                "a <img/src=x onerror=alert(1)>",
                "a &lt;img/src=x onerror=alert(1)>",
            ),
            ("\\\\<img/src=x>", "\\\\&lt;img/src=x>"),
            ("[x]{onclick=alert(1)}", "[x]\\{onclick=alert(1)}"),
            ("`<b>`{=html}", "`<b>`\\{=html}"),
            ("```{=html}\n<b>\n```\n", "```\\{=html}\n<b>\n```\n"),
        ] {
            assert_eq!(clean(md), expected, "{md}");
        }
    }

    #[test]
    fn what_comes_out_reads_safe_and_stays_as_it_is() {
        let hostile =
            "[a](javascript:1) <b>[c](javascript:2)</b>\n\n<div>\n[d](javascript:3)\n\n</div>\n\n\
                       [[e](javascript:4)](https://ok.org/) [f][g]\n\n[g]: <javascript:5>\n";
        let once = clean(hostile);
        for (event, _) in Parser::new(&once).into_offset_iter() {
            match event {
                Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML {h:?} in {once}"),
                Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                    assert!(super::super::safe_link(&dest_url), "{dest_url} in {once}")
                }
                _ => {}
            }
        }
        assert_eq!(clean(&once), once);
    }
}
