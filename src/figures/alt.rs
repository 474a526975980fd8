//! Alternative text of a cohort's figures, written from the results they show ("Kaplan–Meier
//! curves of progression-free survival by arm: median 16.7 months with Vd and 12.2 months with
//! Pd; stratified HR 0.67 (95% CI 0.46–0.98)"), for screen readers: the SVG's `<desc>`, the
//! Word picture's and the slide picture's description (docs/OUTPUTS.md, "Accessibility").

use crate::config::Analysis;
use crate::format::fixed;
use crate::results::{CohortResults, Estimate};

/// A time with its unit, or "not reached".
fn time(e: &Estimate, settings: &Analysis) -> String {
    match e.estimate {
        Some(x) => format!(
            "{} {}",
            fixed(x, settings.time_decimals),
            settings.time_unit.name()
        ),
        None => "not reached".to_string(),
    }
}

/// "0.67 (95% CI 0.46–0.98)": a ratio as figures print it (legends and descriptions).
pub(super) fn ratio(hr: &crate::stats::Ci, settings: &Analysis) -> String {
    format!(
        "{} ({}% CI {}–{})",
        fixed(hr.estimate, 2),
        crate::format::fmt_plain(settings.ci_percent()),
        fixed(hr.lower, 2),
        fixed(hr.upper, 2)
    )
}

/// The alternative text of the figure named `name` (`km-pfs`, `forest-os-2`, `waterfall`...).
pub fn alt_text(name: &str, c: &CohortResults, settings: &Analysis) -> String {
    let pct = |p: &crate::results::Proportion| {
        p.rate.map_or("not estimable".to_string(), |r| {
            format!("{}%", fixed(r * 100.0, settings.percent_decimals))
        })
    };
    if let Some(rest) = name.strip_prefix("cif-") {
        return cif_alt(rest, c, settings);
    }
    if let Some(rest) = name.strip_prefix("km-") {
        return km_alt(rest, c, settings);
    }
    if let Some(rest) = name.strip_prefix("forest-") {
        return forest_alt(rest, c, settings);
    }
    let response = c.response.as_ref();
    if name.starts_with("ae-dot") {
        return "Dot plot of the most frequent adverse events: each arm's incidence and the risk difference with its confidence interval.".to_string();
    }
    match name.split('-').next().unwrap_or(name) {
        "waterfall" => format!(
            "Waterfall plot of the best change in the sum of target lesion diameters, one bar per subject{}.",
            response.map_or(String::new(), |r| format!("; ORR {}", pct(&r.orr)))
        ),
        "swimmer" => format!(
            "Swimmer plot of the {} subjects' time on study with their responses, progressions and deaths{}.",
            c.n.enrolled,
            response.map_or(String::new(), |r| format!("; ORR {}", pct(&r.orr)))
        ),
        "spider" => "Spider plot of each subject's change in the sum of target lesion diameters over time.".to_string(),
        "ae" => {
            let top = c
                .safety
                .as_ref()
                .and_then(|s| s.by_term.first().map(|t| (s, t)))
                .map_or(String::new(), |(s, t)| {
                    format!(
                        ": the most frequent, {}, in {} of {} subjects",
                        t.term, t.trae_any, s.total
                    )
                });
            format!("Bar chart of the most frequent treatment-related adverse events by grade{top}.")
        }
        _ => format!("Figure {name} of cohort {}.", c.id),
    }
}

/// The endpoint a figure's name ends with (`km-pfs`: `pfs`, in any case), its results and
/// its label (the endpoint's name without one).
fn endpoint_named<'c>(
    c: &'c CohortResults,
    rest: &str,
) -> Option<(&'c String, &'c crate::results::TteResults, &'c str)> {
    let (endpoint, t) = c.tte.iter().find(|(e, _)| e.eq_ignore_ascii_case(rest))?;
    let label = if t.label.is_empty() {
        endpoint.as_str()
    } else {
        &t.label
    };
    Some((endpoint, t, label))
}

/// A cumulative incidence figure's text: the incidence at the last landmark per group, the
/// competing events, the Fine–Gray HR.
fn cif_alt(rest: &str, c: &CohortResults, settings: &Analysis) -> String {
    let Some((endpoint, t, label)) = endpoint_named(c, rest) else {
        return format!("Cumulative incidence of {rest}.");
    };
    let at_last = |t: &crate::results::TteResults| {
        let l = t.cif.as_ref()?.landmarks.last()?;
        Some((
            l.time,
            format!("{}%", fixed(l.estimate * 100.0, settings.percent_decimals)),
        ))
    };
    let groups: Vec<(&str, &crate::results::TteResults)> = if c.arms.is_empty() {
        vec![(c.label.as_str(), t)]
    } else {
        c.arms
            .iter()
            .filter_map(|a| Some((c.arm_short(&a.arm), a.results.tte.get(endpoint)?)))
            .collect()
    };
    let mut text = format!(
        "Cumulative incidence of {label}{} with competing events ({} in all)",
        if c.arms.is_empty() { "" } else { " by arm" },
        t.cif.as_ref().map_or(0, |x| x.competing)
    );
    let values: Vec<String> = groups
        .iter()
        .filter_map(|(name, t)| {
            let (time, v) = at_last(t)?;
            Some(format!(
                "{v} with {name} at {} {}",
                crate::format::fmt_plain(time),
                settings.time_unit.name()
            ))
        })
        .collect();
    if !values.is_empty() {
        text.push_str(": ");
        text.push_str(&values.join(", "));
    }
    if let Some(hr) = c
        .comparisons
        .first()
        .and_then(|x| x.tte.get(endpoint))
        .and_then(|t| t.fine_gray.as_ref()?.hr.as_ref())
    {
        text.push_str(&format!("; Fine–Gray HR {}", ratio(hr, settings)));
    }
    text.push('.');
    text
}

/// A Kaplan–Meier figure's text: its medians, and the first comparison's HR.
fn km_alt(rest: &str, c: &CohortResults, settings: &Analysis) -> String {
    let Some((endpoint, t, label)) = endpoint_named(c, rest) else {
        return format!("Kaplan–Meier curves of {rest}.");
    };
    if c.arms.is_empty() {
        return format!(
            "Kaplan–Meier curve of {label} in {} subjects: {} events, median {}.",
            t.n,
            t.events,
            time(&t.median, settings)
        );
    }
    let medians: Vec<String> = c
        .arms
        .iter()
        .filter_map(|a| {
            let t = a.results.tte.get(endpoint)?;
            Some(format!(
                "{} with {}",
                time(&t.median, settings),
                c.arm_short(&a.arm)
            ))
        })
        .collect();
    let mut text = format!(
        "Kaplan–Meier curves of {label} by arm: median {}",
        medians.join(" and ")
    );
    if let Some(t) = c.comparisons.first().and_then(|x| x.tte.get(endpoint)) {
        let (cox, stratified) = match &t.stratified {
            Some(s) => (&s.cox, "stratified "),
            None => (&t.cox, ""),
        };
        if let Some(hr) = &cox.hr {
            text.push_str(&format!("; {stratified}HR {}", ratio(hr, settings)));
        }
    }
    text.push('.');
    text
}

/// A forest plot's text (`rest`: `<endpoint>-<k>`): the ratio its first row draws.
fn forest_alt(rest: &str, c: &CohortResults, settings: &Analysis) -> String {
    let endpoint = rest.split('-').next().unwrap_or(rest);
    let k: usize = rest
        .split('-')
        .nth(1)
        .and_then(|k| k.parse().ok())
        .unwrap_or(1);
    let Some(comparison) = c.comparisons.get(k.saturating_sub(1)) else {
        return format!("Forest plot of {endpoint} hazard ratios by subgroup.");
    };
    let Some((e, t)) = comparison
        .tte
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(endpoint))
    else {
        return format!("Forest plot of {endpoint} hazard ratios by subgroup.");
    };
    // The first row's ratio, as the plot draws it: the Fine–Gray model's with competing
    // events, else the stratified Cox model's when there are strata.
    let (kind, overall) = match &t.fine_gray {
        Some(fg) => ("subdistribution hazard ratios (Fine–Gray)", fg.hr.as_ref()),
        None => (
            "hazard ratios",
            t.stratified.as_ref().map_or(&t.cox, |s| &s.cox).hr.as_ref(),
        ),
    };
    let all = overall.map_or(String::new(), |hr| {
        format!(": all subjects HR {}", ratio(hr, settings))
    });
    format!(
        "Forest plot of {e} {kind} of {} against {} in {} subgroups{all}.",
        c.arm_short(&comparison.arm),
        c.arm_short(&comparison.reference),
        t.subgroups.len()
    )
}

/// `svg` with `role="img"`, its title and its description, for screen readers.
pub fn accessible(svg: &str, title: &str, desc: &str) -> String {
    let Some(open) = svg.find("<svg") else {
        return svg.to_string();
    };
    let Some(end) = svg[open..].find('>').map(|e| open + e) else {
        return svg.to_string();
    };
    let mut out = String::with_capacity(svg.len() + title.len() + desc.len() + 64);
    out.push_str(&svg[..end]);
    out.push_str(" role=\"img\">");
    out.push_str("<title>");
    crate::model::text::escape_xml_into(&mut out, title);
    out.push_str("</title><desc>");
    crate::model::text::escape_xml_into(&mut out, desc);
    out.push_str("</desc>");
    out.push_str(&svg[end + 1..]);
    out
}
