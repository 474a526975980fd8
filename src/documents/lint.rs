//! The self-check of an abstract's numbers: every count with its denominator and percentage
//! (`13/38 (34.2%)`, `15/38, 42.9%`, `4/38 4.5%`, `34.2% (13/38)`) is read back and the
//! percentage checked against its own n and N. A build fails on a disagreement in the
//! abstract it wrote; `readout lint` runs the same check on any text (an abstract written by
//! hand). Digits of any script, the spaces of a line, other percent signs and a decimal
//! comma in a percentage are read as the same numbers. See `docs/LINT.md`.
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
    /// The words as written (`15/38, 42.9%`), at most [`MAX_WRITTEN_CHARS`] characters.
    pub written: String,
    /// n.
    pub n: u64,
    /// N.
    pub total: u64,
    /// The percentage as read (`34,2%` is 34.2).
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

/// The first digit (0) of every run of ten decimal digits in Unicode (general category Nd,
/// each run 0 to 9 in order), from the Unicode Character Database as the unicode-properties
/// crate's tables have it: ASCII, Arabic-Indic (U+0660, U+06F0), Devanagari, ..., fullwidth
/// (U+FF10), mathematical (U+1D7CE ...).
const DIGIT_ZEROS: [u32; 77] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x10D40, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
    0x11650, 0x116C0, 0x116D0, 0x116DA, 0x11730, 0x118E0, 0x11950, 0x11BF0, 0x11C50, 0x11D50,
    0x11DA0, 0x11DE0, 0x11F50, 0x16130, 0x16A60, 0x16AC0, 0x16B50, 0x16D70, 0x1CCF0, 0x1D7CE,
    0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E5F1, 0x1E950, 0x1FBF0,
];

/// The value of a decimal digit of any script (`3`, `３`, `٣`, `۳`, `३`).
fn digit_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - 0x30);
    }
    let c = c as u32;
    let zero = DIGIT_ZEROS[DIGIT_ZEROS.partition_point(|&z| z <= c).checked_sub(1)?];
    (c - zero < 10).then_some(c - zero)
}

/// Spaces between the parts of a pair: space, tab and the other spaces of a line (Unicode
/// Zs: no-break U+00A0, narrow no-break U+202F, thin U+2009, ideographic U+3000, ...).
fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// `%`, fullwidth `％`, small `﹪`, Arabic `٪`.
fn is_percent(c: char) -> bool {
    matches!(c, '%' | '\u{ff05}' | '\u{fe6a}' | '\u{66a}')
}

/// `/`, fullwidth `／`, fraction slash `⁄`, division slash `∕`.
fn is_slash(c: char) -> bool {
    matches!(c, '/' | '\u{ff0f}' | '\u{2044}' | '\u{2215}')
}

/// `.`, fullwidth `．`, Arabic decimal separator `٫` (a decimal comma is read in percentages
/// only: [`percent_at`]).
fn is_decimal_point(c: char) -> bool {
    matches!(c, '.' | '\u{ff0e}' | '\u{66b}')
}

/// What may stand between a count and its percentage: `,` `;` and their fullwidth and
/// Arabic forms.
fn is_separator(c: char) -> bool {
    matches!(
        c,
        ',' | ';' | '\u{ff0c}' | '\u{ff1b}' | '\u{60c}' | '\u{61b}'
    )
}

fn is_opening(c: char) -> bool {
    matches!(c, '(' | '[' | '\u{ff08}' | '\u{ff3b}')
}

fn is_closing(c: char) -> bool {
    matches!(c, ')' | ']' | '\u{ff09}' | '\u{ff3d}')
}

/// The character starting at byte `at` (a character boundary).
fn char_at(text: &str, at: usize) -> Option<char> {
    text.get(at..)?.chars().next()
}

/// The character ending at byte `at`.
fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

/// A number as written: its value, how many decimals it has, and where it stands.
#[derive(Debug, Clone, Copy)]
struct Written {
    value: f64,
    decimals: usize,
    /// The value when it is a whole number that fits a `u64`.
    integer: Option<u64>,
    start: usize,
    end: usize,
}

/// The unsigned decimal number starting at `at` (`42`, `42.9`, `４２．９`, `٤٢٫٩`), if one
/// starts there and is not the tail of a longer number or word; with `comma`, `42,9` is
/// 42.9 too.
fn number_at(text: &str, at: usize, comma: bool) -> Option<Written> {
    digit_value(char_at(text, at)?)?;
    // Letters of other scripts may stand right before a number (`奏効率は13/38`).
    if char_before(text, at).is_some_and(|c| {
        c.is_ascii_alphanumeric() || digit_value(c).is_some() || is_decimal_point(c)
    }) {
        return None;
    }
    // The digits as ASCII, for the parsers.
    let mut digits = String::new();
    let mut end = digits_from(text, at, &mut digits);
    let mut decimals = 0;
    if let Some(point) = char_at(text, end).filter(|&c| is_decimal_point(c) || comma && c == ',') {
        let after = end + point.len_utf8();
        if char_at(text, after).and_then(digit_value).is_some() {
            let whole = digits.len();
            digits.push('.');
            end = digits_from(text, after, &mut digits);
            decimals = digits.len() - whole - 1;
        }
    }
    Some(Written {
        value: digits.parse().ok()?,
        decimals,
        integer: if decimals == 0 {
            digits.parse().ok()
        } else {
            None
        },
        start: at,
        end,
    })
}

/// The digits from `at` on, appended to `ascii` as ASCII digits; returns where they end.
fn digits_from(text: &str, at: usize, ascii: &mut String) -> usize {
    let mut end = at;
    for c in text[at..].chars() {
        let Some(d) = digit_value(c) else { break };
        ascii.push(char::from(b'0' + d as u8));
        end += c.len_utf8();
    }
    end
}

/// A whole number starting at `at` (no decimals, at most `u64::MAX`).
fn integer_at(text: &str, at: usize) -> Option<(u64, usize)> {
    let w = number_at(text, at, false)?;
    Some((w.integer?, w.end))
}

/// `at` moved past the spaces there.
fn skip_spaces(text: &str, at: usize) -> usize {
    at + text[at..]
        .chars()
        .take_while(|&c| is_space(c))
        .map(char::len_utf8)
        .sum::<usize>()
}

/// `at` moved past the character there, when `is` says it is one of them.
fn past(text: &str, at: usize, is: fn(char) -> bool) -> Option<usize> {
    char_at(text, at)
        .filter(|&c| is(c))
        .map(|c| at + c.len_utf8())
}

/// `n/N` at `at`: n, N and where it ends.
fn fraction_at(text: &str, at: usize) -> Option<(u64, u64, usize)> {
    // `2021` of `1/2/2021` is no numerator.
    if char_before(text, at).is_some_and(is_slash) {
        return None;
    }
    let (n, end) = integer_at(text, at)?;
    let slash = past(text, skip_spaces(text, end), is_slash)?;
    let (total, end) = integer_at(text, skip_spaces(text, slash))?;
    // `1/2/2021`: a date, not a fraction.
    if char_at(text, end).is_some_and(is_slash) {
        return None;
    }
    Some((n, total, end))
}

/// `x%` at `at`: the number and where the percent sign ends. A decimal comma is read here
/// (`34,2%`, `34,2 %`), where a number directly before a percent sign can be nothing else;
/// `13/38, 34.2%` keeps its comma as a separator, as a space follows it.
fn percent_at(text: &str, at: usize) -> Option<(Written, usize)> {
    let w = number_at(text, at, true)?;
    let end = past(text, skip_spaces(text, w.end), is_percent)?;
    // `[5%/95%]`: a list of percentages (of `0/1`, categories), not a pair's percentage.
    if char_at(text, skip_spaces(text, end)).is_some_and(is_slash) {
        return None;
    }
    Some((w, end))
}

/// `end` moved past the closing bracket that follows it, when one was opened.
fn closed(text: &str, end: usize, opened: bool) -> usize {
    match past(text, skip_spaces(text, end), is_closing) {
        Some(p) if opened => p,
        _ => end,
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
/// [`MAX_LISTED`] with their line and sentence, and the count of all. Digits of any script,
/// the spaces of a line and the percent signs of `is_percent` are read alike
/// (docs/LINT.md).
pub fn check_proportions(text: &str) -> Disagreements {
    let mut found = Found::new(text);
    let mut at = 0;
    while let Some(c) = char_at(text, at) {
        let next = at + c.len_utf8();
        if digit_value(c).is_none() {
            at = next;
            continue;
        }
        // n/N (x%), n/N, x%, n/N x%, n/N [x%]
        if let Some((n, total, end)) = fraction_at(text, at) {
            let mut p = skip_spaces(text, end);
            if let Some(q) = past(text, p, is_separator) {
                p = skip_spaces(text, q);
            }
            let opened = past(text, p, is_opening);
            if let Some(q) = opened {
                p = skip_spaces(text, q);
            }
            if let Some((stated, pct_end)) = percent_at(text, p) {
                let pct_end = closed(text, pct_end, opened.is_some());
                if !agrees(stated, n, total) {
                    found.push(at, pct_end, n, total, stated);
                }
                at = pct_end;
                continue;
            }
        }
        // x% (n/N), x% [n/N]
        if let Some((stated, pct_end)) = percent_at(text, at) {
            if let Some(p) = past(text, skip_spaces(text, pct_end), is_opening) {
                if let Some((n, total, end)) = fraction_at(text, skip_spaces(text, p)) {
                    let end = closed(text, end, true);
                    if !agrees(stated, n, total) {
                        found.push(stated.start, end, n, total, stated);
                    }
                    at = end;
                    continue;
                }
            }
            // Past the whole percentage, so that the `2%` of `34,2%` is not read again.
            at = pct_end;
            continue;
        }
        // Past this number, to the next place a number may start.
        at = number_at(text, at, false).map_or(next, |w| w.end.max(next));
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
/// a line break or the end of the text, or an ideographic full stop `。`.
fn ends_sentence(text: &str, i: usize, c: char) -> bool {
    c == '\u{3002}'
        || matches!(c, '.' | '!' | '?')
            && matches!(char_at(text, i + 1), None | Some(' ' | '\n' | '\r'))
}

/// The sentence holding `start..end`: from after the last full stop or line break before it
/// to the next full stop or line break after it, but at most [`EXCERPT_CHARS`] characters on
/// each side (an ellipsis where it was cut); the pair itself shortened as in
/// [`Disagreement::written`].
fn excerpt(text: &str, start: usize, end: usize) -> String {
    let (mut from, mut cut_before) = (start, false);
    for (taken, (i, c)) in text[..start].char_indices().rev().enumerate() {
        if c == '\n' || ends_sentence(text, i, c) {
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
        if ends_sentence(text, i, c) {
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

    /// Every run of ten decimal digits is read, and numbers that are not decimal digits are
    /// not.
    #[test]
    fn the_decimal_digits_of_every_script_are_read() {
        for &zero in &DIGIT_ZEROS {
            for d in 0..10 {
                let c = char::from_u32(zero + d).unwrap_or_default();
                assert!(c.is_numeric(), "U+{:04X}", zero + d);
                assert_eq!(digit_value(c), Some(d), "U+{:04X}", zero + d);
            }
        }
        for c in [
            '²', '½', 'Ⅻ', '①', 'a', '٪', '\u{65f}', '\u{66a}', '\u{ff1a}',
        ] {
            assert_eq!(digit_value(c), None, "{c}");
        }
    }

    /// A pair written with a no-break, narrow or thin space, a fullwidth, small or Arabic
    /// percent sign, the digits of other scripts, fullwidth punctuation or a decimal comma is
    /// read as the same numbers: each form wrong (35.2%) and right (34.2%).
    #[test]
    fn pairs_in_other_digits_spaces_and_signs_are_read() {
        for (wrong, right) in [
            ("13/38 (35.2\u{a0}%)", "13/38 (34.2\u{a0}%)"),
            ("13/38 (35.2\u{202f}%)", "13/38 (34.2\u{202f}%)"),
            ("13/38 (35.2\u{2009}%)", "13/38 (34.2\u{2009}%)"),
            (
                "13\u{a0}/\u{a0}38,\u{a0}35.2%",
                "13\u{a0}/\u{a0}38,\u{a0}34.2%",
            ),
            ("13/38 (35.2％)", "13/38 (34.2％)"),
            ("13/38 (35.2﹪)", "13/38 (34.2﹪)"),
            ("１３/３８ (３５.２%)", "１３/３８ (３４.２%)"),
            ("１３／３８（３５．２％）", "１３／３８（３４．２％）"),
            ("١٣/٣٨ (٣٥٫٢٪)", "١٣/٣٨ (٣٤٫٢٪)"),
            ("١٣/٣٨ (٣٥.٢%)", "١٣/٣٨ (٣٤.٢%)"),
            ("۱۳/۳۸ (۳۵.۲%)", "۱۳/۳۸ (۳۴.۲%)"),
            ("१३/३८ (३५.२%)", "१३/३८ (३४.२%)"),
            ("𝟏𝟑/𝟑𝟖 (𝟑𝟓.𝟐%)", "𝟏𝟑/𝟑𝟖 (𝟑𝟒.𝟐%)"),
            ("13/38 (35,2%)", "13/38 (34,2%)"),
            ("13/38 (35,2 %)", "13/38 (34,2 %)"),
            ("13/38, 35,2%", "13/38, 34,2%"),
            ("13/38; 35,2\u{a0}%", "13/38; 34,2\u{a0}%"),
            ("35,2% (13/38)", "34,2% (13/38)"),
            ("٣٥٫٢٪ (١٣/٣٨)", "٣٤٫٢٪ (١٣/٣٨)"),
        ] {
            assert_eq!(written(wrong), [wrong], "{wrong}");
            assert!(written(right).is_empty(), "{right}");
            let found = check_proportions(wrong);
            assert_eq!(
                (
                    found.listed[0].n,
                    found.listed[0].total,
                    found.listed[0].stated
                ),
                (13, 38, 35.2),
                "{wrong}"
            );
        }
        // The comma of `13/38, 34.2%` is still a separator, with or without the space.
        assert!(written("13/38, 34.2% and 13/38,34.2%").is_empty());
        assert_eq!(written("13/38, 35.2%"), ["13/38, 35.2%"]);
        // Thousands and lists are no decimal commas: `1,234/2,000` is no pair.
        assert!(written("1,234/2,000 (61.7%), 5, 10, 15%").is_empty());
        // Text in scripts without spaces between words.
        assert_eq!(
            written("奏効率は13/38（35.2%）でした。"),
            ["13/38（35.2%）"]
        );
        assert!(written("奏効率は１３／３８（３４．２％）でした。").is_empty());
        // Still no pairs: a date, categories with their shares.
        assert!(written("on １/２/２０２１ (５０％), ECOG 0/1 [5％/95％]").is_empty());
    }
}
