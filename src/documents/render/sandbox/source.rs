//! The prescan of a template's text before Tera parses it.

use super::*;

/// Checks a template's text before Tera parses it: its size (`max_bytes`), the nesting of
/// block tags and brackets, the words in one tag and the reserved prefix. Comments and
/// `raw` blocks are skipped as Tera skips them; an unclosed tag is left for Tera to report.
pub fn check_source(text: &str, max_bytes: usize) -> Result<(), SourceError> {
    if text.len() > max_bytes {
        return Err(SourceError::whole(format!(
            "{} bytes; a template may have at most {}",
            thousands(text.len() as u64),
            size(max_bytes)
        )));
    }
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"{#") {
            let Some(end) = find(bytes, i + 2, b"#}") else {
                return Ok(());
            };
            line += count_lines(&bytes[i..end]);
            i = end + 2;
        } else if rest.starts_with(b"{%") || rest.starts_with(b"{{") {
            let statement = rest.starts_with(b"{%");
            let close: &[u8] = if statement { b"%}" } else { b"}}" };
            let tag_line = line;
            let Some(tag) = scan_tag(bytes, i + 2, close, tag_line)? else {
                return Ok(());
            };
            line += count_lines(&bytes[i..tag.end]);
            i = tag.end;
            if statement {
                match tag.keyword.as_str() {
                    "if" | "for" | "macro" | "block" | "filter" => {
                        depth += 1;
                        if depth > MAX_NESTING {
                            return Err(SourceError::at(
                                tag_line,
                                format!(
                                    "`{}` tags nested more than {MAX_NESTING} deep; the limit \
                                     is {MAX_NESTING}",
                                    tag.keyword
                                ),
                            ));
                        }
                    }
                    "endif" | "endfor" | "endmacro" | "endblock" | "endfilter" => {
                        depth = depth.saturating_sub(1);
                    }
                    "raw" => {
                        // Until `{% endraw %}` (any whitespace control), nothing is a tag.
                        let mut j = i;
                        loop {
                            let Some(open) = find(bytes, j, b"{%") else {
                                return Ok(());
                            };
                            let inner = &text[open + 2..];
                            let word = inner.trim_start_matches('-').trim_start();
                            if word.starts_with("endraw") {
                                line += count_lines(&bytes[i..open]);
                                i = open;
                                break;
                            }
                            j = open + 2;
                        }
                    }
                    _ => {}
                }
            }
        } else {
            if bytes[i] == b'\n' {
                line += 1;
            }
            i += 1;
        }
    }
    if let Some((at, c)) = crate::error::find_refused_control(text) {
        return Err(SourceError::at(
            1 + count_lines(&bytes[..at]),
            format!(
                "{}; expected text without control characters (tab and line breaks are \
                 allowed)",
                crate::error::refused_character(c)
            ),
        ));
    }
    if text.contains(RESERVED) {
        let at = text.find(RESERVED).unwrap_or(0);
        let line = 1 + count_lines(&bytes[..at]);
        return Err(SourceError::at(
            line,
            format!("`{RESERVED}` names are reserved for readout"),
        ));
    }
    Ok(())
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|k| from + k)
}

/// A tag scanned: where it ends (after its closing delimiter) and its first word.
struct Tag {
    end: usize,
    keyword: String,
}

/// Scans a tag from `start` (after `{%` or `{{`) to `close`, outside string literals:
/// bracket nesting and the number of words and symbols. `None` when it is not closed.
fn scan_tag(
    bytes: &[u8],
    start: usize,
    close: &[u8],
    line: usize,
) -> Result<Option<Tag>, SourceError> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = start;
    while i < bytes.len() && (bytes[i] == b'-' || bytes[i].is_ascii_whitespace()) {
        i += 1;
    }
    let keyword_end = i + bytes[i..].iter().take_while(|b| word(**b)).count();
    let keyword = String::from_utf8_lossy(&bytes[i..keyword_end]).into_owned();
    let mut brackets = 0usize;
    let mut tokens = 0usize;
    let mut in_word = false;
    while i < bytes.len() {
        let b = bytes[i];
        if bytes[i..].starts_with(close) {
            return Ok(Some(Tag {
                end: i + close.len(),
                keyword,
            }));
        }
        let is_word = word(b);
        if is_word && !in_word || !is_word && !b.is_ascii_whitespace() {
            tokens += 1;
        }
        in_word = is_word;
        match b {
            b'"' | b'\'' | b'`' => {
                // A string literal: one token, skipped to its closing quote.
                match memchr::memchr(b, &bytes[i + 1..]) {
                    Some(k) => i += k + 1,
                    None => return Ok(None),
                }
            }
            b'(' | b'[' | b'{' => {
                brackets += 1;
                if brackets > MAX_NESTING {
                    return Err(SourceError::at(
                        line,
                        format!(
                            "brackets nested more than {MAX_NESTING} deep in one tag; the limit \
                             is {MAX_NESTING}"
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' => brackets = brackets.saturating_sub(1),
            _ => {}
        }
        if tokens > MAX_TAG_TOKENS {
            return Err(SourceError::at(
                line,
                format!(
                    "a tag of more than {MAX_TAG_TOKENS} words and symbols; the limit is \
                     {MAX_TAG_TOKENS}"
                ),
            ));
        }
        i += 1;
    }
    Ok(None)
}
