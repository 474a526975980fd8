//! Numbers and dates as every document prints them: rounding half away from zero, percentages,
//! counts with percentages, interval limits, long dates. Below `render`, `figures`, `docx`
//! and `diff`, which all print numbers the same way.

/// A rate as a percentage: `34.2%`; `NE` when there is none.
pub fn fmt_pct(rate: Option<f64>, d: usize) -> String {
    match rate {
        Some(x) => format!("{}%", fixed(x * 100.0, d)),
        None => "NE".to_string(),
    }
}

/// The parts of a count with its percentage, as [`fmt_n_pct_with`] hands them to be marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// n.
    Count,
    /// N.
    Total,
    /// The percentage, with its sign: `34.2%`.
    Percent,
}

/// `13/38 (34.2%)`; `13/0` without a denominator.
pub fn fmt_n_pct(n: u64, total: u64, d: usize) -> String {
    fmt_n_pct_with(n, total, d, |_, text| text)
}

/// [`fmt_n_pct`] with each part passed through `mark` (the traced render marks them).
pub fn fmt_n_pct_with(
    n: u64,
    total: u64,
    d: usize,
    mark: impl Fn(Part, String) -> String,
) -> String {
    let counts = format!(
        "{}/{}",
        mark(Part::Count, n.to_string()),
        mark(Part::Total, total.to_string())
    );
    if total == 0 {
        counts
    } else {
        let pct = mark(Part::Percent, format!("{}%", percent_of(n, total, d)));
        format!("{counts} ({pct})")
    }
}

/// `13 (34.2%)`; `13` without a denominator.
pub fn fmt_count_pct(n: u64, total: u64, d: usize) -> String {
    fmt_count_pct_with(n, total, d, |_, text| text)
}

/// [`fmt_count_pct`] with each part passed through `mark` (no [`Part::Total`]).
pub fn fmt_count_pct_with(
    n: u64,
    total: u64,
    d: usize,
    mark: impl Fn(Part, String) -> String,
) -> String {
    let count = mark(Part::Count, n.to_string());
    if total == 0 {
        count
    } else {
        let pct = mark(Part::Percent, format!("{}%", percent_of(n, total, d)));
        format!("{count} ({pct})")
    }
}

/// The limits of an interval, `a, b` (`19.6%, 51.4%` with `percent`); a missing limit is `NE`.
pub fn fmt_limits(lower: Option<f64>, upper: Option<f64>, d: usize, percent: bool) -> String {
    format!(
        "{}, {}",
        fmt_limit(lower, d, percent),
        fmt_limit(upper, d, percent)
    )
}

/// One limit of an interval as [`fmt_limits`] prints it.
pub fn fmt_limit(x: Option<f64>, d: usize, percent: bool) -> String {
    match x {
        Some(x) if percent => format!("{}%", fixed(x * 100.0, d)),
        Some(x) => fixed(x, d),
        None => "NE".to_string(),
    }
}

/// A number quoted in a message as it was written, short: Rust's shortest round-trip form, in
/// scientific notation past 1e15 (`1e308`, never a 309-digit number).
pub fn short_number(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 && (x == 0.0 || x.abs() >= 1e-6) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A whole number without decimals, anything else with one.
pub fn fmt_plain(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        fixed(x, 1)
    }
}

/// Rounds half away from zero at `d` decimals (as SAS and a person would, not banker's),
/// printing the rounded number's digits exactly. A value within a few units in the last
/// place of a half (0.145 × 100 is 14.499999999999998 in binary) counts as the half: the
/// tolerance is relative to the value, so it never shows as a digit (`53.0000000000`, not
/// the `53.0000000001` a nudge added before rounding gave at ten decimals).
pub fn fixed(x: f64, d: usize) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let d = d.min(MAX_DECIMALS);
    let scaled = x * 10f64.powi(d as i32);
    let floor = scaled.floor();
    let fraction = scaled - floor;
    let tie = (fraction - 0.5).abs() <= scaled.abs() * TIE_TOLERANCE;
    let rounded = if tie && scaled > 0.0 {
        floor + 1.0
    } else if tie {
        floor
    } else {
        scaled.round()
    };
    if scaled.abs() >= 2f64.powi(52) {
        // Where doubles are a unit or more apart the scaled value is no longer exact (10 ×
        // 999999999999999 is 9999999999999992): the value's own digits, nothing to round.
        return format!("{x:.d$}").replace('-', "\u{2212}");
    }
    digits(rounded as i64, d)
}

/// Most decimals printed: more than a double holds for any value a document shows.
const MAX_DECIMALS: usize = 15;

/// How near a half, relative to the value, counts as the half: about 64 units in the last
/// place of a double, more than a few arithmetic steps lose, far less than any printed digit.
const TIE_TOLERANCE: f64 = 64.0 * f64::EPSILON;

/// `units` / 10^`d` written with `d` decimals, exactly (`-0.0` is `0.0`); a negative number
/// with the minus sign (U+2212), as printed documents set it, not a hyphen.
fn digits(units: i64, d: usize) -> String {
    let magnitude = units.unsigned_abs().to_string();
    let sign = if units < 0 { "\u{2212}" } else { "" };
    if d == 0 {
        return format!("{sign}{magnitude}");
    }
    let padded = format!("{magnitude:0>width$}", width = d + 1);
    let (whole, decimals) = padded.split_at(padded.len() - d);
    format!("{sign}{whole}.{decimals}")
}

/// `100·n/N` rounded half away from zero at `d` decimals, from the counts themselves (no
/// binary fraction in between).
pub fn percent_of(n: u64, total: u64, d: usize) -> String {
    let d = d.min(MAX_DECIMALS);
    let scale = 10u128.pow(d as u32);
    let numerator = u128::from(n) * 100 * scale;
    let total = u128::from(total.max(1));
    let (q, r) = (numerator / total, numerator % total);
    let units = q + u128::from(2 * r >= total);
    match i64::try_from(units) {
        Ok(units) => digits(units, d),
        Err(_) => fixed(n as f64 / total as f64 * 100.0, d),
    }
}

/// A p-value as journals print it: `p < 0.001`; `p > 0.99`; else two significant digits
/// (`p = 0.046`, `p = 0.32`, `p = 0.0046`); `p = NE` when there is none.
pub fn fmt_p(p: Option<f64>) -> String {
    let Some(p) = p.filter(|p| p.is_finite() && *p >= 0.0) else {
        return "p = NE".to_string();
    };
    if p < 0.001 {
        return "p < 0.001".to_string();
    }
    // From 0.001 to 0.01, three decimals (JAMA's rule: "p = 0.001", "p = 0.005", never a
    // trailing "0.0010"); above, two significant digits.
    if fixed(p, 3).parse::<f64>().is_ok_and(|r| r < 0.01) {
        return format!("p = {}", fixed(p, 3));
    }
    // Decimals for two significant digits; one fewer when rounding reaches the next power.
    let magnitude = p.log10().floor() as i32;
    let mut d = (1 - magnitude).max(2) as usize;
    let text = fixed(p, d);
    if text
        .parse::<f64>()
        .is_ok_and(|r| r >= 10f64.powi(magnitude + 1))
        && d > 2
    {
        d -= 1;
    }
    let text = fixed(p, d);
    if text.parse::<f64>().is_ok_and(|r| r > 0.99) {
        return "p > 0.99".to_string();
    }
    format!("p = {text}")
}

/// `2022-10-20` → `October 20, 2022` (other text unchanged).
pub fn long_date(iso: &str) -> String {
    match chrono::NaiveDate::parse_from_str(iso, "%Y-%m-%d") {
        Ok(d) => d.format("%B %-d, %Y").to_string(),
        Err(_) => iso.to_string(),
    }
}

/// How many subjects (or other names) a warning or report lists before it counts the rest.
pub const NAMES_LISTED: usize = 10;

/// `shown` (the first names of `total`), joined as `a, b, c and 4 more`.
pub fn first_names<S: AsRef<str>>(shown: &[S], total: usize) -> String {
    let mut text = shown
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    let more = total.saturating_sub(shown.len());
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// 1–2–5 steps (and 2.5) across the decades that could matter, ascending.
pub fn nice_steps() -> Vec<f64> {
    let mut out = Vec::new();
    for e in -3..=7 {
        let p = 10f64.powi(e);
        for m in [1.0, 2.0, 2.5, 5.0] {
            out.push(m * p);
        }
    }
    out
}

/// Candidate tick steps for a time unit, ascending: the conventional ones first (every
/// 3, 6, 12 months; 4 weeks; 7, 28, 30 days, then round hundreds), then plain 1–2–5 steps
/// for long axes.
pub fn time_steps(time_unit: &str) -> Vec<f64> {
    let unit = time_unit.trim().to_lowercase();
    let mut steps: Vec<f64> = if unit.starts_with("month") {
        vec![
            0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 6.0, 12.0, 24.0, 36.0, 48.0, 60.0, 120.0,
        ]
    } else if unit.starts_with("week") {
        vec![
            0.5, 1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 52.0, 104.0, 156.0, 260.0,
        ]
    } else if unit.starts_with("day") {
        // Round numbers of days past a month: 250, 500, 1000 (365-day steps ticked at 1825,
        // 3650, 5475).
        vec![
            1.0, 2.0, 5.0, 7.0, 14.0, 28.0, 30.0, 60.0, 90.0, 180.0, 250.0, 500.0, 1000.0, 2000.0,
            5000.0,
        ]
    } else {
        Vec::new()
    };
    let last = steps.last().copied().unwrap_or(0.0);
    steps.extend(nice_steps().into_iter().filter(|s| *s > last));
    steps
}

/// How many of the values present a message lists.
const LISTED: usize = 20;

/// `A, B, C` of the first 20 distinct values (sorted), then how many in all: the values an
/// error or warning names.
pub fn listing<'a>(values: impl IntoIterator<Item = &'a str>) -> String {
    let values: std::collections::BTreeSet<&str> = values.into_iter().collect();
    let shown: Vec<&str> = values.iter().take(LISTED).copied().collect();
    let mut text = shown.join(", ");
    if values.len() > LISTED {
        text.push_str(&format!(", ... ({} in all)", values.len()));
    }
    text
}

/// Words of prose that stay in lower case when a coded value in capitals is phrased; any other
/// capitalised word of four letters or fewer is taken for an abbreviation (ALK, ECOG, NOS).
const COMMON_WORDS: &[&str] = &[
    "A", "AN", "THE", "OF", "AND", "OR", "NOT", "NO", "YES", "IN", "ON", "AT", "TO", "BY", "FOR",
    "WITH", "NON", "ALL", "ANY", "NONE", "HIGH", "LOW", "MALE", "LATE", "ONE", "TWO", "WILD",
    "TYPE", "LINE", "BONE", "LUNG", "SKIN", "LEFT", "BOTH", "ONLY", "PRE", "POST", "LESS", "MORE",
    "THAN", "OVER", "NEW", "OLD", "MILD", "FULL", "PART", "EVER", "DONE", "LOST", "DEAD", "LIFE",
    "SIDE", "REST", "ELSE", "SOME", "BEST", "NEAR", "FAR", "SAME", "PAST", "USED",
];

/// Places a region or country code names, written with a capital in prose.
const PLACES: &[&str] = &[
    "EUROPE",
    "ASIA",
    "AFRICA",
    "AMERICA",
    "AMERICAS",
    "AUSTRALIA",
    "OCEANIA",
    "PACIFIC",
    "ANTARCTICA",
    "CARIBBEAN",
    "SCANDINAVIA",
    "NORDICS",
    "BALTICS",
    "JAPAN",
    "CHINA",
    "KOREA",
    "TAIWAN",
    "INDIA",
    "CANADA",
    "MEXICO",
    "BRAZIL",
    "ARGENTINA",
    "RUSSIA",
    "GERMANY",
    "FRANCE",
    "SPAIN",
    "ITALY",
    "POLAND",
    "TURKEY",
    "ISRAEL",
    "ZEALAND",
    "KINGDOM",
    "STATES",
    "EAST",
    "EUROPEAN",
    "ASIAN",
    "AFRICAN",
    "AMERICAN",
    "JAPANESE",
    "CHINESE",
    "KOREAN",
    "HISPANIC",
    "LATINO",
    "CAUCASIAN",
];

/// Compass and qualifying words that take a capital before a place ("North America",
/// "Asia Pacific", "Western Europe", "Middle East", "United States").
const BEFORE_PLACES: &[&str] = &[
    "NORTH",
    "SOUTH",
    "EAST",
    "WEST",
    "NORTHERN",
    "SOUTHERN",
    "EASTERN",
    "WESTERN",
    "CENTRAL",
    "LATIN",
    "MIDDLE",
    "UNITED",
    "NEW",
    "SOUTHEAST",
    "NORTHEAST",
    "SOUTHWEST",
    "NORTHWEST",
];

/// A coded value as prose prints it: a value written in capitals ("REST OF WORLD", "NEVER",
/// "TRANSFORMED FL") in lower case but for places and abbreviations ("rest of world", "never",
/// "transformed FL", "North America"); "ROW" is "rest of world"; ">=65" is "≥65". A value
/// with any lower-case letter is otherwise the user's own wording and kept.
pub fn phrase_code(value: &str) -> String {
    if value.contains(">=") || value.contains("<=") {
        return phrase_code(&value.replace(">=", "≥").replace("<=", "≤"));
    }
    let trimmed = value.trim();
    if trimmed.chars().any(char::is_lowercase) || !trimmed.chars().any(char::is_alphabetic) {
        return value.to_string();
    }
    if matches!(trimmed, "ROW" | "ROTW" | "REST OF THE WORLD") {
        return "rest of world".to_string();
    }
    let words: Vec<&str> = trimmed.split(' ').collect();
    let is_place = |w: Option<&&str>| w.is_some_and(|w| PLACES.contains(w));
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            let vowel = w.chars().any(|c| "AEIOU".contains(c));
            let before_place = BEFORE_PLACES.contains(w)
                && (is_place(words.get(i + 1))
                    || BEFORE_PLACES.contains(words.get(i + 1).unwrap_or(&"")));
            if PLACES.contains(w)
                || before_place
                || (*w == "EAST" && i > 0 && words[i - 1] == "MIDDLE")
            {
                let mut chars = w.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_string() + &chars.as_str().to_lowercase()
                })
            } else if w.chars().any(|c| c.is_ascii_digit())
                || !vowel
                || (letters <= 4 && !COMMON_WORDS.contains(w))
            {
                (*w).to_string()
            } else {
                w.to_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_values_in_capitals_read_as_prose() {
        let cases = [
            ("EUROPE", "Europe"),
            ("REST OF WORLD", "rest of world"),
            ("ROW", "rest of world"),
            ("NORTH AMERICA", "North America"),
            ("ASIA PACIFIC", "Asia Pacific"),
            ("MIDDLE EAST", "Middle East"),
            ("FORMER", "former"),
            ("NEVER", "never"),
            ("CURRENT SMOKER", "current smoker"),
            ("TRANSFORMED FL", "transformed FL"),
            ("DLBCL NOS", "DLBCL NOS"),
            ("EGFR MUTANT", "EGFR mutant"),
            ("PD-L1 >=50%", "PD-L1 ≥50%"),
            (">=65", "≥65"),
            ("<=1 prior line", "≤1 prior line"),
            ("HIGH", "high"),
            ("Europe", "Europe"),
            ("Rest of World", "Rest of World"),
            ("III", "III"),
            ("0", "0"),
        ];
        for (code, words) in cases {
            assert_eq!(phrase_code(code), words, "{code}");
        }
    }

    #[test]
    fn p_values_read_as_journals_print_them() {
        let cases = [
            (0.000_2, "p < 0.001"),
            (0.001, "p = 0.001"),
            (0.001_04, "p = 0.001"),
            (0.004_6, "p = 0.005"),
            (0.009_96, "p = 0.010"),
            (0.036_983_65, "p = 0.037"),
            (0.046_487_93, "p = 0.046"),
            (0.099_6, "p = 0.10"),
            (0.402_198_5, "p = 0.40"),
            (0.921_766, "p = 0.92"),
            (0.99, "p = 0.99"),
            (0.995, "p > 0.99"),
            (1.0, "p > 0.99"),
        ];
        for (p, text) in cases {
            assert_eq!(fmt_p(Some(p)), text, "{p}");
        }
        assert_eq!(fmt_p(None), "p = NE");
        assert_eq!(fmt_p(Some(f64::NAN)), "p = NE");
    }

    /// Half away from zero, near-halves of binary arithmetic counted as halves, and every
    /// printed digit exact at any number of decimals.
    #[test]
    fn numbers_round_half_away_and_print_exact_digits() {
        let cases = [
            (0.125, 2, "0.13"),
            (-0.125, 2, "\u{2212}0.13"),
            (0.145 * 100.0, 0, "15"),
            (2.675, 2, "2.68"),
            (1.005, 2, "1.01"),
            (14.44, 1, "14.4"),
            (-0.04, 1, "0.0"),
            (53.0, 10, "53.0000000000"),
            (0.53 * 100.0, 10, "53.0000000000"),
            (34.210_526_315_789_47, 10, "34.2105263158"),
            (1e-7, 3, "0.000"),
            (123_456.5, 0, "123457"),
            // Past 2^52 once scaled: the value's own digits (it printed 999999999999999.2).
            (999_999_999_999_999.0, 1, "999999999999999.0"),
            (-1e20, 1, "\u{2212}100000000000000000000.0"),
            (4_503_599_627_370_497.0, 0, "4503599627370497"),
        ];
        for (x, d, text) in cases {
            assert_eq!(fixed(x, d), text, "{x} at {d}");
        }
        assert_eq!(percent_of(106, 200, 10), "53.0000000000");
        assert_eq!(percent_of(29, 200, 0), "15");
        assert_eq!(percent_of(13, 38, 1), "34.2");
        assert_eq!(percent_of(1, 3, 10), "33.3333333333");
        assert_eq!(percent_of(2, 3, 10), "66.6666666667");
        assert_eq!(fmt_n_pct(106, 200, 10), "106/200 (53.0000000000%)");
        assert_eq!(fmt_pct(Some(106.0 / 200.0), 10), "53.0000000000%");
    }
}
