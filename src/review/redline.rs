//! The abstract of a later cut-off marked against the earlier one (`readout diff`): paragraphs
//! aligned by their label (Methods, Results, ...), then word by word, a number always a whole
//! token; written as a Word file with tracked changes and as an HTML redline
//! (docs/OUTPUTS.md).

use std::io::Read as _;
use std::path::Path;

use crate::documents::docx::Revision;
use crate::error::{Error, Result};

/// A paragraph of a redline: its pieces, kept (`None`), inserted or deleted.
pub type Paragraph = Vec<(Option<Revision>, String)>;

/// Largest abstract read (an abstract is a few kilobytes).
const MAX_ABSTRACT_BYTES: u64 = 1 << 20;
/// Largest word-by-word comparison (tokens of one × the other); beyond, the paragraph is
/// replaced whole.
const MAX_CELLS: usize = 4_000_000;

/// An abstract's text, or `None` when the file is not there.
pub fn read_abstract(path: &Path) -> Result<Option<String>> {
    // Nothing there (not even a dangling link, which open_regular refuses by name).
    if path.symlink_metadata().is_err() {
        return Ok(None);
    }
    let file = crate::files::open_regular(path, false).map_err(|why| {
        Error::data_file(
            path,
            format!("{why}; expected the abstract `readout build` wrote"),
        )
    })?;
    let mut text = String::new();
    file.take(MAX_ABSTRACT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::data_file(path, format!("not UTF-8 text ({e})")))?;
    if text.len() as u64 > MAX_ABSTRACT_BYTES {
        return Err(Error::data_file(
            path,
            format!("larger than {MAX_ABSTRACT_BYTES} bytes; expected an abstract"),
        ));
    }
    Ok(Some(text))
}

/// The paragraphs of an abstract (blank-line separated, lines joined).
fn paragraphs(text: &str) -> Vec<String> {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect()
}

/// What aligns two versions of a paragraph: its label ("Results") or, for the first, "title".
fn key(index: usize, paragraph: &str) -> String {
    match paragraph.split_once(": ") {
        Some((label, _)) if !label.contains('.') && label.chars().count() <= 30 => {
            label.to_string()
        }
        _ if index == 0 => "title".to_string(),
        _ => paragraph.to_string(),
    }
}

/// Words with the space after them: a number with its punctuation is one token.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space && !space {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Longest common subsequence of two sequences: the pairs of matched positions, in order.
fn lcs<T: PartialEq>(a: &[T], b: &[T]) -> Option<Vec<(usize, usize)>> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > MAX_CELLS {
        return None;
    }
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] = if a[i] == b[j] {
                len[at(i + 1, j + 1)] + 1
            } else {
                len[at(i + 1, j)].max(len[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if len[at(i + 1, j)] >= len[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some(pairs)
}

/// Appends a piece, merged with the last when both have the same revision.
fn push(out: &mut Paragraph, revision: Option<Revision>, text: &str) {
    match out.last_mut() {
        Some((r, t)) if *r == revision => t.push_str(text),
        _ => out.push((revision, text.to_string())),
    }
}

/// One paragraph's two versions compared word by word.
fn words(before: &str, after: &str) -> Paragraph {
    let (a, b) = (tokens(before), tokens(after));
    let mut out = Paragraph::new();
    let Some(pairs) = lcs(&a, &b) else {
        push(&mut out, Some(Revision::Deleted), before);
        push(&mut out, Some(Revision::Inserted), after);
        return out;
    };
    let (mut i, mut j) = (0, 0);
    for (pi, pj) in pairs.into_iter().chain(std::iter::once((a.len(), b.len()))) {
        for t in &a[i..pi] {
            push(&mut out, Some(Revision::Deleted), t);
        }
        for t in &b[j..pj] {
            push(&mut out, Some(Revision::Inserted), t);
        }
        if let Some(t) = a.get(pi) {
            push(&mut out, None, t);
        }
        (i, j) = (pi + 1, pj + 1);
    }
    out
}

/// The redline of two abstracts (either may be absent: all inserted, or all deleted).
pub fn redline(before: Option<&str>, after: Option<&str>) -> Vec<Paragraph> {
    let a = paragraphs(before.unwrap_or(""));
    let b = paragraphs(after.unwrap_or(""));
    let ka: Vec<String> = a.iter().enumerate().map(|(i, p)| key(i, p)).collect();
    let kb: Vec<String> = b.iter().enumerate().map(|(i, p)| key(i, p)).collect();
    let pairs = lcs(&ka, &kb).unwrap_or_default();
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (pi, pj) in pairs.into_iter().chain(std::iter::once((a.len(), b.len()))) {
        for p in &a[i..pi] {
            out.push(vec![(Some(Revision::Deleted), p.clone())]);
        }
        for p in &b[j..pj] {
            out.push(vec![(Some(Revision::Inserted), p.clone())]);
        }
        if let (Some(x), Some(y)) = (a.get(pi), b.get(pj)) {
            out.push(words(x, y));
        }
        (i, j) = (pi + 1, pj + 1);
    }
    out
}

/// The redline as a self-contained HTML page.
pub fn redline_html(title: &str, paragraphs: &[Paragraph]) -> String {
    let esc = crate::documents::render::html_escape;
    let mut body = String::new();
    for p in paragraphs {
        body.push_str("<p>");
        for (revision, text) in p {
            match revision {
                Some(Revision::Inserted) => body.push_str(&format!("<ins>{}</ins>", esc(text))),
                Some(Revision::Deleted) => body.push_str(&format!("<del>{}</del>", esc(text))),
                None => body.push_str(&esc(text)),
            }
        }
        body.push_str("</p>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <style>body{{font-family:sans-serif;max-width:48rem;margin:2rem auto;line-height:1.5}}\
         ins{{background:#d4f4dd;text-decoration:underline}}del{{background:#fbdada;color:#7a0000}}</style>\n\
         </head>\n<body>\n<h1>{}</h1>\n{body}</body>\n</html>\n",
        esc(title),
        esc(title)
    )
}

/// The text a reader gets after accepting (`accept`) or rejecting every change.
pub fn resolved(paragraphs: &[Paragraph], accept: bool) -> String {
    paragraphs
        .iter()
        .map(|p| {
            p.iter()
                .filter(|(r, _)| match r {
                    Some(Revision::Inserted) => accept,
                    Some(Revision::Deleted) => !accept,
                    None => true,
                })
                .map(|(_, t)| t.as_str())
                .collect::<String>()
        })
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepting_gives_the_later_text_and_rejecting_the_earlier() {
        let a = "Title\n\nMethods: 38 pts.\n\nResults: ORR was 34.2% (13/38).\n";
        let b = "Title\n\nResults: ORR was 36.8% (14/38) at week 24.\n\nConclusions: Active.\n";
        let r = redline(Some(a), Some(b));
        assert_eq!(resolved(&r, true), paragraphs(b).join("\n\n"));
        assert_eq!(resolved(&r, false), paragraphs(a).join("\n\n"));
        // Numbers change as whole tokens.
        let results = &r[2];
        assert!(
            results.contains(&(Some(Revision::Deleted), "34.2% (13/38).".to_string())),
            "{results:?}"
        );
        assert!(results.iter().any(|(rev, t)| *rev == Some(Revision::Inserted) && t.starts_with("36.8% (14/38) ")), "{results:?}");
        // Methods deleted whole, Conclusions inserted whole.
        assert_eq!(
            r[1],
            vec![(Some(Revision::Deleted), "Methods: 38 pts.".to_string())]
        );
        assert_eq!(
            r[3],
            vec![(Some(Revision::Inserted), "Conclusions: Active.".to_string())]
        );
        // A cohort only in the later folder: everything inserted.
        let only = redline(None, Some(b));
        assert!(only
            .iter()
            .flatten()
            .all(|(rev, _)| *rev == Some(Revision::Inserted)));
        let html = redline_html("x <y>", &r);
        assert!(
            html.contains("<del>34.2% (13&#x2F;38).</del>") && html.contains("x &lt;y&gt;"),
            "{html}"
        );
    }
}
