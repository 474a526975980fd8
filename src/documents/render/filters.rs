//! The templates' filters (`pct`, `n_pct`, `count_pct`, `ci`, `time`, `num`, `plain`,
//! `p_value`, `long_date`, `markdown`, `md_text`, `spell`, `baseline_phrase`, ...): numbers are
//! rounded here and only here (docs/CONFIG.md).

use std::collections::HashMap;

use serde_json::Value;
use tera::Tera;

use crate::config::Analysis;
use crate::documents::trace;
use crate::format::{
    fixed, fmt_count_pct_with, fmt_limits, fmt_n_pct_with, fmt_pct, fmt_plain, long_date, Part,
};
use crate::results::BaselineSummary;

use super::convert::*;

/// What readout's filters take from the analysis settings: the one source of both the filters
/// and the key under which a renderer keeps an instance with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct FilterSettings {
    percent_decimals: usize,
    time_decimals: usize,
    /// The confidence level in tenths of a percent (950 for 95%), hashable.
    ci_tenths: u64,
}

impl FilterSettings {
    pub(super) fn of(analysis: &Analysis) -> FilterSettings {
        FilterSettings {
            percent_decimals: analysis.percent_decimals,
            time_decimals: analysis.time_decimals,
            ci_tenths: (analysis.ci_percent() * 10.0).round() as u64,
        }
    }
}

/// Registers readout's filters. Decimals default to the cohort's `percent_decimals` and
/// `time_decimals`; every filter that takes decimals accepts `d=N` to override them.
///
/// | filter | input | output |
/// |---|---|---|
/// | `pct` | a rate 0–1 | `34.2%`; `NE` when null |
/// | `n_pct` | `{n, N}` (a proportion or a level) | `13/38 (34.2%)`; `13/0` when N = 0 |
/// | `count_pct(total=N)` | a count | `13 (34.2%)`; `13` when N = 0 |
/// | `pct_of(total=N)` | a count | `34.2%`; `NE` when N = 0 |
/// | `ci` | `{lower, upper}` | `95% CI: 19.6, 51.4`; `percent=true` for rates in %, `bare=true` drops `95% CI: `; a null limit is `NE` |
/// | `time` | a time in the analysis unit | `8.4`; `not reached` when null (`missing="NR"` to change) |
/// | `num` | a number | `8.4`; `NE` when null (`missing=` to change) |
/// | `plain` | a number | `61` for whole numbers, else one decimal; `NE` when null |
/// | `pts` | a count | `pt` for 1, else `pts` |
/// | `long_date` | `2022-10-20` | `October 20, 2022` |
/// | `markdown` | Markdown | HTML (`inline=true` drops the wrapping paragraph); raw HTML escaped |
/// | `md_text` | Markdown | plain text without markup |
pub fn register_filters(tera: &mut Tera, analysis: &Analysis) {
    register_filters_with(tera, FilterSettings::of(analysis));
}

pub(super) fn register_filters_with(tera: &mut Tera, settings: FilterSettings) {
    register_numbers(tera, &settings);
    register_words(tera, settings.percent_decimals);
    register_traced(tera);
}

/// The filters of rates, counts, times and intervals, each number marked when traced.
fn register_numbers(tera: &mut Tera, settings: &FilterSettings) {
    let pd = settings.percent_decimals;
    let td = settings.time_decimals;
    let level = fmt_plain(settings.ci_tenths as f64 / 10.0);
    tera.register_filter("pct", move |v: &Value, args: &HashMap<String, Value>| {
        let text = fmt_pct(v.as_f64(), decimals(args, pd));
        Ok(Value::String(trace::mark_value(text, v, "pct")))
    });
    tera.register_filter("n_pct", move |v: &Value, args: &HashMap<String, Value>| {
        let n = v.get("n").and_then(Value::as_u64).unwrap_or(0);
        let total = v.get("N").and_then(Value::as_u64).unwrap_or(0);
        // Traced, n, N and the percentage each marked with its source.
        let base = trace::pointer_of(v);
        let mark = |part: Part, text: String| match part {
            Part::Count => trace::mark_at(text, base.as_deref(), "/n", || n.into(), "count"),
            Part::Total => trace::mark_at(text, base.as_deref(), "/N", || total.into(), "count"),
            Part::Percent => trace::mark(text, || {
                let base = base.clone()?;
                Some(trace::Entry {
                    pointer: format!("{base}/n"),
                    value: serde_json::Number::from_f64(n as f64 / total as f64)
                        .map_or(Value::Null, Value::Number),
                    denominator: Some(format!("{base}/N")),
                    format: "n_pct",
                })
            }),
        };
        Ok(Value::String(fmt_n_pct_with(
            n,
            total,
            decimals(args, pd),
            mark,
        )))
    });
    tera.register_filter(
        "count_pct",
        move |v: &Value, args: &HashMap<String, Value>| {
            let n = v.as_u64().unwrap_or(0);
            let total = args.get("total").and_then(Value::as_u64).unwrap_or(0);
            let mark = |part: Part, text: String| match part {
                Part::Percent => trace::mark_share(text, v, total as f64, "count_pct"),
                _ => trace::mark_value(text, v, "count"),
            };
            let text = fmt_count_pct_with(n, total, decimals(args, pd), mark);
            Ok(Value::String(text))
        },
    );
    tera.register_filter("num", move |v: &Value, args: &HashMap<String, Value>| {
        let text = match v.as_f64() {
            Some(x) => fixed(x, decimals(args, td)),
            None => missing(args, "NE"),
        };
        Ok(Value::String(trace::mark_value(text, v, "num")))
    });
    tera.register_filter("time", move |v: &Value, args: &HashMap<String, Value>| {
        let text = match v.as_f64() {
            Some(x) => fixed(x, decimals(args, td)),
            None => missing(args, "not reached"),
        };
        Ok(Value::String(trace::mark_value(text, v, "time")))
    });
    tera.register_filter("ci", move |v: &Value, args: &HashMap<String, Value>| {
        // Proportions are shown in percent, times as they are.
        let percent = flag(args, "percent");
        let d = decimals(args, if percent { pd } else { td });
        let lower = v.get("lower").and_then(Value::as_f64);
        let upper = v.get("upper").and_then(Value::as_f64);
        let limits = if trace::active() {
            // Each limit marked with its own pointer (the same text as `fmt_limits`).
            let base = trace::pointer_of(v);
            let limit = |x: Option<f64>, key: &str| {
                let text = crate::format::fmt_limit(x, d, percent);
                let value = || {
                    v.get(key.trim_start_matches('/'))
                        .cloned()
                        .unwrap_or_default()
                };
                trace::mark_at(text, base.as_deref(), key, value, "ci")
            };
            format!("{}, {}", limit(lower, "/lower"), limit(upper, "/upper"))
        } else {
            fmt_limits(lower, upper, d, percent)
        };
        Ok(Value::String(if flag(args, "bare") {
            limits
        } else {
            format!("{level}% CI: {limits}")
        }))
    });
    tera.register_filter("pct_of", move |v: &Value, args: &HashMap<String, Value>| {
        let total = args.get("total").and_then(Value::as_f64).unwrap_or(0.0);
        let d = decimals(args, pd);
        let counts = (v.as_u64(), args.get("total").and_then(Value::as_u64));
        let text = match (counts, v.as_f64()) {
            ((Some(n), Some(total)), _) if total > 0 => {
                format!("{}%", crate::format::percent_of(n, total, d))
            }
            (_, Some(n)) if total > 0.0 => fmt_pct(Some(n / total), d),
            _ => "NE".to_string(),
        };
        Ok(Value::String(if total > 0.0 {
            trace::mark_share(text, v, total, "pct_of")
        } else {
            text
        }))
    });
}

/// The filters of tests, p-values and words around the numbers; `pd`: percent decimals.
fn register_words(tera: &mut Tera, pd: usize) {
    tera.register_filter("test_name", |v: &Value, _: &HashMap<String, Value>| {
        let test: crate::results::TestUsed = serde_json::from_value(v.clone()).map_err(|e| {
            tera::Error::msg(format!(
                "test_name: expected `chisq`, `fisher` or `cmh` ({e})"
            ))
        })?;
        Ok(Value::String(test.short_name().to_string()))
    });
    tera.register_filter("p_value", |v: &Value, _: &HashMap<String, Value>| {
        let text = crate::format::fmt_p(v.as_f64());
        Ok(Value::String(trace::mark_value(text, v, "p_value")))
    });
    tera.register_filter("plain", |v: &Value, _: &HashMap<String, Value>| {
        let text = match v.as_f64() {
            Some(x) => fmt_plain(x),
            None => "NE".to_string(),
        };
        Ok(Value::String(trace::mark_value(text, v, "plain")))
    });
    tera.register_filter(
        "baseline_phrase",
        move |v: &Value, args: &HashMap<String, Value>| {
            let item: BaselineSummary = serde_json::from_value(v.clone()).map_err(|e| {
                tera::Error::msg(format!(
                    "baseline_phrase: expected a baseline item of results.json ({e})"
                ))
            })?;
            let compact = args
                .get("compact")
                .and_then(Value::as_u64)
                .map_or(COMPACT_LEVELS, |n| n as usize);
            // `d`: the sentence's decimals (`baseline_decimals`), else the study's.
            let d = args
                .get("d")
                .and_then(Value::as_u64)
                .map_or(pd, |d| (d as usize).min(pd));
            Ok(Value::String(crate::documents::prose::baseline_phrase_at(
                &item,
                compact,
                d,
                trace::pointer_of(v).as_deref(),
            )))
        },
    );
    tera.register_filter(
        "baseline_decimals",
        move |v: &Value, _: &HashMap<String, Value>| {
            let items: Vec<BaselineSummary> = serde_json::from_value(v.clone()).map_err(|e| {
                tera::Error::msg(format!(
                    "baseline_decimals: expected the baseline items of results.json ({e})"
                ))
            })?;
            Ok(Value::from(crate::documents::prose::baseline_decimals(
                &items, pd,
            )))
        },
    );
    tera.register_filter("spell", |v: &Value, args: &HashMap<String, Value>| {
        let Some(n) = v.as_u64() else {
            return Ok(v.clone());
        };
        let mark = |text: String| trace::mark_value(text, v, "spell");
        Ok(Value::String(if flag(args, "capital") {
            crate::documents::prose::sentence_start_with(n, mark)
        } else {
            mark(crate::documents::prose::spell(n))
        }))
    });
    tera.register_filter("plural", |v: &Value, args: &HashMap<String, Value>| {
        let one = args.get("one").and_then(Value::as_str).unwrap_or("");
        let many = args
            .get("many")
            .and_then(Value::as_str)
            .map_or_else(|| format!("{one}s"), str::to_string);
        Ok(Value::String(if v.as_f64() == Some(1.0) {
            one.to_string()
        } else {
            many
        }))
    });
    tera.register_filter("counted_terms", |v: &Value, _: &HashMap<String, Value>| {
        let terms: Vec<(String, usize, &Value)> = v
            .as_array()
            .map(|terms| {
                terms
                    .iter()
                    .filter_map(|t| {
                        let term = t.get("term")?.as_str()?.to_string();
                        let count = t.get("n")?;
                        let n = usize::try_from(count.as_u64()?).ok()?;
                        Some((term, n, count))
                    })
                    .collect()
            })
            .unwrap_or_default();
        // A count shared by several terms is marked with the first term's source.
        let mark = |n: usize| {
            let first = terms.iter().find(|t| t.1 == n).map(|t| t.2);
            match first {
                Some(count) => trace::mark_value(n.to_string(), count, "count"),
                None => n.to_string(),
            }
        };
        let plain: Vec<(String, usize)> = terms.iter().map(|(t, n, _)| (t.clone(), *n)).collect();
        Ok(Value::String(crate::documents::prose::counted_terms_with(
            &plain, mark,
        )))
    });
    tera.register_filter("sentence", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(crate::documents::prose::sentence_case(
            v.as_str().unwrap_or(""),
        )))
    });
    tera.register_filter("pts", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(
            if v.as_u64() == Some(1) { "pt" } else { "pts" }.to_string(),
        ))
    });
    tera.register_filter("long_date", |v: &Value, _: &HashMap<String, Value>| {
        let text = v.as_str().unwrap_or("");
        Ok(Value::String(trace::mark_value(long_date(text), v, "date")))
    });
    tera.register_filter("markdown", |v: &Value, args: &HashMap<String, Value>| {
        Ok(Value::String(markdown_to_html(
            v.as_str().unwrap_or(""),
            flag(args, "inline"),
        )))
    });
}

/// The traced render's filters: an unfiltered number, Tera's `as_str`, and plain text of
/// Markdown.
fn register_traced(tera: &mut Tera) {
    // A number printed without a filter (`{{ c.n.enrolled }}`): the traced render's templates
    // end every such expression with `__traced` (sandbox::secure_traced).
    tera.register_filter(TRACED, |v: &Value, _: &HashMap<String, Value>| {
        Ok(match v {
            Value::Number(n) if trace::active() => {
                Value::String(trace::mark_value(number_text(n), v, "count"))
            }
            other => other.clone(),
        })
    });
    // `as_str` as Tera's, a number marked when traced (numbers joined with `~` go through it).
    let as_str = tera.filters.get("as_str").cloned();
    if let Some(inner) = as_str {
        tera.register_filter(
            "as_str",
            move |v: &Value, args: &HashMap<String, Value>| match v {
                Value::Number(n) if trace::active() => {
                    Ok(Value::String(trace::mark_value(number_text(n), v, "count")))
                }
                _ => inner.filter(v, args),
            },
        );
    }
    tera.register_filter("md_text", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(markdown_to_text(v.as_str().unwrap_or(""))))
    });
}

/// The filter the traced render ends every unfiltered `{{ … }}` with.
pub const TRACED: &str = "__traced";

/// A number as Tera prints it.
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        n.as_f64().map(|f| f.to_string()).unwrap_or_default()
    }
}

/// Categorical characteristics with at most this many levels read "male/female: 65%/35%".
const COMPACT_LEVELS: usize = 3;

fn decimals(args: &HashMap<String, Value>, default: usize) -> usize {
    args.get("d")
        .and_then(Value::as_u64)
        .map(|d| d.min(10) as usize)
        .unwrap_or(default)
}

fn flag(args: &HashMap<String, Value>, name: &str) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn missing(args: &HashMap<String, Value>, default: &str) -> String {
    args.get("missing")
        .and_then(Value::as_str)
        .unwrap_or(default)
        .to_string()
}
