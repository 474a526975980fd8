//! Documents from results: Tera templates (built in, overridable by name from
//! `output.templates`, as zola does) and Markdown → HTML with pulldown-cmark.
//!
//! Templates get the cohort's results, the study and the analysis settings, and filters that
//! keep them short and correct: `pct`, `n_pct`, `ci`, `num`, `time`, `long_date`. Numbers are
//! rounded here and only here; `results.json` holds them unrounded.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use tera::{Context, Tera};

use crate::config::{Analysis, MedianCi, ProportionCi, Study};
use crate::endpoints::CohortResults;
use crate::error::{Error, Result};

/// The built-in templates: (name, source).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    ("abstract.md", include_str!("../templates/abstract.md")),
    ("abstract.html", include_str!("../templates/abstract.html")),
    ("base.css", include_str!("../templates/base.css")),
];

/// Everything a cohort's documents are rendered from.
#[derive(Debug, Serialize)]
pub struct DocumentContext<'a> {
    /// `study:` from the config.
    pub study: &'a Study,
    /// The cohort's results (as in `results.json`).
    pub cohort: &'a CohortResults,
    /// Resolved analysis settings.
    pub analysis: &'a Analysis,
    /// Free texts of the cohort (Markdown, already rendered through Tera).
    pub text: CohortTexts,
    /// The methods sentence on statistics, generated from the settings.
    pub methods_statistics: String,
    /// Inline SVG figures by file stem (`km-pfs`, `waterfall`, ...).
    pub figures: Vec<Figure>,
    /// The most common treatment-related terms (any grade), most frequent first.
    pub top_trae: Vec<TermCount>,
    /// The most common grade ≥3 treatment-related terms.
    pub top_trae_grade3: Vec<TermCount>,
    /// The rendered Markdown body, for HTML wrappers.
    pub body: String,
}

/// A term and its subject count, for sentences.
#[derive(Debug, Clone, Serialize)]
pub struct TermCount {
    /// Preferred term.
    pub term: String,
    /// Subjects.
    pub n: usize,
}

/// The `limit` most frequent terms by `count`, ties by name, leaving out zero counts; all
/// terms tied with the last one kept are kept too, so a sentence never picks arbitrarily.
pub fn top_terms(
    cohort: &CohortResults,
    limit: usize,
    count: impl Fn(&crate::endpoints::TermCounts) -> usize,
) -> Vec<TermCount> {
    let Some(safety) = &cohort.safety else {
        return Vec::new();
    };
    let mut terms: Vec<TermCount> = safety
        .by_term
        .iter()
        .map(|t| TermCount {
            term: t.term.clone(),
            n: count(t),
        })
        .filter(|t| t.n > 0)
        .collect();
    terms.sort_by(|a, b| b.n.cmp(&a.n).then_with(|| a.term.cmp(&b.term)));
    let cut = terms
        .get(limit.saturating_sub(1))
        .map(|last| last.n)
        .unwrap_or(0);
    terms
        .into_iter()
        .enumerate()
        .take_while(|(i, t)| *i < limit || t.n == cut)
        .map(|(_, t)| t)
        .collect()
}

/// The cohort's own texts.
#[derive(Debug, Default, Serialize)]
pub struct CohortTexts {
    /// Title of the abstract.
    pub title: String,
    /// Population in words.
    pub population: String,
    /// Background (Markdown).
    pub background: String,
    /// Eligibility and treatment (Markdown).
    pub methods: String,
    /// Conclusions (Markdown).
    pub conclusions: String,
}

/// A figure for inlining.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// File stem, e.g. `km-pfs`.
    pub name: String,
    /// Caption.
    pub caption: String,
    /// The SVG document (readout's own output; inserted unescaped).
    pub svg: String,
}

/// A Tera instance with the built-in templates, any user overrides, and readout's filters.
pub struct Renderer {
    tera: Tera,
}

impl Renderer {
    /// Loads the built-ins, then `user_dir` templates of the same names override them.
    pub fn new(user_dir: Option<&Path>) -> Result<Renderer> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![".html"]);
        for (name, source) in BUILTIN_TEMPLATES {
            tera.add_raw_template(name, source)
                .map_err(|e| template_error(name, &e))?;
        }
        if let Some(dir) = user_dir {
            for (name, _) in BUILTIN_TEMPLATES {
                let path = dir.join(name);
                if path.is_file() {
                    let source = std::fs::read_to_string(&path)
                        .map_err(|e| Error::io(&path, "cannot read template", e))?;
                    tera.add_raw_template(name, &source)
                        .map_err(|e| template_error(&path.display().to_string(), &e))?;
                }
            }
        }
        Ok(Renderer { tera })
    }

    /// Renders one template for one cohort. Decimals come from the cohort's settings.
    pub fn render(&self, name: &str, ctx: &DocumentContext<'_>) -> Result<String> {
        let tera = self.with_filters(ctx.analysis);
        let context = Context::from_serialize(ctx).map_err(|e| template_error(name, &e))?;
        tera.render(name, &context)
            .map_err(|e| template_error(name, &e))
    }

    /// Renders a snippet of config text (background, conclusions) with the same filters.
    pub fn render_text(
        &self,
        what: &str,
        text: &str,
        study: &Study,
        cohort: &CohortResults,
        analysis: &Analysis,
    ) -> Result<String> {
        let mut tera = self.with_filters(analysis);
        let mut context = Context::new();
        context.insert("study", study);
        context.insert("cohort", cohort);
        context.insert("analysis", analysis);
        tera.render_str(text, &context)
            .map_err(|e| template_error(what, &e))
    }

    fn with_filters(&self, analysis: &Analysis) -> Tera {
        let mut tera = self.tera.clone();
        let pd = analysis.percent_decimals;
        let td = analysis.time_decimals;
        let level = (analysis.ci_level * 100.0).round();
        tera.register_filter("pct", move |v: &Value, args: &HashMap<String, Value>| {
            let d = decimals(args, pd);
            Ok(Value::String(match v.as_f64() {
                Some(x) => format!("{}%", fixed(x * 100.0, d)),
                None => "NE".to_string(),
            }))
        });
        tera.register_filter("n_pct", move |v: &Value, args: &HashMap<String, Value>| {
            let d = decimals(args, pd);
            let n = v.get("n").and_then(Value::as_u64).unwrap_or(0);
            let total = v.get("N").and_then(Value::as_u64).unwrap_or(0);
            Ok(Value::String(if total == 0 {
                format!("{n}/{total}")
            } else {
                format!(
                    "{n}/{total} ({}%)",
                    fixed(n as f64 / total as f64 * 100.0, d)
                )
            }))
        });
        tera.register_filter("num", move |v: &Value, args: &HashMap<String, Value>| {
            let d = decimals(args, td);
            Ok(Value::String(match v.as_f64() {
                Some(x) => fixed(x, d),
                None => "NE".to_string(),
            }))
        });
        tera.register_filter("time", move |v: &Value, args: &HashMap<String, Value>| {
            let d = decimals(args, td);
            Ok(Value::String(match v.as_f64() {
                Some(x) => fixed(x, d),
                None => "not reached".to_string(),
            }))
        });
        tera.register_filter("ci", move |v: &Value, args: &HashMap<String, Value>| {
            // Proportions are shown in percent, times as they are.
            let percent = args
                .get("percent")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let d = decimals(args, if percent { pd } else { td });
            let limit = |key: &str| match v.get(key).and_then(Value::as_f64) {
                Some(x) if percent => fixed(x * 100.0, d),
                Some(x) => fixed(x, d),
                None => "NE".to_string(),
            };
            let suffix = if percent { "%" } else { "" };
            Ok(Value::String(format!(
                "{level}% CI: {}{suffix}, {}{suffix}",
                limit("lower"),
                limit("upper")
            )))
        });
        tera.register_filter("pct_of", move |v: &Value, args: &HashMap<String, Value>| {
            let d = decimals(args, pd);
            let total = args.get("total").and_then(Value::as_f64).unwrap_or(0.0);
            Ok(Value::String(match v.as_f64() {
                Some(n) if total > 0.0 => format!("{}%", fixed(n / total * 100.0, d)),
                _ => "NE".to_string(),
            }))
        });
        tera.register_filter("plain", |v: &Value, _: &HashMap<String, Value>| {
            Ok(Value::String(match v.as_f64() {
                Some(x) if x.fract() == 0.0 => format!("{x:.0}"),
                Some(x) => fixed(x, 1),
                None => "NE".to_string(),
            }))
        });
        tera.register_filter("pts", |v: &Value, _: &HashMap<String, Value>| {
            Ok(Value::String(
                if v.as_u64() == Some(1) { "pt" } else { "pts" }.to_string(),
            ))
        });
        tera.register_filter("long_date", |v: &Value, _: &HashMap<String, Value>| {
            let text = v.as_str().unwrap_or("");
            Ok(Value::String(long_date(text)))
        });
        tera.register_filter("markdown", |v: &Value, args: &HashMap<String, Value>| {
            let inline = args.get("inline").and_then(Value::as_bool).unwrap_or(false);
            Ok(Value::String(markdown_to_html(
                v.as_str().unwrap_or(""),
                inline,
            )))
        });
        tera
    }
}

fn decimals(args: &HashMap<String, Value>, default: usize) -> usize {
    args.get("d")
        .and_then(Value::as_u64)
        .map(|d| d.min(10) as usize)
        .unwrap_or(default)
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

/// Markdown → HTML with pulldown-cmark; `inline` drops the wrapping paragraph of a one-line
/// text so it can sit inside a sentence. Raw HTML in the Markdown is escaped, not passed on.
pub fn markdown_to_html(md: &str, inline: bool) -> String {
    use pulldown_cmark::{Event, Parser};
    let parser = Parser::new(md).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, parser);
    let trimmed = html.trim_end();
    if inline {
        if let Some(inner) = trimmed
            .strip_prefix("<p>")
            .and_then(|s| s.strip_suffix("</p>"))
        {
            if !inner.contains("<p>") {
                return inner.to_string();
            }
        }
    }
    trimmed.to_string()
}

/// The statistics sentence of the Methods section, stating the conventions actually used.
pub fn methods_statistics(a: &Analysis) -> String {
    let level = (a.ci_level * 100.0).round();
    let response = if a.confirmed {
        format!(
            "Tumor response was assessed per RECIST 1.1; complete and partial responses required confirmation by a repeat assessment at least {} days later, and stable disease required an assessment at least {} days after treatment start.",
            a.confirmation_days, a.sd_min_days
        )
    } else {
        format!(
            "Tumor response was assessed per RECIST 1.1 (unconfirmed responses); stable disease required an assessment at least {} days after treatment start.",
            a.sd_min_days
        )
    };
    let proportion = match a.proportion_ci {
        ProportionCi::ClopperPearson => "exact Clopper–Pearson",
        ProportionCi::Wilson => "Wilson score",
    };
    let median = match a.median_ci {
        MedianCi::Collett => {
            format!("{level}% CIs of medians as estimate ± z·SE with Collett's standard error")
        }
        other => format!(
            "{level}% CIs of medians by the Brookmeyer–Crowley method with {} transformation",
            other.transform().map(|t| t.name()).unwrap_or("log-log")
        ),
    };
    format!(
        "{response} Time-to-event endpoints were estimated by the Kaplan–Meier method, with {median}; median follow-up was estimated by the reverse Kaplan–Meier method for {}. {level}% CIs of proportions are {proportion}.",
        a.followup
    )
}

fn template_error(name: &str, e: &dyn std::error::Error) -> Error {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    Error::Template {
        template: name.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(fixed(0.125, 2), "0.13");
        assert_eq!(fixed(19.047619, 1), "19.0");
        assert_eq!(fixed(34.2105263, 2), "34.21");
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(2.5, 0), "3");
    }

    #[test]
    fn long_dates_read_like_the_abstracts() {
        assert_eq!(long_date("2022-10-20"), "October 20, 2022");
        assert_eq!(long_date("2020-06-01"), "June 1, 2020");
    }

    #[test]
    fn raw_html_in_markdown_is_escaped() {
        let html = markdown_to_html("a <script>alert(1)</script> b", true);
        assert!(!html.contains("<script>"), "{html}");
    }
}
