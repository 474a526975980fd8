//! Where each number of the abstract came from (docs/OUTPUTS.md, `abstract-numbers.csv`).
//!
//! The abstract is rendered a second time with tracing on: readout's filters then wrap each
//! number they print in private-use marker characters naming an [`Entry`] (the JSON Pointer of
//! the value in the cohort's `results.json` entry, the unrounded value, the filter). A filter
//! finds the pointer of its input by the input's address in the template context, which Tera
//! hands filters by reference; [`Sources`] maps those addresses to pointers. The plain render
//! stays the document: the traced one, markers stripped, must equal it, or no sources are
//! given (a user template that compares a filter's output, for one).

use std::cell::RefCell;

use serde_json::Value;

/// Opens a marked number: then the entry's index in [`ID_DIGITS`], [`MID`], the text, [`CLOSE`].
const OPEN: char = '\u{E000}';
const MID: char = '\u{E001}';
const CLOSE: char = '\u{E002}';
/// Sixteen private-use characters as the hexadecimal digits of an entry's index (not ASCII
/// digits: Markdown escaping and number scanners leave them alone).
const ID_DIGITS: u32 = 0xE010;

/// One printed number's source.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// JSON Pointer (RFC 6901) of the value, relative to the cohort's entry in `results.json`.
    pub pointer: String,
    /// The unrounded value: as in results.json, or for a percentage of two counts their ratio;
    /// `null` where the document prints "NE" or "not reached".
    pub value: Value,
    /// The pointer of the denominator, for a percentage of counts.
    pub denominator: Option<String>,
    /// The filter (or form) that printed it: `pct`, `time`, `ci`, `count`, `spell`, ...
    pub format: &'static str,
}

/// The context values a traced render can name: by address, their pointer (relative to the
/// cohort) while the context they point into is alive. Each value is a node naming its parent
/// and its token, so a context of millions of values costs a few words each, and a pointer is
/// spelled only when a filter asks for it.
#[derive(Debug, Default)]
pub struct Sources {
    by_address: rustc_hash::FxHashMap<usize, u32>,
    /// Per node: its parent's node (`u32::MAX` at a root) and its token.
    nodes: Vec<(u32, Token)>,
    /// The object keys met, each once ([`Token::Key`] names one by its place).
    keys: Vec<String>,
    key_numbers: rustc_hash::FxHashMap<String, u32>,
    /// The roots' own pointers ([`Token::Root`] names one by its place).
    roots: Vec<String>,
    /// The cohort's results as JSON: denominators are looked up beside a count.
    root: std::sync::Arc<Value>,
}

/// A node's place under its parent.
#[derive(Debug, Clone, Copy)]
enum Token {
    /// A root added with its own pointer.
    Root(u32),
    /// An object's member by its key.
    Key(u32),
    /// An array's element.
    Index(u32),
}

impl Sources {
    /// Sources under the cohort's results (`root`, as results.json holds them).
    pub fn new(root: std::sync::Arc<Value>) -> Sources {
        Sources {
            root,
            ..Sources::default()
        }
    }

    /// The cohort's results these sources point into.
    pub fn root(&self) -> std::sync::Arc<Value> {
        self.root.clone()
    }

    /// `value` (a context value) and everything below it, as `pointer` and below.
    pub fn add(&mut self, value: &Value, pointer: &str) {
        let root = self.root_token(pointer.to_string());
        self.add_below(value, (u32::MAX, root));
    }

    fn root_token(&mut self, pointer: String) -> Token {
        self.roots.push(pointer);
        Token::Root(u32::try_from(self.roots.len() - 1).unwrap_or(u32::MAX))
    }

    fn add_below(&mut self, value: &Value, (parent, token): (u32, Token)) {
        let node = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push((parent, token));
        self.by_address.insert(value as *const Value as usize, node);
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    let key = match self.key_numbers.get(key.as_str()) {
                        Some(&k) => k,
                        None => {
                            let k = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
                            self.keys.push(key.clone());
                            self.key_numbers.insert(key.clone(), k);
                            k
                        }
                    };
                    self.add_below(v, (node, Token::Key(key)));
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let i = u32::try_from(i).unwrap_or(u32::MAX);
                    self.add_below(v, (node, Token::Index(i)));
                }
            }
            _ => {}
        }
    }

    /// Only `value` itself as `pointer`.
    pub fn add_one(&mut self, value: &Value, pointer: String) {
        let token = self.root_token(pointer);
        let node = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push((u32::MAX, token));
        self.by_address.insert(value as *const Value as usize, node);
    }

    /// The pointer of the value at `address`, spelled from its node up.
    fn pointer(&self, address: usize) -> Option<String> {
        let mut node = *self.by_address.get(&address)?;
        let mut tokens: Vec<String> = Vec::new();
        loop {
            let &(parent, token) = self.nodes.get(node as usize)?;
            match token {
                Token::Root(r) => {
                    let mut pointer = self.roots.get(r as usize)?.clone();
                    for t in tokens.iter().rev() {
                        pointer.push('/');
                        pointer.push_str(t);
                    }
                    return Some(pointer);
                }
                Token::Key(k) => tokens.push(escape_token(self.keys.get(k as usize)?)),
                Token::Index(i) => tokens.push(i.to_string()),
            }
            node = parent;
        }
    }
}

/// An object key as a JSON Pointer reference token: `~` as `~0`, `/` as `~1`.
pub fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

struct Tracer {
    sources: std::sync::Arc<Sources>,
    entries: Vec<Entry>,
}

thread_local! {
    static TRACER: RefCell<Option<Tracer>> = const { RefCell::new(None) };
}

/// Runs `render` with tracing on this thread; returns what it returned and the entries its
/// marks name. Tracing ends however `render` ends.
pub fn traced<R>(sources: std::sync::Arc<Sources>, render: impl FnOnce() -> R) -> (R, Vec<Entry>) {
    struct Off;
    impl Drop for Off {
        fn drop(&mut self) {
            TRACER.with(|t| t.borrow_mut().take());
        }
    }
    TRACER.with(|t| {
        *t.borrow_mut() = Some(Tracer {
            sources,
            entries: Vec::new(),
        })
    });
    let off = Off;
    let result = render();
    let entries = TRACER
        .with(|t| t.borrow_mut().take())
        .map(|t| t.entries)
        .unwrap_or_default();
    drop(off);
    (result, entries)
}

/// Whether a traced render is running on this thread.
pub fn active() -> bool {
    TRACER.with(|t| t.borrow().is_some())
}

/// The pointer of a context value a filter was handed, while tracing.
pub fn pointer_of(value: &Value) -> Option<String> {
    TRACER.with(|t| {
        t.borrow()
            .as_ref()
            .and_then(|t| t.sources.pointer(value as *const Value as usize))
    })
}

/// `text` marked as printing `entry` while tracing (`entry` is asked for only then); `text`
/// as it is otherwise, or when `entry` gives nothing.
pub fn mark(text: String, entry: impl FnOnce() -> Option<Entry>) -> String {
    if !active() {
        return text;
    }
    // Asked for before the tracer is borrowed to keep it: it reads the tracer too.
    let Some(entry) = entry() else {
        return text;
    };
    let id = TRACER.with(|t| {
        t.borrow_mut().as_mut().map(|tracer| {
            tracer.entries.push(entry);
            tracer.entries.len() - 1
        })
    });
    let Some(id) = id else {
        return text;
    };
    let mut out = String::with_capacity(text.len() + 12);
    out.push(OPEN);
    for digit in format!("{id:x}").chars() {
        let d = digit.to_digit(16).unwrap_or(0);
        out.extend(char::from_u32(ID_DIGITS + d));
    }
    out.push(MID);
    out.push_str(&text);
    out.push(CLOSE);
    out
}

/// [`mark`] of a value the filter was handed: its own pointer.
pub fn mark_value(text: String, value: &Value, format: &'static str) -> String {
    mark(text, || {
        Some(Entry {
            pointer: pointer_of(value)?,
            value: value.clone(),
            denominator: None,
            format,
        })
    })
}

/// [`mark`] of a value below `base` (a pointer, when traced) at `path` (`/stats/median`).
pub fn mark_at(
    text: String,
    base: Option<&str>,
    path: &str,
    value: impl FnOnce() -> Value,
    format: &'static str,
) -> String {
    mark(text, || {
        Some(Entry {
            pointer: format!("{}{path}", base?),
            value: value(),
            denominator: None,
            format,
        })
    })
}

/// [`mark`] of a percentage `n / total` of two counts, `n` the value handed to the filter:
/// the denominator's pointer is the nearest key `N`, `n` or `total` holding `total`, beside
/// the count or above it (none when there is no such key).
pub fn mark_share(text: String, n: &Value, total: f64, format: &'static str) -> String {
    mark(text, || {
        let pointer = pointer_of(n)?;
        let ratio = n.as_f64().map(|n| n / total);
        Some(Entry {
            denominator: denominator_near(&pointer, total),
            value: ratio
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number),
            pointer,
            format,
        })
    })
}

/// The pointer of the nearest `N`, `n` or `total` equal to `total` among the keys beside
/// `pointer` or above it.
fn denominator_near(pointer: &str, total: f64) -> Option<String> {
    TRACER.with(|t| {
        let t = t.borrow();
        let root = &t.as_ref()?.sources.root;
        let mut at = pointer;
        while let Some(cut) = at.rfind('/') {
            at = at.get(..cut)?;
            let Some(Value::Object(map)) = root.pointer(at) else {
                continue;
            };
            for key in ["N", "n", "total"] {
                if map.get(key).and_then(Value::as_f64) == Some(total) {
                    return Some(format!("{at}/{key}"));
                }
            }
        }
        None
    })
}

/// One marked stretch of a text, in byte offsets of the text without markers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Start of the printed text.
    pub start: usize,
    /// End of the printed text.
    pub end: usize,
    /// Index of its entry.
    pub entry: usize,
}

/// `text` without markers, and the stretches they marked (innermost first when nested).
/// Only [`OPEN`] (with the id after it, up to [`MID`]) and [`CLOSE`] are markers; the text
/// between them is copied a stretch at a time (an HTML document with its figures inline is
/// mostly text without any).
pub fn split(text: &str) -> (String, Vec<Span>) {
    // Every marker is a private-use character U+E000-U+E01F: EE 80 80-9F in UTF-8, whose
    // first byte only ever starts a character.
    const LEAD: u8 = 0xEE;
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    let bytes = text.as_bytes();
    // `text[copied..]` is not in `out` yet; `at` is where the search goes on.
    let (mut copied, mut at) = (0, 0);
    while let Some(k) = bytes.get(at..).and_then(|rest| memchr::memchr(LEAD, rest)) {
        let here = at + k;
        let mut rest = text.get(here..).unwrap_or_default().chars();
        match rest.next() {
            Some(OPEN) => {
                out.push_str(text.get(copied..here).unwrap_or_default());
                open.push((out.len(), entry_id(&mut rest)));
                copied = text.len() - rest.as_str().len();
                at = copied;
            }
            Some(CLOSE) => {
                out.push_str(text.get(copied..here).unwrap_or_default());
                if let Some((start, entry)) = open.pop() {
                    spans.push(Span {
                        start,
                        end: out.len(),
                        entry,
                    });
                }
                copied = here + CLOSE.len_utf8();
                at = copied;
            }
            _ => at = here + 1,
        }
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    (out, spans)
}

/// The entry index written after [`OPEN`], read up to and including [`MID`] (to the end of
/// the text when there is none); a character that is not one of [`ID_DIGITS`] counts as 15.
fn entry_id(chars: &mut std::str::Chars<'_>) -> usize {
    let mut id = 0usize;
    for d in chars.by_ref() {
        if d == MID {
            break;
        }
        let digit = (d as u32).wrapping_sub(ID_DIGITS) as usize;
        id = id.saturating_mul(16).saturating_add(digit.min(15));
    }
    id
}

/// `text` without markers.
pub fn strip(text: &str) -> String {
    split(text).0
}

/// An HTML document with marked numbers: each becomes `<span data-source="…" title="…">`
/// naming its pointer in results.json (`prefix` is the cohort's, `/cohorts/0`) and value; a
/// mark that would cross a tag is dropped.
pub fn html_sources(html: &str, entries: &[Entry], prefix: &str) -> String {
    let (plain, spans) = split(html);
    let mut opens: Vec<(usize, String)> = Vec::new();
    let mut closes: Vec<usize> = Vec::new();
    for span in &spans {
        let inside = plain.get(span.start..span.end).unwrap_or("<");
        let Some(entry) = entries.get(span.entry) else {
            continue;
        };
        if inside.contains(['<', '>']) || inside.is_empty() {
            continue;
        }
        let pointer = format!("{prefix}{}", entry.pointer);
        let value = match &entry.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        // A percentage of two counts names both.
        let (over, title) = match &entry.denominator {
            Some(d) => (
                format!(
                    " data-denominator=\"{}\"",
                    attribute(&format!("{prefix}{d}"))
                ),
                format!("results.json {pointer} / {prefix}{d} = {value}"),
            ),
            None => (String::new(), format!("results.json {pointer} = {value}")),
        };
        opens.push((
            span.start,
            format!(
                "<span data-source=\"{}\"{over} title=\"{}\">",
                attribute(&pointer),
                attribute(&title)
            ),
        ));
        closes.push(span.end);
    }
    // Outer spans open first and close last at the same offset.
    opens.sort_by_key(|(at, _)| *at);
    closes.sort_unstable();
    // The text up to each offset where tags go, then the ends there before the starts. A span
    // is not empty, so none starts at the end of the text.
    let mut out = String::with_capacity(plain.len() + opens.len() * 96);
    let (mut o, mut c, mut copied) = (0, 0, 0);
    loop {
        let at = match (opens.get(o), closes.get(c)) {
            (Some((open, _)), Some(&close)) => close.min(*open),
            (Some((open, _)), None) => *open,
            (None, Some(&close)) => close,
            (None, None) => break,
        };
        out.push_str(plain.get(copied..at).unwrap_or_default());
        copied = at;
        while closes.get(c) == Some(&at) {
            out.push_str("</span>");
            c += 1;
        }
        while let Some((_, tag)) = opens.get(o).filter(|(open, _)| *open == at) {
            out.push_str(tag);
            o += 1;
        }
    }
    out.push_str(plain.get(copied..).unwrap_or_default());
    out
}

/// Text for a double-quoted HTML attribute.
fn attribute(text: &str) -> String {
    crate::model::text::escape_xml(text)
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_name_their_entries_and_strip_to_the_text() {
        let cohort = serde_json::json!({"response": {"orr": {"n": 13, "N": 38, "rate": 0.3421}}});
        let mut sources = Sources::new(std::sync::Arc::new(cohort.clone()));
        sources.add(&cohort, "");
        let rate = &cohort["response"]["orr"]["rate"];
        let n = &cohort["response"]["orr"]["n"];
        let (text, entries) = traced(std::sync::Arc::new(sources), || {
            format!(
                "ORR {} ({} of N)",
                mark_value("34.2%".to_string(), rate, "pct"),
                mark_share("x".to_string(), n, 38.0, "pct_of")
            )
        });
        let (plain, spans) = split(&text);
        assert_eq!(plain, "ORR 34.2% (x of N)");
        assert_eq!(&plain[spans[0].start..spans[0].end], "34.2%");
        assert_eq!(entries[0].pointer, "/response/orr/rate");
        assert_eq!(entries[1].denominator.as_deref(), Some("/response/orr/N"));
        assert_eq!(entries[1].value, serde_json::json!(13.0 / 38.0));
        // Off the traced render nothing is marked.
        assert_eq!(mark_value("34.2%".to_string(), rate, "pct"), "34.2%");
        assert!(!active());
    }

    /// `split` as it was written first, a character at a time: the reference the faster one
    /// must equal (the test below places `html_sources`' tags the old way too).
    fn split_by_char(text: &str) -> (String, Vec<Span>) {
        let mut out = String::new();
        let mut spans = Vec::new();
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                OPEN => open.push((out.len(), entry_id(&mut chars))),
                CLOSE => {
                    if let Some((start, entry)) = open.pop() {
                        let end = out.len();
                        spans.push(Span { start, end, entry });
                    }
                }
                _ => out.push(c),
            }
        }
        (out, spans)
    }

    #[test]
    fn marked_text_splits_as_it_did_a_character_at_a_time() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let pieces = [
            "a", "38", "<p>", "</b>", ">", "é", "≥", "肺", "\u{E003}", "\u{E0FF}", "\u{F000}",
            "\u{E010}", "\u{E01F}", "\u{E001}", "\u{E000}", "\u{E002}",
        ];
        let entry = |i: usize| Entry {
            pointer: format!("/n/{i}"),
            value: serde_json::json!(i),
            denominator: i.is_multiple_of(2).then(|| "/n/all".to_string()),
            format: "count",
        };
        let entries: Vec<Entry> = (0..20).map(entry).collect();
        for case in 0..3000 {
            let mut text = String::new();
            for _ in 0..next(if case % 3 == 0 { 8 } else { 60 }) {
                // Well-formed marks most of the time, any piece otherwise.
                if next(4) == 0 {
                    let id = char::from_u32(ID_DIGITS + next(20) as u32).unwrap_or('x');
                    text.push_str(&format!("{OPEN}{id}{MID}{}{CLOSE}", pieces[next(8)]));
                } else {
                    text.push_str(pieces[next(pieces.len())]);
                }
            }
            let (plain, spans) = split(&text);
            assert_eq!(
                (plain.clone(), spans.clone()),
                split_by_char(&text),
                "{text:?}"
            );
            assert_eq!(strip(&text), plain);
            // The tags placed a character at a time, as html_sources did.
            let html = html_sources(&text, &entries, "/c");
            let mut tags: Vec<(usize, bool, String)> = Vec::new();
            for span in &spans {
                let inside = &plain[span.start..span.end];
                if inside.is_empty() || inside.contains(['<', '>']) || span.entry >= entries.len() {
                    continue;
                }
                let one = html_sources(
                    &format!(
                        "{OPEN}{}{MID}{inside}{CLOSE}",
                        char::from_u32(ID_DIGITS).unwrap_or('x')
                    ),
                    std::slice::from_ref(&entries[span.entry]),
                    "/c",
                );
                let open_tag = one[..one.find('>').unwrap_or(0) + 1].to_string();
                tags.push((span.start, true, open_tag));
                tags.push((span.end, false, "</span>".to_string()));
            }
            let mut expected = String::new();
            for (i, ch) in plain.char_indices() {
                let mut here: Vec<&(usize, bool, String)> =
                    tags.iter().filter(|t| t.0 == i).collect();
                // Ends before starts; starts in the order their spans were found, sorted
                // stably by offset (as html_sources sorts them).
                here.sort_by_key(|t| t.1);
                for t in here {
                    expected.push_str(&t.2);
                }
                expected.push(ch);
            }
            for t in tags.iter().filter(|t| t.0 == plain.len()) {
                expected.push_str(&t.2);
            }
            assert_eq!(html, expected, "{text:?}");
        }
    }

    #[test]
    fn spans_in_html_never_cross_a_tag() {
        let entry = Entry {
            pointer: "/n/enrolled".to_string(),
            value: serde_json::json!(38),
            denominator: None,
            format: "count",
        };
        let (marked, _) = traced(Default::default(), || {
            mark("38".to_string(), || Some(entry.clone()))
        });
        let html = format!("<p>{marked} pts</p>");
        assert_eq!(
            html_sources(&html, std::slice::from_ref(&entry), "/cohorts/2"),
            "<p><span data-source=\"/cohorts/2/n/enrolled\" \
             title=\"results.json /cohorts/2/n/enrolled = 38\">38</span> pts</p>"
        );
        let crossing = marked.replace("38", "3<b>8");
        assert_eq!(html_sources(&crossing, &[entry], ""), "3<b>8");
        assert_eq!(escape_token("NON-CR/NON-PD~"), "NON-CR~1NON-PD~0");
    }
}
