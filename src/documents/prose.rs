//! Words around the numbers, as a medical writer puts them: counts spelled out at the start of a
//! sentence, baseline characteristics in compact forms ("male/female: 65%/35%", "median age 61
//! years (range 37–75)") with decoded values in their natural order. Used by the templates'
//! filters (`spell`, `sentence`, `baseline_phrase`; docs/TEMPLATES.md).

use crate::documents::trace;
use crate::format::{fixed, fmt_n_pct, fmt_n_pct_with, fmt_pct, fmt_plain, Part};
use crate::results::{BaselineSummary, LevelCount};

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// A count opening a sentence, as journal style has it: spelled out up to ninety-nine ("Nine
/// pts died"), a larger one recast ("A total of 4,028 pts were randomized") rather than
/// spelled ("Four thousand twenty-eight").
pub fn sentence_start(n: u64) -> String {
    sentence_start_with(n, |text| text)
}

/// [`sentence_start`] with the number's words or digits passed through `mark` (the traced
/// render marks them; "A total of" is not the number).
pub fn sentence_start_with(n: u64, mark: impl FnOnce(String) -> String) -> String {
    if n < 100 {
        mark(sentence_case(&spell(n)))
    } else {
        format!("A total of {}", mark(grouped(n)))
    }
}

/// `4028` as `4,028`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A whole number in words ("twenty-one", "three hundred four", "1,250 thousand" is never
/// reached: past 999,999 the digits are returned).
pub fn spell(n: u64) -> String {
    fn below_thousand(n: u64) -> String {
        let (hundreds, rest) = (n / 100, n % 100);
        let rest_words = match rest {
            0 => String::new(),
            1..=19 => ONES[rest as usize].to_string(),
            _ => {
                let (t, o) = ((rest / 10) as usize, (rest % 10) as usize);
                let tens = TENS.get(t).copied().unwrap_or("");
                if o == 0 {
                    tens.to_string()
                } else {
                    format!("{tens}-{}", ONES.get(o).copied().unwrap_or(""))
                }
            }
        };
        match (hundreds, rest) {
            (0, _) => rest_words,
            (h, 0) => format!("{} hundred", ONES[h as usize]),
            (h, _) => format!("{} hundred {rest_words}", ONES[h as usize]),
        }
    }
    match n {
        0 => "zero".to_string(),
        1..=999 => below_thousand(n),
        1_000..=999_999 => {
            let (thousands, rest) = (n / 1000, n % 1000);
            if rest == 0 {
                format!("{} thousand", below_thousand(thousands))
            } else {
                format!(
                    "{} thousand {}",
                    below_thousand(thousands),
                    below_thousand(rest)
                )
            }
        }
        _ => n.to_string(),
    }
}

/// The text with its first letter upper-case and the rest as it is (Tera's `capitalize`
/// lower-cases the rest, which would turn an abbreviation such as PFS into pfs).
pub fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A label inside a sentence: lower-case first letter unless it opens with an acronym
/// ("ECOG performance status", "PD-L1 expression" stay; "Sex" becomes "sex").
pub fn in_sentence(label: &str) -> String {
    let first_word = label.split_whitespace().next().unwrap_or("");
    let letters = first_word.chars().filter(|c| c.is_alphabetic()).count();
    let acronym = letters > 1 && first_word.chars().all(|c| !c.is_lowercase());
    if acronym {
        return label.to_string();
    }
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether a value of several words is written in title case ("North America", "Czech
/// Republic"), as a name is, unlike a term in sentence case ("Oral cavity").
fn title_case(value: &str) -> bool {
    let words: Vec<&str> = value.split_whitespace().collect();
    words.len() > 1
        && words.iter().all(|w| {
            let mut letters = w.chars().filter(|c| c.is_alphabetic());
            let first = letters.next();
            first.is_some_and(char::is_uppercase) && letters.any(char::is_lowercase)
        })
}

/// Levels longer than this are listed with their counts, not joined by slashes.
const COMPACT_WORD_CHARS: usize = 15;

/// A baseline label's name and unit: "Age, years" → ("age", Some("years")).
fn name_and_unit(label: &str) -> (String, Option<&str>) {
    match label.rsplit_once(", ") {
        Some((name, unit)) if !unit.is_empty() && !unit.contains(' ') => {
            (in_sentence(name), Some(unit))
        }
        _ => (in_sentence(label), None),
    }
}

/// The levels in their natural order (`natural_order`, else as given), with any level the order
/// does not name after them.
pub(crate) fn ordered(b: &BaselineSummary) -> Vec<(usize, &LevelCount)> {
    // Looked up by value: an item may have tens of thousands of levels (a free-text column).
    let by_value: std::collections::HashMap<&str, (usize, &LevelCount)> = b
        .levels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.value.as_str(), (i, l)))
        .collect();
    let natural: std::collections::HashSet<&str> =
        b.natural_order.iter().map(String::as_str).collect();
    let mut levels: Vec<(usize, &LevelCount)> = b
        .natural_order
        .iter()
        .filter_map(|v| by_value.get(v.as_str()).copied())
        .collect();
    levels.extend(
        b.levels
            .iter()
            .enumerate()
            .filter(|(_, l)| !natural.contains(l.value.as_str())),
    );
    levels
}

/// A baseline characteristic as a phrase of an abstract's sentence, its levels decoded and in
/// their natural order:
/// - continuous: "median age 61 years (range 37–75)";
/// - at most `compact` short levels (five when they are numbers): "ECOG performance status
///   0/1: 5.0%/95.0%", "male/female: 65.0%/35.0%", "ISS stage I/II/III: …" (codes kept as
///   written; `pd` decimals always, as every percentage of the abstract);
/// - a Y/N flag: "distant metastases 15/21 (71.4%)";
/// - more levels: "primary tumor site: salivary gland 15/21 (71.4%), larynx 3/21 (14.3%)".
///
/// Empty when the item has no data.
pub fn baseline_phrase(b: &BaselineSummary, compact: usize, pd: usize) -> String {
    baseline_phrase_at(b, compact, pd, None)
}

/// [`baseline_phrase`] of the item at `at` (its JSON Pointer, when traced): each number
/// marked with its own (`/stats/median`, `/levels/2/n`, `/levels/2/rate`).
pub fn baseline_phrase_at(
    b: &BaselineSummary,
    compact: usize,
    pd: usize,
    at: Option<&str>,
) -> String {
    let (name, unit) = name_and_unit(&b.label);
    let unit = unit.map(|u| format!(" {u}")).unwrap_or_default();
    let mark = |text: String, path: String, value: serde_json::Value| {
        trace::mark_at(text, at, &path, || value, "baseline")
    };
    if let Some(s) = &b.stats {
        let stat = |x: f64, key: &str| mark(fmt_plain(x), format!("/stats/{key}"), x.into());
        return format!(
            "median {name} {}{unit} (range {}–{})",
            stat(s.median, "median"),
            stat(s.min, "min"),
            stat(s.max, "max")
        );
    }
    let levels = ordered(b);
    if levels.is_empty() {
        return String::new();
    }
    let count = |i: usize, key: &str, x: usize, text: String| {
        mark(text, format!("/levels/{i}/{key}"), x.into())
    };
    let rate = |i: usize, l: &LevelCount, text: String| {
        mark(text, format!("/levels/{i}/rate"), l.rate.into())
    };
    let n_pct = |i: usize, l: &LevelCount| {
        fmt_n_pct_with(l.n as u64, l.total as u64, pd, |part, text| match part {
            Part::Count => count(i, "n", l.n, text),
            Part::Total => count(i, "N", l.total, text),
            Part::Percent => rate(i, l, text),
        })
    };
    // A yes/no flag: the share with it ("distant metastases 15/21 (71.4%)").
    if levels.iter().all(|(_, l)| l.value == "Y" || l.value == "N") {
        let total = levels.first().map_or(0, |(_, l)| l.total);
        return match levels.iter().find(|(_, l)| l.value == "Y") {
            Some((i, l)) => format!("{name}{unit} {}", n_pct(*i, l)),
            None => format!("{name}{unit} {}", fmt_n_pct(0, total as u64, pd)),
        };
    }
    // Values as written in the data read in lower case inside a sentence ("oral cavity");
    // the config's and the terminology's words are used as they are, and so are names: levels
    // of which one is in title case ("North America") are proper nouns ("Europe", "Asia").
    let names = levels
        .iter()
        .any(|(_, l)| l.label == l.value && title_case(&l.label));
    // A value whose first word has no lower-case letter is a code or a name ("I", "IIIA",
    // "HER2"), kept as written.
    let words: Vec<String> = levels
        .iter()
        .map(|(_, l)| {
            let coded = l
                .label
                .split_whitespace()
                .next()
                .is_some_and(|w| !w.chars().any(char::is_lowercase));
            let word = if l.label == l.value && !names && !coded {
                in_sentence(&l.label)
            } else {
                l.label.clone()
            };
            // Coded comparisons as a congress prints them (">=65" as "≥65").
            word.replace(">=", "≥").replace("<=", "≤")
        })
        .collect();
    let short = words
        .iter()
        .all(|w| w.chars().count() <= COMPACT_WORD_CHARS);
    // Numbered levels (prior lines 1/2/3/4) read best side by side, up to five of them.
    let numbered = words
        .iter()
        .all(|w| w.len() <= 3 && w.chars().all(|c| c.is_ascii_digit() || c == '+'));
    let compact = if numbered { compact.max(5) } else { compact };
    if levels.len() <= compact && short {
        // Every percentage of the abstract has the same decimals, whole or not.
        let rates: Vec<String> = levels
            .iter()
            .map(|(i, l)| {
                let text = fmt_pct(Some(l.n as f64 / l.total.max(1) as f64), pd);
                rate(*i, l, text)
            })
            .collect();
        let head = if b.self_describing {
            String::new()
        } else {
            format!("{name} ")
        };
        return format!("{head}{}{unit}: {}", words.join("/"), rates.join("/"));
    }
    let listed: Vec<String> = levels
        .iter()
        .zip(&words)
        .map(|((i, l), w)| format!("{w} {}", n_pct(*i, l)))
        .collect();
    match unit.trim() {
        "" => format!("{name}: {}", listed.join(", ")),
        u => format!("{name} ({u}): {}", listed.join(", ")),
    }
}

/// The decimals of the percentages of one baseline sentence: none when every one of them is
/// whole at `pd` decimals ("65%/35%"), else `pd` for all ("52.5%/47.5%", "30.0%"), so that one
/// sentence never mixes the two.
pub fn baseline_decimals(items: &[BaselineSummary], pd: usize) -> usize {
    let whole = items.iter().filter(|b| b.stats.is_none()).all(|b| {
        b.levels.iter().all(|l| {
            let x = 100.0 * l.n as f64 / l.total.max(1) as f64;
            fixed(x, pd).parse::<f64>().ok() == fixed(x, 0).parse::<f64>().ok()
        })
    });
    if whole {
        0
    } else {
        pd
    }
}

/// A list of words: "a", "a and b", "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Terms with their subject counts, most frequent first, those of one count together:
/// "hypertension in 2; hyponatraemia and rash in 1 each". Terms are written in lower case.
pub fn counted_terms(terms: &[(String, usize)]) -> String {
    counted_terms_with(terms, |n| n.to_string())
}

/// [`counted_terms`] with each count printed by `count`.
pub fn counted_terms_with(terms: &[(String, usize)], count: impl Fn(usize) -> String) -> String {
    let mut groups: Vec<(usize, Vec<String>)> = Vec::new();
    for (term, n) in terms {
        let term = term.to_lowercase();
        match groups.iter_mut().find(|(m, _)| m == n) {
            Some((_, names)) => names.push(term),
            None => groups.push((*n, vec![term])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
    let parts: Vec<String> = groups
        .iter()
        .map(|(n, names)| {
            let n = count(*n);
            if names.len() == 1 {
                format!("{} in {n}", and_list(names))
            } else {
                format!("{} in {n} each", and_list(names))
            }
        })
        .collect();
    parts.join("; ")
}

/// Where a count of discontinuations because of adverse events came from, in words: the
/// reason for ending (`DCTREAS`), the flag `DSRAEFL`, or the action taken with the study
/// treatment (`AEACN`).
pub fn ae_discontinuation_source(source: &str) -> String {
    match source {
        "AEACN" => "action taken with the study treatment, AEACN".to_string(),
        "DSRAEFL" => "flagged in DSRAEFL".to_string(),
        column => format!("reason for discontinuation, {column}"),
    }
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    /// Counts opening a sentence: words up to 99, "A total of" beyond.
    #[test]
    fn sentence_starts_spell_small_counts_and_recast_large_ones() {
        assert_eq!(sentence_start(9), "Nine");
        assert_eq!(sentence_start(99), "Ninety-nine");
        assert_eq!(sentence_start(100), "A total of 100");
        assert_eq!(sentence_start(4028), "A total of 4,028");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
    use crate::config::BaselineKind;

    #[test]
    fn numbers_in_words() {
        for (n, words) in [
            (0, "zero"),
            (4, "four"),
            (9, "nine"),
            (13, "thirteen"),
            (20, "twenty"),
            (21, "twenty-one"),
            (99, "ninety-nine"),
            (100, "one hundred"),
            (105, "one hundred five"),
            (300, "three hundred"),
            (342, "three hundred forty-two"),
            (1000, "one thousand"),
            (21_040, "twenty-one thousand forty"),
            (1_000_000, "1000000"),
        ] {
            assert_eq!(spell(n), words);
        }
        assert_eq!(sentence_case("nine PFS events"), "Nine PFS events");
    }

    #[test]
    fn terms_of_one_count_are_grouped() {
        let terms = [
            ("Hypertension", 2),
            ("Rash", 1),
            ("Hyponatraemia", 1),
            ("Fatigue", 3),
        ]
        .map(|(t, n)| (t.to_string(), n));
        assert_eq!(
            counted_terms(&terms),
            "fatigue in 3; hypertension in 2; rash and hyponatraemia in 1 each"
        );
        assert_eq!(counted_terms(&terms[..1]), "hypertension in 2");
        assert_eq!(counted_terms(&[]), "");
    }

    fn level(value: &str, label: &str, n: usize, total: usize) -> LevelCount {
        LevelCount {
            value: value.into(),
            label: label.into(),
            n,
            total,
            rate: n as f64 / total as f64,
        }
    }

    fn categorical(label: &str, levels: Vec<LevelCount>, order: &[&str]) -> BaselineSummary {
        BaselineSummary {
            column: "X".into(),
            label: label.into(),
            kind: BaselineKind::Categorical,
            n: levels.iter().map(|l| l.n).sum(),
            missing: 0,
            stats: None,
            levels,
            natural_order: order.iter().map(|s| s.to_string()).collect(),
            self_describing: false,
        }
    }

    #[test]
    fn compact_and_long_forms() {
        // Most frequent first in the table, natural order in prose; the abstract's decimals
        // even where whole (one decimal rule per sentence).
        let ecog = categorical(
            "ECOG performance status",
            vec![level("1", "1", 19, 20), level("0", "0", 1, 20)],
            &["0", "1"],
        );
        assert_eq!(
            baseline_phrase(&ecog, 3, 1),
            "ECOG performance status 0/1: 5.0%/95.0%"
        );
        let mut sex = categorical(
            "Sex",
            vec![level("M", "male", 13, 20), level("F", "female", 7, 20)],
            &["M", "F"],
        );
        sex.self_describing = true;
        assert_eq!(baseline_phrase(&sex, 3, 1), "male/female: 65.0%/35.0%");
        // Codes keep their capitals ("I", not "i"); numbered levels sit side by side.
        let iss = categorical(
            "ISS stage",
            vec![
                level("I", "I", 5, 20),
                level("II", "II", 10, 20),
                level("III", "III", 5, 20),
            ],
            &["I", "II", "III"],
        );
        assert_eq!(
            baseline_phrase(&iss, 3, 1),
            "ISS stage I/II/III: 25.0%/50.0%/25.0%"
        );
        let lines = categorical(
            "Prior lines of therapy",
            (1..=4)
                .map(|k| level(&k.to_string(), &k.to_string(), 5, 20))
                .collect(),
            &["1", "2", "3", "4"],
        );
        assert_eq!(
            baseline_phrase(&lines, 3, 1),
            "prior lines of therapy 1/2/3/4: 25.0%/25.0%/25.0%/25.0%"
        );
        // A Y/N flag decoded to words is still the share with it.
        let flag = categorical(
            "High-risk cytogenetics",
            vec![level("N", "No", 14, 20), level("Y", "Yes", 6, 20)],
            &["Y", "N"],
        );
        assert_eq!(
            baseline_phrase(&flag, 3, 1),
            "high-risk cytogenetics 6/20 (30.0%)"
        );
        // Not whole at one decimal: the decimals stay; a unit after the levels.
        let dose = categorical(
            "Anlotinib starting dose, mg",
            vec![level("12", "12", 14, 21), level("10", "10", 7, 21)],
            &["10", "12"],
        );
        assert_eq!(
            baseline_phrase(&dose, 3, 1),
            "anlotinib starting dose 10/12 mg: 33.3%/66.7%"
        );
        // Names keep their capitals when one of them is in title case; terms read in lower case.
        let region = categorical(
            "Region",
            vec![
                level("Europe", "Europe", 112, 300),
                level("Asia", "Asia", 109, 300),
                level("North America", "North America", 79, 300),
            ],
            &["Europe", "Asia", "North America"],
        );
        assert_eq!(
            baseline_phrase(&region, 3, 1),
            "region Europe/Asia/North America: 37.3%/36.3%/26.3%"
        );
        let site = categorical(
            "Primary tumor site",
            vec![
                level("Oral cavity", "Oral cavity", 15, 38),
                level("Larynx", "Larynx", 10, 38),
            ],
            &[],
        );
        assert_eq!(
            baseline_phrase(&site, 1, 1),
            "primary tumor site: oral cavity 15/38 (39.5%), larynx 10/38 (26.3%)"
        );
        // Numbered levels stay side by side past `compact` (their long form would read
        // "10 7/21 (33.3%)"), up to five.
        assert_eq!(
            baseline_phrase(&dose, 1, 1),
            "anlotinib starting dose 10/12 mg: 33.3%/66.7%"
        );
        let age = BaselineSummary {
            column: "AGE".into(),
            label: "Age, years".into(),
            kind: BaselineKind::Continuous,
            n: 20,
            missing: 0,
            stats: Some(crate::results::ContinuousSummary {
                mean: 60.0,
                sd: Some(9.0),
                median: 61.0,
                min: 37.0,
                max: 75.0,
            }),
            levels: Vec::new(),
            natural_order: Vec::new(),
            self_describing: false,
        };
        assert_eq!(
            baseline_phrase(&age, 3, 1),
            "median age 61 years (range 37–75)"
        );
    }
}
