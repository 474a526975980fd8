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

/// `13/38 (34.2%)`; `13/0` without a denominator.
pub fn fmt_n_pct(n: u64, total: u64, d: usize) -> String {
    if total == 0 {
        format!("{n}/{total}")
    } else {
        format!(
            "{n}/{total} ({}%)",
            fixed(n as f64 / total as f64 * 100.0, d)
        )
    }
}

/// `13 (34.2%)`; `13` without a denominator.
pub fn fmt_count_pct(n: u64, total: u64, d: usize) -> String {
    if total == 0 {
        n.to_string()
    } else {
        format!("{n} ({}%)", fixed(n as f64 / total as f64 * 100.0, d))
    }
}

/// The limits of an interval, `a, b` (`19.6%, 51.4%` with `percent`); a missing limit is `NE`.
pub fn fmt_limits(lower: Option<f64>, upper: Option<f64>, d: usize, percent: bool) -> String {
    let limit = |x: Option<f64>| match x {
        Some(x) if percent => format!("{}%", fixed(x * 100.0, d)),
        Some(x) => fixed(x, d),
        None => "NE".to_string(),
    };
    format!("{}, {}", limit(lower), limit(upper))
}

/// A whole number without decimals, anything else with one.
pub fn fmt_plain(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        fixed(x, 1)
    }
}

/// Rounds half away from zero at `d` decimals (as SAS and a person would, not banker's).
pub fn fixed(x: f64, d: usize) -> String {
    let factor = 10f64.powi(d as i32);
    // Nudge by a relative epsilon so 0.125 stored as 0.12499999... still rounds up.
    let scaled = x * factor;
    let rounded = (scaled + scaled.signum() * scaled.abs() * 1e-12).round() / factor;
    let rounded = if rounded == 0.0 { 0.0 } else { rounded };
    format!("{rounded:.d$}")
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
