//! Adapts a cohort's analysis to the figure functions of [`crate::plots`] and names the files
//! (`figures/km-<endpoint>.svg`, `waterfall.svg`, `swimmer.svg`, `spider.svg`, `ae-trae.svg`).
//! A figure without data is skipped with a note, never drawn empty.

use crate::config::{Analysis, Format};
use crate::endpoints::{CohortAnalysis, CohortResults, Estimate};
use crate::error::{Error, Result};
use crate::plots::{self, AeBar, KmPlotOptions, KmPoint, KmSeries, PlotError};
use crate::render::{fixed, Figure};
use crate::stats::KaplanMeier;
use crate::write::OutputFile;

/// A cohort's figures: files to write, SVGs to inline, and notes on figures skipped.
#[derive(Debug, Default)]
pub struct CohortFigures {
    /// `figures/*.svg` (and `*.png` when asked for).
    pub files: Vec<OutputFile>,
    /// The SVGs for the HTML documents.
    pub inline: Vec<Figure>,
    /// Why a figure was not drawn.
    pub notes: Vec<String>,
}

impl CohortFigures {
    fn add(
        &mut self,
        cohort: &str,
        name: &str,
        caption: String,
        drawn: std::result::Result<String, PlotError>,
        png: bool,
    ) -> Result<()> {
        match drawn {
            Ok(svg) => {
                if png {
                    let bytes = plots::svg_to_png(&svg, 2.0).map_err(|e| Error::Analysis {
                        cohort: cohort.to_string(),
                        message: format!("figure {name}: {e}"),
                    })?;
                    self.files.push(OutputFile {
                        path: format!("{cohort}/figures/{name}.png"),
                        bytes,
                    });
                }
                self.files.push(OutputFile {
                    path: format!("{cohort}/figures/{name}.svg"),
                    bytes: svg.clone().into_bytes(),
                });
                self.inline.push(Figure {
                    name: name.to_string(),
                    caption,
                    svg,
                });
                Ok(())
            }
            Err(PlotError::NoData) => {
                self.notes
                    .push(format!("figure {name} skipped: no data to draw"));
                Ok(())
            }
            Err(e) => Err(Error::Analysis {
                cohort: cohort.to_string(),
                message: format!("figure {name}: {e}"),
            }),
        }
    }
}

/// The long name of an endpoint for axis labels.
fn endpoint_title(endpoint: &str) -> String {
    match endpoint {
        "PFS" => "Progression-free survival".to_string(),
        "OS" => "Overall survival".to_string(),
        "DOR" => "Duration of response".to_string(),
        other => other.to_string(),
    }
}

/// "median 8.4 (95% CI 5.5, NE)" for legends.
pub fn median_label(median: &Estimate, level: f64, decimals: usize) -> String {
    let f = |x: Option<f64>| x.map(|v| fixed(v, decimals)).unwrap_or_else(|| "NE".into());
    let level = (level * 100.0).round();
    match median.estimate {
        Some(m) => format!(
            "median {} ({level}% CI {}, {})",
            fixed(m, decimals),
            f(median.lower),
            f(median.upper)
        ),
        None => format!(
            "median not reached ({level}% CI {}, {})",
            f(median.lower),
            f(median.upper)
        ),
    }
}

/// One KM curve in the analysis time unit, with its pointwise band.
pub fn km_series(
    fit: &KaplanMeier,
    label: &str,
    median: &Estimate,
    settings: &Analysis,
) -> std::result::Result<KmSeries, crate::stats::StatsError> {
    let unit = settings.time_unit.days();
    let band = fit.band(settings.ci_level, settings.km_ci)?;
    let points = fit
        .steps()
        .iter()
        .zip(band)
        .map(|(s, b)| KmPoint {
            time: s.time / unit,
            surv: s.surv,
            lower: b.lower,
            upper: b.upper,
            n_risk: s.n_risk,
            n_event: s.n_event,
            n_censor: s.n_censor,
        })
        .collect();
    Ok(KmSeries {
        label: label.to_string(),
        points,
        n: fit.n(),
        median: median.estimate,
        median_label: median_label(median, settings.ci_level, settings.time_decimals),
    })
}

/// Draws every figure of a cohort.
pub fn cohort_figures(
    analysis: &CohortAnalysis,
    settings: &Analysis,
    formats: &[Format],
) -> Result<CohortFigures> {
    let results: &CohortResults = &analysis.results;
    let cohort = results.id.as_str();
    let png = formats.contains(&Format::Png);
    let unit = settings.time_unit.name();
    let unit_title = {
        let mut c = unit.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    let mut figs = CohortFigures::default();
    for (endpoint, fit) in &analysis.km {
        let Some(summary) = results.tte.get(endpoint) else {
            continue;
        };
        let series = km_series(fit, &results.label, &summary.median, settings).map_err(|e| {
            Error::Analysis {
                cohort: cohort.to_string(),
                message: format!("KM figure for {endpoint}: {e}"),
            }
        })?;
        let title = endpoint_title(endpoint);
        let opts = KmPlotOptions {
            title: format!("{title}: {}", results.label),
            y_label: format!("{title} (probability)"),
            time_unit: unit_title.clone(),
            show_ci: true,
            tick_step: None,
            x_max: None,
        };
        figs.add(
            cohort,
            &format!("km-{}", endpoint.to_ascii_lowercase()),
            format!(
                "Kaplan–Meier estimate of {} with pointwise {}% CI ({}); number at risk below the axis.",
                title.to_lowercase(),
                (settings.ci_level * 100.0).round(),
                settings.km_ci.name()
            ),
            plots::km_plot(&[series], &opts),
            png,
        )?;
    }

    let bars: Vec<plots::WaterfallBar> = analysis
        .tumour
        .iter()
        .filter_map(|t| {
            let best = t.pchg.iter().map(|p| p.1).reduce(f64::min)?;
            Some(plots::WaterfallBar {
                usubjid: t.usubjid.clone(),
                best_pchg: best,
                response: t.response.clone(),
            })
        })
        .collect();
    figs.add(
        cohort,
        "waterfall",
        "Best percentage change from baseline in the sum of target-lesion diameters, by confirmed best overall response; dashed lines at +20% and −30%.".to_string(),
        plots::waterfall(&bars),
        png,
    )?;
    let lines: Vec<plots::SpiderLine> = analysis
        .tumour
        .iter()
        .filter(|t| !t.pchg.is_empty())
        .map(|t| plots::SpiderLine {
            usubjid: t.usubjid.clone(),
            points: t.pchg.clone(),
            response: t.response.clone(),
        })
        .collect();
    figs.add(
        cohort,
        "spider",
        "Percentage change from baseline in the sum of target-lesion diameters over time."
            .to_string(),
        plots::spider(&lines, &unit_title),
        png,
    )?;
    let lanes: Vec<plots::SwimLane> = analysis
        .tumour
        .iter()
        .map(|t| plots::SwimLane {
            usubjid: t.usubjid.clone(),
            end: t.end.max(0.0),
            ongoing: t.ongoing,
            response: t.response.clone(),
            first_response: t.first_response,
            progression: t.progression,
            death: t.death,
        })
        .collect();
    figs.add(
        cohort,
        "swimmer",
        "Time on treatment per subject, with first response, progression and death; arrows mark treatment ongoing at the cut-off.".to_string(),
        plots::swimmer(&lanes, &unit_title),
        png,
    )?;
    if let Some(safety) = &results.safety {
        let terms: Vec<AeBar> = safety
            .by_term
            .iter()
            .filter(|t| t.trae_any > 0)
            .take(settings.ae_top_n)
            .map(|t| AeBar {
                term: t.term.clone(),
                any_grade: t.trae_any,
                grade3plus: t.trae_grade3plus,
            })
            .collect();
        let drawn = if safety.total == 0 {
            Err(PlotError::NoData)
        } else {
            plots::ae_bars(&terms, safety.total, "Treatment-related adverse events")
        };
        figs.add(
            cohort,
            "ae-trae",
            format!(
                "The {} most frequent treatment-related adverse events: subjects with any grade and with grade ≥3, % of the safety population (N = {}).",
                terms.len(),
                safety.total
            ),
            drawn,
            png,
        )?;
    }
    Ok(figs)
}
