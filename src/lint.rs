//! The self-check of an abstract's numbers: every count with its denominator and percentage
//! (`13/38 (34.2%)`, `15/38, 42.9%`, `4/38 4.5%`, `34.2% (13/38)`) is read back and the
//! percentage checked against its own n and N. A build fails on a disagreement in the
//! abstract it wrote; `readout lint` runs the same check on any text (an abstract written by
//! hand). See `docs/LINT.md`.
//!
//! Linear in the text: line numbers are counted on from the last pair reported, each pair's
//! sentence is quoted as at most [`EXCERPT_CHARS`] characters either side of it, and only the
//! first [`MAX_LISTED`] disagreements of a text are kept (the rest are counted).

use std::fmt;

/// Disagreements listed per text; the others are counted in one line (`and N more`).
pub const MAX_LISTED: usize = 20;

/// Characters of the sentence quoted on each side of a pair; a longer sentence is cut there
/// with an ellipsis.
pub const EXCERPT_CHARS: usize = 100;

/// Characters of a pair quoted as written (`1/3` and `(5%)` far apart are shortened in the
/// middle with an ellipsis).
pub const MAX_WRITTEN_CHARS: usize = 80;

/// The largest text `readout lint` reads (an abstract is a few kB).
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// One count and percentage that disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// 1-based line of the text.
    pub line: usize,
    /// The words as written (`15/38, 42.9%`).
    pub written: String,
    /// n.
    pub n: u64,
    /// N.
    pub total: u64,
    /// The percentage as written.
    pub stated: f64,
    /// The sentence it stands in, at most [`EXCERPT_CHARS`] characters either side of the
    /// pair (`…` where it was cut).
    pub sentence: String,
}

/// What the check of one text found: its first disagreements and how many there are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Disagreements {
    /// The first [`MAX_LISTED`], in text order.
    pub listed: Vec<Disagreement>,
    /// All of them, listed or not.
    pub count: usize,
}

impl Disagreements {
    /// Whether every pair agrees.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// One line per listed disagreement, then `and N more ...` when some are not listed.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.listed.iter().map(ToString::to_string).collect();
        let more = self.count - self.listed.len();
        if more > 0 {
            lines.push(format!(
                "and {more} more pair(s) that disagree (the first {MAX_LISTED} are listed)"
            ));
        }
        lines
    }
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let actual = if self.n > self.total {
            "is more than its denominator".to_string()
        } else {
            format!(
                "is {}%",
                trim_zeros(100.0 * self.n as f64 / self.total as f64, 2)
            )
        };
        write!(
            f,
            "line {}: \"{}\": {}/{} {actual}, not {}%, in: {}",
            self.line,
            self.written,
            self.n,
            self.total,
            stated_text(self.stated),
            self.sentence
        )
    }
}

/// The stated percentage as a number of bounded length (`1e300` rather than 301 digits).
fn stated_text(x: f64) -> String {
    if x.abs() < 1e15 {
        trim_zeros(x, 6)
    } else {
        format!("{x:e}")
    }
}

/// `39.47` from 39.4736..., without trailing zeros.
fn trim_zeros(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A number as written: its value and how many decimals it has.
#[derive(Debug, Clone, Copy)]
struct Written {
    value: f64,
    decimals: usize,
    start: usize,
    end: usize,
}

/// The unsigned decimal number starting at `at` (`42`, `42.9`), if one starts there and is
/// not the tail of a longer number or word.
fn number_at(b: &[u8], at: usize) -> Option<Written> {
    if !b.get(at)?.is_ascii_digit() {
        return None;
    }
    if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'.') {
        return None;
    }
    let mut end = at;
    while b.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
    }
    let mut decimals = 0;
    if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end += 1;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
            decimals += 1;
        }
    }
    let value = std::str::from_utf8(&b[at..end]).ok()?.parse().ok()?;
    Some(Written {
        value,
        decimals,
        start: at,
        end,
    })
}

/// An integer starting at `at` (no decimals).
fn integer_at(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let w = number_at(b, at)?;
    if w.decimals > 0
        || b.get(w.end) == Some(&b'.') && b.get(w.end + 1).is_some_and(u8::is_ascii_digit)
    {
        return None;
    }
    Some((w.value as u64, w.end))
}

fn skip_spaces(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(|c| *c == b' ' || *c == b'\t') {
        at += 1;
    }
    at
}

/// `n/N` at `at`: n, N and where it ends.
fn fraction_at(b: &[u8], at: usize) -> Option<(u64, u64, usize)> {
    // `2021` of `1/2/2021` is no numerator.
    if at > 0 && b[at - 1] == b'/' {
        return None;
    }
    let (n, end) = integer_at(b, at)?;
    let slash = skip_spaces(b, end);
    if b.get(slash) != Some(&b'/') {
        return None;
    }
    let (total, end) = integer_at(b, skip_spaces(b, slash + 1))?;
    // `1/2/2021`: a date, not a fraction.
    if b.get(end) == Some(&b'/') {
        return None;
    }
    Some((n, total, end))
}

/// `x%` at `at`: the number and where the `%` ends.
fn percent_at(b: &[u8], at: usize) -> Option<(Written, usize)> {
    let w = number_at(b, at)?;
    let sign = skip_spaces(b, w.end);
    if b.get(sign) != Some(&b'%') {
        return None;
    }
    // `[5%/95%]`: a list of percentages (of `0/1`, categories), not a pair's percentage.
    if b.get(skip_spaces(b, sign + 1)) == Some(&b'/') {
        return None;
    }
    Some((w, sign + 1))
}

/// `end` moved past the closing bracket that follows it, when one was opened.
fn closed(b: &[u8], end: usize, opened: bool) -> usize {
    let p = skip_spaces(b, end);
    if opened && matches!(b.get(p), Some(b')' | b']')) {
        p + 1
    } else {
        end
    }
}

/// Whether `x` with its decimals is `100 n / N` rounded (any rounding to that many decimals).
fn agrees(stated: Written, n: u64, total: u64) -> bool {
    if total == 0 {
        return true;
    }
    if n > total {
        return false;
    }
    let actual = 100.0 * n as f64 / total as f64;
    // Beyond 20 decimals an f64 tells nothing more (and the exponent stays in range).
    let decimals = stated.decimals.min(20) as i32;
    (actual - stated.value).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9
}

/// Every count-and-percentage pair of `text` whose percentage is not its n/N: the first
/// [`MAX_LISTED`] with their line and sentence, and the count of all.
pub fn check_proportions(text: &str) -> Disagreements {
    let b = text.as_bytes();
    let mut found = Found::new(text);
    let mut at = 0;
    while at < b.len() {
        // n/N (x%), n/N, x%, n/N x%, n/N [x%]
        if let Some((n, total, end)) = fraction_at(b, at) {
            let mut p = skip_spaces(b, end);
            if matches!(b.get(p), Some(b',' | b';')) {
                p = skip_spaces(b, p + 1);
            }
            let opened = matches!(b.get(p), Some(b'(' | b'['));
            if opened {
                p = skip_spaces(b, p + 1);
            }
            if let Some((stated, pct_end)) = percent_at(b, p) {
                let pct_end = closed(b, pct_end, opened);
                if !agrees(stated, n, total) {
                    found.push(at, pct_end, n, total, stated);
                }
                at = pct_end;
                continue;
            }
        }
        // x% (n/N), x% [n/N]
        if let Some((stated, pct_end)) = percent_at(b, at) {
            let mut p = skip_spaces(b, pct_end);
            if matches!(b.get(p), Some(b'(' | b'[')) {
                p = skip_spaces(b, p + 1);
                if let Some((n, total, end)) = fraction_at(b, p) {
                    let end = closed(b, end, true);
                    if !agrees(stated, n, total) {
                        found.push(stated.start, end, n, total, stated);
                    }
                    at = end;
                    continue;
                }
            }
        }
        // Past this number (or character), to the next place a number may start.
        at = number_at(b, at).map_or(at + 1, |w| w.end.max(at + 1));
        while at < b.len() && !text.is_char_boundary(at) {
            at += 1;
        }
    }
    found.found
}

/// The disagreements of a text as they are found, and the line reached so far: pairs are
/// found in text order, so each line number is counted on from the previous one.
struct Found<'a> {
    text: &'a str,
    found: Disagreements,
    line: usize,
    counted_to: usize,
}

impl<'a> Found<'a> {
    fn new(text: &'a str) -> Self {
        Found {
            text,
            found: Disagreements::default(),
            line: 1,
            counted_to: 0,
        }
    }

    /// The pair `start..end`: listed while fewer than [`MAX_LISTED`] are, counted always.
    fn push(&mut self, start: usize, end: usize, n: u64, total: u64, stated: Written) {
        self.found.count += 1;
        if self.found.listed.len() >= MAX_LISTED {
            return;
        }
        let text = self.text;
        self.line += memchr::memchr_iter(b'\n', &text.as_bytes()[self.counted_to..start]).count();
        self.counted_to = start;
        self.found.listed.push(Disagreement {
            line: self.line,
            written: shortened(&text[start..end], MAX_WRITTEN_CHARS),
            n,
            total,
            stated: stated.value,
            sentence: excerpt(text, start, end),
        });
    }
}

/// `text` whole when it has at most `max` characters, else its first and last `max / 2`
/// around an ellipsis.
fn shortened(text: &str, max: usize) -> String {
    if text.chars().nth(max).is_none() {
        return text.to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let mut tail: Vec<char> = text.chars().rev().take(max / 2).collect();
    tail.reverse();
    format!("{head}\u{2026}{}", tail.into_iter().collect::<String>())
}

/// Whether the character `c` at `i` ends a sentence: a `.`, `!` or `?` followed by a space,
/// a line break or the end of the text.
fn ends_sentence(b: &[u8], i: usize, c: char) -> bool {
    matches!(c, '.' | '!' | '?') && matches!(b.get(i + 1), None | Some(b' ' | b'\n' | b'\r'))
}

/// The sentence holding `start..end`: from after the last full stop or line break before it
/// to the next full stop or line break after it, but at most [`EXCERPT_CHARS`] characters on
/// each side (an ellipsis where it was cut); the pair itself shortened as in
/// [`Disagreement::written`].
fn excerpt(text: &str, start: usize, end: usize) -> String {
    let b = text.as_bytes();
    let (mut from, mut cut_before) = (start, false);
    for (taken, (i, c)) in text[..start].char_indices().rev().enumerate() {
        if c == '\n' || ends_sentence(b, i, c) {
            break;
        }
        if taken == EXCERPT_CHARS {
            cut_before = true;
            break;
        }
        from = i;
    }
    let (mut to, mut cut_after) = (end, false);
    for (taken, (i, c)) in text[end..].char_indices().enumerate() {
        let i = end + i;
        if c == '\n' {
            break;
        }
        if ends_sentence(b, i, c) {
            to = i + c.len_utf8();
            break;
        }
        if taken == EXCERPT_CHARS {
            cut_after = true;
            break;
        }
        to = i + c.len_utf8();
    }
    let mut out = String::new();
    if cut_before {
        out.push('\u{2026}');
        out.push_str(&text[from..start]);
    } else {
        out.push_str(text[from..start].trim_start());
    }
    out.push_str(&shortened(&text[start..end], MAX_WRITTEN_CHARS));
    if cut_after {
        out.push_str(&text[end..to]);
        out.push('\u{2026}');
    } else {
        out.push_str(text[end..to].trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> Vec<String> {
        check_proportions(text)
            .listed
            .into_iter()
            .map(|d| d.written)
            .collect()
    }

    #[test]
    fn every_form_of_a_pair_is_read() {
        assert_eq!(
            written(
                "oral cavity (15/38, 42.9%), oropharynx (6/38, 15.8%), hypopharynx (4/38 4.5%)."
            ),
            ["15/38, 42.9%", "4/38 4.5%"]
        );
        assert_eq!(
            written("13/38 (34.2%) and 34.2% (13/38)."),
            Vec::<String>::new()
        );
        assert_eq!(
            written("ORR 13/38 (35.2%). DCR 76.3% (29/38). 10% [3/38]"),
            ["13/38 (35.2%)", "10% [3/38]"]
        );
        // 34.21 is 13/38 to two decimals; 34 to none; 34.2 rounded down is 34.2.
        assert!(written("13/38 (34.21%), 13/38 (34%), 1/3 (33.3%), 2/3 (66.7%)").is_empty());
        // Not pairs: a date, a percentage alone, a CI, a count with no N.
        assert!(written("on 1/2/2021 (50%), 95% CI: 4.4, 8.8; 13 (34.2%)").is_empty());
        assert_eq!(written("5/4 (125%)"), ["5/4 (125%)"]);
        assert!(written("0/0 (0%)").is_empty());
        // Categories with their shares: ECOG PS 0/1 [5%/95%].
        assert!(written("performance status 0/1 [5%/95%], male/female [65%/35%]").is_empty());
    }

    #[test]
    fn the_sentence_and_line_are_named() {
        let found =
            check_proportions("Title\nIt was 3.5 months. Of them, 4/38 (4.5%) had it. Done.");
        assert_eq!(found.count, 1);
        let found = &found.listed;
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].sentence, "Of them, 4/38 (4.5%) had it.");
        assert_eq!(
            found[0].to_string(),
            "line 2: \"4/38 (4.5%)\": 4/38 is 10.53%, not 4.5%, in: Of them, 4/38 (4.5%) had it."
        );
    }

    /// A sentence is quoted at most 100 characters either side of its pair, a pair padded
    /// with spaces is shortened in the middle, a huge percentage is printed short, and only
    /// the first 20 of a text's disagreements are listed.
    #[test]
    fn what_a_disagreement_quotes_is_bounded() {
        let (before, after) = ("a".repeat(300), "b".repeat(300));
        let found = check_proportions(&format!("{before} 1/3 (5%) {after}."));
        assert_eq!(
            found.listed[0].sentence,
            format!(
                "\u{2026}{} 1/3 (5%) {}\u{2026}",
                &before[201..],
                &after[..99]
            )
        );

        let spaced = format!("1/3{}(5%)", " ".repeat(1_000));
        let found = check_proportions(&format!("So {spaced}. Then."));
        let written = &found.listed[0].written;
        assert_eq!(
            written,
            &format!("1/3{}\u{2026}{}(5%)", " ".repeat(37), " ".repeat(36))
        );
        assert_eq!(found.listed[0].sentence, format!("So {written}."));

        let found = check_proportions(&format!("1/3 ({}%)", "9".repeat(400)));
        let message = found.listed[0].to_string();
        assert!(message.contains("1/3 is 33.33%, not inf%"), "{message}");
        assert!(message.len() < 300, "{message}");
        let found = check_proportions(&format!("1/3 ({}%)", "9".repeat(300)));
        assert!(found.listed[0].to_string().contains("not 1e300%"));

        let found = check_proportions(&"1/3 (5%)\n".repeat(25));
        assert_eq!((found.count, found.listed.len()), (25, 20));
        assert_eq!(found.listed[19].line, 20);
        let lines = found.lines();
        assert_eq!(lines.len(), 21);
        assert_eq!(
            lines[20],
            "and 5 more pair(s) that disagree (the first 20 are listed)"
        );
    }
}
