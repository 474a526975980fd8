//! Markdown to HTML and to plain text (pulldown-cmark), keeping only safe link targets, and
//! the escapes Markdown and HTML need.

use super::html;

/// Escapes a data string for Markdown: the characters that could start markup (emphasis,
/// code, links, tables, raw HTML, entities) get a backslash, and line breaks become spaces so
/// a value cannot start a new block. Renders as the same text.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

/// Markdown → HTML with pulldown-cmark; `inline` drops the wrapping paragraph of a one-line
/// text so it can sit inside a sentence. Raw HTML in the Markdown is escaped, not passed on,
/// and a link or image whose target is not [`safe_url`] is rendered as its text alone.
pub fn markdown_to_html(md: &str, inline: bool) -> String {
    markdown_html(md, inline, pulldown_cmark::Options::empty())
}

/// [`markdown_to_html`] with GitHub-style tables (`readout diff`).
pub fn markdown_tables_to_html(md: &str) -> String {
    markdown_html(md, false, pulldown_cmark::Options::ENABLE_TABLES)
}

/// Text for HTML: `&`, `<`, `>`, `"` and `'` as character references.
pub fn html_escape(text: &str) -> String {
    tera::escape_html(text)
}

fn markdown_html(md: &str, inline: bool, options: pulldown_cmark::Options) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    // For each open link or image: whether its tags were dropped.
    let mut dropped: Vec<bool> = Vec::new();
    let parser = Parser::new_ext(md, options).filter_map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
        Event::Start(Tag::Link { ref dest_url, .. } | Tag::Image { ref dest_url, .. }) => {
            let unsafe_target = !safe_link(dest_url);
            dropped.push(unsafe_target);
            (!unsafe_target).then_some(event)
        }
        Event::End(TagEnd::Link | TagEnd::Image) => {
            let was_dropped = dropped.pop().unwrap_or(false);
            (!was_dropped).then_some(event)
        }
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    let trimmed = html.trim_end();
    if inline {
        if let Some(inner) = trimmed
            .strip_prefix("<p>")
            .and_then(|s| s.strip_suffix("</p>"))
        {
            if !inner.contains("<p>") {
                return inner.to_string();
            }
        }
    }
    trimmed.to_string()
}

/// Whether a link target may stay a link in a document: `http:`, `https:` and `mailto:`
/// links, and relative links and fragments (no scheme). Read as a browser reads it: tabs and
/// line breaks anywhere and control characters and spaces in front are ignored, the scheme in
/// any case (entities and backslash escapes are already decoded by the Markdown parser).
/// Anything else with a colon before the first `/`, `?` or `#` is refused, whatever the
/// characters before the colon.
pub fn safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let trimmed = cleaned.trim_start_matches(|c: char| c <= ' ');
    match trimmed.find([':', '/', '?', '#']) {
        Some(i) if trimmed[i..].starts_with(':') => {
            let scheme = trimmed[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// Whether a Markdown link or image target may stay a link: [`safe_url`] as the Markdown
/// parser decoded it, and again with HTML's character references decoded once more (a reader
/// that leaves `&#00000058;` to the browser makes it a colon).
pub fn safe_link(dest: &str) -> bool {
    safe_url(dest) && safe_url(&html::decode_references(dest))
}

/// Markdown → plain text for `abstract.txt`: the words without markup; soft line breaks become
/// spaces, paragraphs are separated by a blank line, list items start with "- ". Raw HTML is
/// markup too: its tags and comments are left out, the text between them kept.
pub fn markdown_to_text(md: &str) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut out = String::new();
    // Inside a tag or a comment of raw HTML that a line of an HTML block left open.
    let mut open = None;
    for event in Parser::new(md) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::Html(t) => strip_tags(&t, &mut out, &mut open),
            Event::InlineHtml(_) => {}
            Event::End(TagEnd::HtmlBlock) => open = None,
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::End(TagEnd::Item) => out.push('\n'),
            Event::End(
                TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::List(_) | TagEnd::BlockQuote(_),
            ) => out.push_str("\n\n"),
            _ => {}
        }
    }
    let mut text = String::new();
    let mut blank = false;
    for line in out.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push('\n');
            blank = false;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

/// The text of raw HTML without its tags and comments, onto `out`; `open` carries a tag
/// (`Some(">")`) or comment (`Some("-->")`) left open from one line to the next.
fn strip_tags(html: &str, out: &mut String, open: &mut Option<&'static str>) {
    let mut rest = html;
    loop {
        if let Some(close) = *open {
            match rest.find(close) {
                Some(i) => {
                    rest = &rest[i + close.len()..];
                    *open = None;
                }
                None => return,
            }
        }
        let start = rest.char_indices().find(|&(i, c)| {
            c == '<'
                && rest[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_ascii_alphabetic() || "/!?".contains(n))
        });
        match start {
            Some((i, _)) => {
                out.push_str(&rest[..i]);
                let (close, skip) = if rest[i..].starts_with("<!--") {
                    ("-->", 4)
                } else {
                    (">", 1)
                };
                *open = Some(close);
                rest = &rest[i + skip..];
            }
            None => {
                out.push_str(rest);
                return;
            }
        }
    }
}
