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

/// A p-value as journals print it: `p < 0.001`; `p > 0.99`; else two significant digits
/// (`p = 0.046`, `p = 0.32`, `p = 0.0046`); `p = NE` when there is none.
pub fn fmt_p(p: Option<f64>) -> String {
    let Some(p) = p.filter(|p| p.is_finite() && *p >= 0.0) else {
        return "p = NE".to_string();
    };
    if p < 0.001 {
        return "p < 0.001".to_string();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_read_as_journals_print_them() {
        let cases = [
            (0.000_2, "p < 0.001"),
            (0.001, "p = 0.0010"),
            (0.004_6, "p = 0.0046"),
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
}
