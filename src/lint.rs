//! The self-check of an abstract's numbers: every count with its denominator and percentage
//! (`13/38 (34.2%)`, `15/38, 42.9%`, `4/38 4.5%`, `34.2% (13/38)`) is read back and the
//! percentage checked against its own n and N. A build fails on a disagreement in the
//! abstract it wrote; `readout lint` runs the same check on any text (an abstract written by
//! hand). See `docs/LINT.md`.

use std::fmt;

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
    /// The sentence it stands in.
    pub sentence: String,
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
            trim_zeros(self.stated, 6),
            self.sentence
        )
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
    (actual - stated.value).abs() <= 0.5 * 10f64.powi(-(stated.decimals as i32)) + 1e-9
}

/// Every count-and-percentage pair of `text` whose percentage is not its n/N.
pub fn check_proportions(text: &str) -> Vec<Disagreement> {
    let b = text.as_bytes();
    let mut found = Vec::new();
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
                    found.push(disagreement(text, at, pct_end, n, total, stated));
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
                        found.push(disagreement(text, stated.start, end, n, total, stated));
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
    found
}

fn disagreement(
    text: &str,
    start: usize,
    end: usize,
    n: u64,
    total: u64,
    stated: Written,
) -> Disagreement {
    Disagreement {
        line: text[..start].matches('\n').count() + 1,
        written: text[start..end].to_string(),
        n,
        total,
        stated: stated.value,
        sentence: sentence_around(text, start, end),
    }
}

/// The sentence holding `start..end`: from after the last full stop (a `.`, `!` or `?`
/// followed by a space or line break) or line break before it, to the next one after it.
fn sentence_around(text: &str, start: usize, end: usize) -> String {
    let b = text.as_bytes();
    let is_end = |i: usize| {
        matches!(b.get(i), Some(b'.' | b'!' | b'?'))
            && matches!(b.get(i + 1), None | Some(b' ' | b'\n' | b'\r'))
    };
    let mut from = start;
    while from > 0 && b[from - 1] != b'\n' && !is_end(from - 1) {
        from -= 1;
    }
    let mut to = end;
    while to < b.len() && b[to] != b'\n' && !is_end(to) {
        to += 1;
    }
    if to < b.len() && is_end(to) {
        to += 1;
    }
    while !text.is_char_boundary(from) {
        from += 1;
    }
    while !text.is_char_boundary(to) {
        to += 1;
    }
    text[from..to].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> Vec<String> {
        check_proportions(text)
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
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].sentence, "Of them, 4/38 (4.5%) had it.");
        assert_eq!(
            found[0].to_string(),
            "line 2: \"4/38 (4.5%)\": 4/38 is 10.53%, not 4.5%, in: Of them, 4/38 (4.5%) had it."
        );
    }
}
