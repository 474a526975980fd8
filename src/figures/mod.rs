//! Adapts a cohort's analysis to the figure functions of [`crate::plots`] and names the files
//! (`figures/km-<endpoint>.svg`, `waterfall.svg`, `swimmer.svg`, `spider.svg`, `ae-trae.svg`).
//! A figure without data is skipped with a note, never drawn empty.

pub mod alt;

use crate::config::{Analysis, OutputConfig};
use crate::diagnostic::{Diagnostic, Kind};
use crate::endpoints::CohortAnalysis;
use crate::error::{Error, Result};
use crate::files::OutputFile;
use crate::format::fixed;
use crate::plots::{self, AeBar, KmPlotOptions, KmPoint, KmSeries, PlotError};
use crate::results::{CohortResults, Estimate, TteComparison};
use crate::stats::Ci;
use crate::stats::KaplanMeier;
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// A figure for inlining.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// File stem, e.g. `km-pfs`.
    pub name: String,
    /// Caption.
    pub caption: String,
    /// The SVG document (readout's own output; inserted unescaped).
    pub svg: String,
    /// What the figure shows, in words, with its key numbers: the SVG's `<desc>` and the alt
    /// text of its pictures in Word and slides.
    pub alt: String,
    /// The figure drawn in landscape for a slide (Kaplan–Meier: the legend beside a wider
    /// plot), when a format asks for it; a slide shows it rather than `svg`.
    pub wide_svg: Option<String>,
    /// `wide_svg` rasterised at [`crate::plots::PNG_SCALE`], when a document embeds it.
    #[serde(skip)]
    pub wide_png: Option<Png>,
    /// The figure rasterised at [`crate::plots::PNG_SCALE`], when the build made its PNG (the
    /// Word report takes it rather than rasterising the figure again).
    #[serde(skip)]
    pub png: Option<Png>,
}

/// A figure's PNG bytes, shared by its file and the documents that embed it.
pub type Png = std::sync::Arc<Vec<u8>>;

/// A cohort's figures: files to write, SVGs to inline, and notes on figures skipped.
#[derive(Debug, Default)]
pub struct CohortFigures {
    /// `figures/*.svg` (and `*.png` when asked for).
    pub files: Vec<OutputFile>,
    /// The SVGs for the HTML documents.
    pub inline: Vec<Figure>,
    /// Why a figure was not drawn.
    pub notes: Vec<crate::diagnostic::Diagnostic>,
    /// Figures (by name, in `inline`) whose PNG files are asked for.
    png_pending: Vec<String>,
}

/// Which drawing of a figure is rasterised.
#[derive(Debug, Clone, Copy)]
enum Drawing {
    /// The figure; `file` when its PNG file is asked for.
    Figure {
        file: bool,
    },
    Landscape,
}

impl CohortFigures {
    /// `other`'s figures after these.
    fn append(&mut self, other: CohortFigures) {
        self.files.extend(other.files);
        self.inline.extend(other.inline);
        self.notes.extend(other.notes);
        self.png_pending.extend(other.png_pending);
    }

    /// Rasterises, in parallel (rasterising dominates the cost of a small build): the figures
    /// whose PNG files are asked for, and with `pngs.kept` every other figure that a document
    /// embeds (its landscape drawing when it has one, else the figure), so no document
    /// rasterises one after another in its own stage. The files are added in figure order.
    pub fn rasterise(&mut self, cohort: &str, pngs: PngUse) -> Result<()> {
        use rayon::prelude::*;
        let pending = std::mem::take(&mut self.png_pending);
        let mut jobs: Vec<(usize, Drawing)> = Vec::new();
        for (i, figure) in self.inline.iter().enumerate() {
            let file = pending.contains(&figure.name);
            let wide = pngs.kept && figure.wide_svg.is_some();
            if file || (pngs.kept && !wide) {
                jobs.push((i, Drawing::Figure { file }));
            }
            if wide {
                jobs.push((i, Drawing::Landscape));
            }
        }
        // One figure a task: the pool's split stops halving once a worker is busy elsewhere,
        // which left a cohort's last figures to one worker while the other waited.
        let rendered: Vec<Result<Vec<u8>>> = jobs
            .par_iter()
            .with_max_len(1)
            .map(|&(i, drawing)| {
                let figure = &self.inline[i];
                let (svg, what) = match drawing {
                    Drawing::Figure { .. } => (&figure.svg, format!("{}.png", figure.name)),
                    Drawing::Landscape => (
                        figure.wide_svg.as_ref().unwrap_or(&figure.svg),
                        format!("{}.png in landscape", figure.name),
                    ),
                };
                plots::figure_png(svg).map_err(|source| Error::Figure {
                    cohort: Some(cohort.to_string()),
                    figure: what,
                    source,
                })
            })
            .collect();
        for (&(i, drawing), result) in jobs.iter().zip(rendered) {
            let bytes = Png::new(result?);
            let figure = &mut self.inline[i];
            match drawing {
                Drawing::Landscape => figure.wide_png = Some(bytes),
                Drawing::Figure { file } => {
                    if pngs.kept {
                        figure.png = Some(bytes.clone());
                    }
                    if file {
                        self.files.push(OutputFile {
                            path: format!("{cohort}/figures/{}.png", figure.name),
                            bytes: bytes.into(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

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
                    self.png_pending.push(name.to_string());
                }
                self.files.push(OutputFile {
                    path: format!("{cohort}/figures/{name}.svg"),
                    bytes: svg.clone().into_bytes().into(),
                });
                self.inline.push(Figure {
                    name: name.to_string(),
                    caption,
                    svg,
                    alt: String::new(),
                    wide_svg: None,
                    wide_png: None,
                    png: None,
                });
                Ok(())
            }
            Err(PlotError::NoData) => {
                self.notes.push(Diagnostic::note(
                    Kind::FigureLeftOut,
                    format!("figure {name} skipped: no data to draw"),
                ));
                Ok(())
            }
            Err(source) => Err(Error::Figure {
                cohort: Some(cohort.to_string()),
                figure: name.to_string(),
                source,
            }),
        }
    }
}

/// The endpoint in words with a capital (`tte_params` label): "Progression-free survival".
fn endpoint_title(endpoint: &str, settings: &Analysis) -> String {
    let label = settings
        .tte_labels
        .get(endpoint)
        .map_or(endpoint, String::as_str);
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A KM figure's y-axis title, short enough for one line: "Probability of PFS" (the
/// `tte_params` key).
fn km_y_label(endpoint: &str) -> String {
    format!("Probability of {endpoint}")
}

/// A figure's title when `output.figure_titles` asks for titles, else none (journals set the
/// title in the figure legend).
fn figure_title(output: &OutputConfig, title: String) -> String {
    if output.figure_titles {
        title
    } else {
        String::new()
    }
}

/// "median 8.4 (95% CI 5.5, NE)" for legends.
pub fn median_label(median: &Estimate, level: f64, decimals: usize) -> String {
    let f = |x: Option<f64>| x.map(|v| fixed(v, decimals)).unwrap_or_else(|| "NE".into());
    let level = crate::config::ci_percent(level);
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

/// The cumulative incidence of an endpoint with competing events (Aalen–Johansen), by arm
/// when the cohort has arms, with the Fine–Gray HR and Gray's p under the legend:
/// `cif-<endpoint>`, in place of its Kaplan–Meier figure.
fn incidence_figure(
    analysis: &CohortAnalysis,
    arms: &ArmData<'_>,
    endpoint: &str,
    settings: &Analysis,
    (output, unit_title): (&crate::config::OutputConfig, &str),
    (figs, pngs): (&mut CohortFigures, PngUse),
) -> Result<()> {
    let results = &analysis.results;
    let cohort = results.id.as_str();
    let unit = settings.time_unit.days();
    let (png, wide_wanted) = (pngs.files, pngs.wide);
    // Each curve with its pointwise band and KMunicate's table (Morris et al. 2019), the
    // competing events in a row of their own (docs/OUTPUTS.md).
    let series_of = |data: &crate::endpoints::CompetingData,
                     label: &str,
                     summary: Option<&crate::results::TteResults>| {
        let fit = &data.fit;
        let band = fit
            .band(settings.ci_level)
            .map_err(|source| Error::Statistics {
                cohort: cohort.to_string(),
                what: format!("cumulative incidence band of {endpoint}"),
                source,
            })?;
        let points = fit
            .steps()
            .iter()
            .zip(band)
            .map(|(s, (lower, upper))| KmPoint {
                time: s.time / unit,
                surv: s.estimate,
                lower,
                upper,
                n_risk: s.n_risk,
                n_event: s.events,
                n_censor: s.censored,
            })
            .collect();
        let table = summary.map(cif_table_of).unwrap_or_default();
        Ok::<_, Error>(KmSeries {
            label: label.to_string(),
            points: thin_steps(points),
            n: fit.n(),
            median: None,
            median_label: String::new(),
            table,
        })
    };
    let mut series = Vec::new();
    for (arm, by) in arms.competing {
        if let Some(data) = by.get(endpoint) {
            let summary = results
                .arms
                .iter()
                .find(|a| &a.arm == arm)
                .and_then(|a| a.results.tte.get(endpoint));
            series.push(series_of(data, results.arm_short(arm), summary)?);
        }
    }
    let arms_drawn = !series.is_empty();
    if !arms_drawn {
        if let Some(data) = analysis.competing.get(endpoint) {
            series.push(series_of(data, &results.label, results.tte.get(endpoint))?);
        }
    }
    let note: Vec<String> = results
        .comparisons
        .iter()
        .filter_map(|c| {
            let t = c.tte.get(endpoint)?;
            let mut lines = Vec::new();
            if let Some(hr) = t.fine_gray.as_ref().and_then(|f| f.hr.as_ref()) {
                lines.push(format!("Fine–Gray HR {}", alt::ratio(hr, settings)));
            }
            if let Some(g) = &t.gray {
                lines.push(format!("Gray's test {}", crate::format::fmt_p(Some(g.p))));
            }
            Some(lines)
        })
        .flatten()
        .collect();
    let title = endpoint_title(endpoint, settings);
    let opts = KmPlotOptions {
        title: figure_title(output, format!("{title}: {}", results.label)),
        y_label: "Cumulative incidence".to_string(),
        time_unit: unit_title.to_string(),
        show_ci: true,
        tick_step: None,
        x_max: None,
        note,
        wide: false,
        kmunicate: true,
        incidence: true,
    };
    let caption = format!(
        "Cumulative incidence of {}{} (Aalen–Johansen) with pointwise {}% CIs, other events competing{}; numbers at risk, censored, with the event and with a competing event so far below the axis (KMunicate).",
        title.to_lowercase(),
        if arms_drawn { " by arm" } else { "" },
        settings.ci_percent(),
        if arms_drawn {
            "; subdistribution hazard ratio from a Fine–Gray model, Gray's test p"
        } else {
            ""
        }
    );
    let drawn = plots::km_plot(&series, &opts);
    let name = format!("cif-{}", endpoint.to_ascii_lowercase());
    let wide = wide_drawing(&series, &opts, drawn.is_ok() && wide_wanted, cohort, &name)?;
    figs.add(cohort, &name, caption, drawn, png)?;
    if let Some(figure) = figs.inline.last_mut().filter(|_| wide.is_some()) {
        figure.wide_svg = wide;
    }
    Ok(())
}

/// The landscape drawing of a Kaplan–Meier or incidence figure for slides, when `wanted`: no
/// title (the slide's own names it), the legend beside the plot.
fn wide_drawing(
    series: &[KmSeries],
    opts: &KmPlotOptions,
    wanted: bool,
    cohort: &str,
    name: &str,
) -> Result<Option<String>> {
    if !wanted {
        return Ok(None);
    }
    let wide = KmPlotOptions {
        wide: true,
        title: String::new(),
        ..opts.clone()
    };
    plots::km_plot(series, &wide)
        .map(Some)
        .map_err(|source| Error::Figure {
            cohort: Some(cohort.to_string()),
            figure: format!("{name} for slides"),
            source,
        })
}

/// What the table under a KM plot gives, for its caption.
fn table_words(settings: &Analysis) -> &'static str {
    match settings.km_table {
        crate::config::KmTable::AtRisk => "number at risk",
        crate::config::KmTable::Kmunicate => {
            "numbers at risk, censored and with an event so far (KMunicate)"
        }
    }
}

/// An endpoint's cumulative-incidence risk table as the plot prints it (KMunicate's rows with
/// the competing events); empty without one.
fn cif_table_of(tte: &crate::results::TteResults) -> Vec<plots::KmTableRow> {
    tte.cif
        .iter()
        .flat_map(|c| &c.risk_table)
        .map(|r| plots::KmTableRow {
            time: r.time,
            at_risk: r.at_risk,
            events: r.events,
            censored: r.censored,
            competing: Some(r.competing),
        })
        .collect()
}

/// An endpoint's risk table as the KM plot prints it.
fn table_of(tte: &crate::results::TteResults) -> Vec<plots::KmTableRow> {
    tte.risk_table
        .iter()
        .map(|r| plots::KmTableRow {
            time: r.time,
            at_risk: r.at_risk,
            events: r.events,
            censored: r.censored,
            competing: None,
        })
        .collect()
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
        points: thin_steps(points),
        n: fit.n(),
        median: median.estimate,
        median_label: median_label(median, settings.ci_level, settings.time_decimals),
        table: Vec::new(),
    })
}

/// Under a KM figure by arm, per comparison: "HR 0.57 (95% CI 0.41–0.80)" and "stratified
/// log-rank p < 0.001" (the stratified model when the cohort has strata), after a line naming
/// the arms ("B vs A:") when there is more than one comparison.
fn comparison_notes(results: &CohortResults, endpoint: &str, settings: &Analysis) -> Vec<String> {
    let several = results.comparisons.len() > 1;
    results
        .comparisons
        .iter()
        .filter_map(|c| {
            let t = c.tte.get(endpoint)?;
            let (cox, logrank, stratified, hr_name) = match &t.stratified {
                Some(s) => (&s.cox, &s.logrank, "Stratified log-rank", "Stratified HR"),
                None => (&t.cox, &t.logrank, "Log-rank", "HR"),
            };
            let hr = match &cox.hr {
                Some(h) => format!("{hr_name} {}", alt::ratio(h, settings)),
                None => format!("{hr_name} not estimable"),
            };
            let arms = several.then(|| {
                format!(
                    "{} vs {}:",
                    results.arm_short(&c.arm),
                    results.arm_short(&c.reference)
                )
            });
            let p = format!("{stratified} {}", crate::format::fmt_p(logrank.p));
            Some(arms.into_iter().chain([hr, p]))
        })
        .flatten()
        .collect()
}

/// A forest plot's rows: all subjects first (with the HR the abstract reports: stratified
/// when the cohort has strata), then each subgroup level under its column's label, the first
/// level carrying the column's interaction p for its heading.
///
/// With competing events (`t.fine_gray`), the subdistribution HRs of the Fine–Gray models
/// (unstratified) and no interaction p: the test is of the cause-specific Cox models.
fn forest_rows(results: &CohortResults, t: &TteComparison) -> Vec<plots::ForestRow> {
    let ratio = |r: Option<&Ci>| r.map(|h| (h.estimate, h.lower, h.upper));
    let overall = match &t.fine_gray {
        Some(fg) => fg.hr.as_ref(),
        None => t.stratified.as_ref().map_or(&t.cox, |s| &s.cox).hr.as_ref(),
    };
    let mut rows = vec![plots::ForestRow {
        label: "All subjects".to_string(),
        group: None,
        n: t.n,
        n_reference: t.n_reference,
        events: t.events,
        events_reference: t.events_reference,
        hr: ratio(overall),
        group_note: None,
    }];
    let mut previous: Option<&str> = None;
    for s in &t.subgroups {
        let group = results.column_label(&s.column);
        let group_note =
            (t.fine_gray.is_none() && previous != Some(s.column.as_str())).then(|| {
                let p = t
                    .interactions
                    .iter()
                    .find(|i| i.column == s.column)
                    .and_then(|i| i.p);
                format!("Interaction {}", crate::format::fmt_p(p))
            });
        previous = Some(&s.column);
        rows.push(plots::ForestRow {
            label: s.shown_level(),
            group: Some(group.to_string()),
            n: s.n,
            n_reference: s.n_reference,
            events: s.events,
            events_reference: s.events_reference,
            hr: match &s.fine_gray {
                Some(fg) => ratio(fg.hr.as_ref()),
                None => ratio(s.hr.as_ref()),
            },
            group_note,
        });
    }
    rows
}

/// The adverse-event bars of each arm with a safety population, for the terms chosen on the
/// whole cohort (`terms`): each arm's own counts of those terms (0 for a term it has not had),
/// its percentages over its own N. Empty for a cohort without arms.
fn ae_arms(results: &CohortResults, terms: &[AeBar]) -> Vec<plots::AeArm> {
    results
        .arms
        .iter()
        .filter_map(|a| {
            let safety = a.results.safety.as_ref().filter(|s| s.total > 0)?;
            let counts = terms
                .iter()
                .map(|t| {
                    let found = safety.by_term.iter().find(|c| c.term == t.term);
                    AeBar {
                        term: t.term.clone(),
                        any_grade: found.map_or(0, |c| c.trae_any),
                        grade3plus: match found {
                            Some(c) => c.trae_grade3plus,
                            None => safety.trae.grade3plus.map(|_| 0),
                        },
                    }
                })
                .collect();
            Some(plots::AeArm {
                arm: results.arm_short(&a.arm).to_string(),
                n_subjects: safety.total,
                terms: counts,
            })
        })
        .collect()
}

/// A swimmer plot has one lane per subject; past this many it is not readable.
const MAX_SWIMMER_LANES: usize = 500;

/// Curves with more steps than this are thinned before drawing.
const MAX_DRAWN_STEPS: usize = 2000;

/// Merges the steps of a long curve into buckets of width 2^-k time units (about 1,000 of
/// them), so a figure of 10^6 subjects stays small. Bucket edges are binary fractions, so every
/// tick of the axis (whole numbers, halves, quarters) is an edge: the first step at or after a
/// tick is kept, and the number at risk read at a tick is exact. A bucket keeps its first
/// step's time and number at risk, its last step's survival and limits, and the sums of its
/// events and censorings. Shorter curves are returned as they are.
pub fn thin_steps(points: Vec<KmPoint>) -> Vec<KmPoint> {
    if points.len() <= MAX_DRAWN_STEPS {
        return points;
    }
    let span = points.iter().map(|p| p.time).fold(0.0_f64, f64::max);
    if span.is_nan() || span <= 0.0 {
        return points;
    }
    let mut width = 1.0_f64;
    while span / width < 1000.0 {
        width /= 2.0;
    }
    while span / width > 2000.0 {
        width *= 2.0;
    }
    let mut out: Vec<KmPoint> = Vec::with_capacity(2100);
    let mut current: Option<(i64, KmPoint)> = None;
    for p in points {
        let bucket = (p.time / width).floor() as i64;
        match &mut current {
            Some((b, merged)) if *b == bucket => {
                merged.surv = p.surv;
                merged.lower = p.lower;
                merged.upper = p.upper;
                merged.n_event += p.n_event;
                merged.n_censor += p.n_censor;
            }
            _ => {
                if let Some((_, done)) = current.take() {
                    out.push(done);
                }
                current = Some((bucket, p));
            }
        }
    }
    if let Some((_, done)) = current {
        out.push(done);
    }
    out
}

/// Most cohorts drawn in one study-level Kaplan–Meier figure: each has a curve and a row of
/// the number-at-risk table (1,000 cohorts made a figure 47,000 pixels tall, too large for a
/// PNG, and no reader can tell 1,000 curves apart).
pub const MAX_STUDY_KM_COHORTS: usize = 20;

/// Study-level Kaplan–Meier figures: for each endpoint that two or more cohorts of a cut-off
/// have, in the same time unit, one plot with every cohort and a shared number-at-risk table
/// (`figures/km-<endpoint>.svg` in the cut-off folder). Above [`MAX_STUDY_KM_COHORTS`]
/// cohorts the figure is skipped, with a note (for the cut-off's `results.json` warnings).
/// `(png, titles)`: a PNG beside each SVG; a title drawn (`output.figure_titles`).
pub fn study_km_figures(
    curves: &[(String, crate::config::TimeUnit, KmSeries)],
    (png, titles): (bool, bool),
    study: &Analysis,
) -> Result<(Vec<OutputFile>, Vec<Diagnostic>)> {
    let mut endpoints: Vec<&str> = curves.iter().map(|c| c.0.as_str()).collect();
    endpoints.sort_unstable();
    endpoints.dedup();
    let mut files = Vec::new();
    let mut notes = Vec::new();
    for endpoint in endpoints {
        let of_endpoint: Vec<&(String, crate::config::TimeUnit, KmSeries)> =
            curves.iter().filter(|c| c.0 == endpoint).collect();
        let Some(first) = of_endpoint.first() else {
            continue;
        };
        if of_endpoint.len() < 2 || of_endpoint.iter().any(|c| c.1 != first.1) {
            continue;
        }
        if of_endpoint.len() > MAX_STUDY_KM_COHORTS {
            notes.push(Diagnostic::note(
                Kind::FigureLeftOut,
                format!(
                    "figure figures/km-{} skipped: {} cohorts; the all-cohort Kaplan–Meier figure is drawn for at most {MAX_STUDY_KM_COHORTS} (each cohort's own figure is drawn)",
                    endpoint.to_ascii_lowercase(),
                    of_endpoint.len()
                ),
            ));
            continue;
        }
        let series: Vec<KmSeries> = of_endpoint.iter().map(|c| c.2.clone()).collect();
        let title = endpoint_title(endpoint, study);
        let unit = first.1.name();
        let opts = KmPlotOptions {
            title: if titles {
                format!("{title}: all cohorts")
            } else {
                String::new()
            },
            y_label: km_y_label(endpoint),
            time_unit: unit
                .chars()
                .next()
                .map(|c| c.to_uppercase().collect::<String>() + unit.get(1..).unwrap_or(""))
                .unwrap_or_default(),
            show_ci: false,
            tick_step: None,
            x_max: None,
            note: Vec::new(),
            wide: false,
            kmunicate: false,
            incidence: false,
        };
        let name = format!("km-{}", endpoint.to_ascii_lowercase());
        // Described for screen readers: each cohort with its median.
        let desc = format!(
            "Kaplan–Meier curves of {} in {} cohorts: {}.",
            title.to_lowercase(),
            series.len(),
            series
                .iter()
                .map(|s| {
                    // A label as long as a paragraph is cut, as the legend cuts it.
                    let label: String = if s.label.chars().count() > 80 {
                        s.label.chars().take(79).chain(['…']).collect()
                    } else {
                        s.label.clone()
                    };
                    format!("{label}, {}", s.median_label)
                })
                .collect::<Vec<_>>()
                .join("; ")
        );
        match plots::km_plot(&series, &opts) {
            Ok(svg) => {
                let svg = alt::accessible(&svg, &format!("{title}: all cohorts"), &desc);
                if png {
                    let bytes = plots::figure_png(&svg).map_err(|source| Error::Figure {
                        cohort: None,
                        figure: format!("figures/{name}.png"),
                        source,
                    })?;
                    files.push(OutputFile {
                        path: format!("figures/{name}.png"),
                        bytes: bytes.into(),
                    });
                }
                files.push(OutputFile {
                    path: format!("figures/{name}.svg"),
                    bytes: svg.into_bytes().into(),
                });
            }
            Err(PlotError::NoData) => {}
            Err(source) => {
                return Err(Error::Figure {
                    cohort: None,
                    figure: format!("figures/{name}.svg"),
                    source,
                })
            }
        }
    }
    Ok((files, notes))
}

/// What the figures of a cohort with arms need besides its analysis; the default is a cohort
/// without arms.
#[derive(Default)]
pub struct ArmData<'a> {
    /// Each arm's Kaplan–Meier fits per endpoint, in the arms' order.
    pub km: &'a [(String, IndexMap<String, KaplanMeier>)],
    /// Each arm's times and statuses of the endpoints with competing events.
    pub competing: &'a crate::endpoints::beyond::ArmCompeting,
    /// Each subject's arm, by `USUBJID` (a subject without a value of the arms column is in
    /// no arm).
    pub subject_arm: FxHashMap<&'a str, &'a str>,
}

impl ArmData<'_> {
    /// The items of `arm`'s subjects, in order.
    fn of_arm<T: Clone>(&self, items: &[T], arm: &str, subject: impl Fn(&T) -> &str) -> Vec<T> {
        items
            .iter()
            .filter(|item| self.subject_arm.get(subject(item)) == Some(&arm))
            .cloned()
            .collect()
    }
}

/// What the output formats want of the figures as PNG.
#[derive(Debug, Clone, Copy, Default)]
pub struct PngUse {
    /// PNG copies written beside the SVGs.
    pub files: bool,
    /// The PNG bytes kept for documents that embed them (Word, decks).
    pub kept: bool,
    /// Figures drawn also in landscape, for slides ([`Figure::wide_svg`]).
    pub wide: bool,
}

/// Draws every figure of a cohort; `output` says whether figures carry titles, `pngs` what the
/// formats want of them as PNG.
pub fn cohort_figures(
    analysis: &CohortAnalysis,
    arms: &ArmData<'_>,
    settings: &Analysis,
    output: &OutputConfig,
    pngs: PngUse,
) -> Result<CohortFigures> {
    let mut figs = cohort_drawings(analysis, arms, settings, output, pngs)?;
    figs.rasterise(&analysis.results.id, pngs)?;
    Ok(figs)
}

/// [`cohort_figures`] before any figure is rasterised: every SVG drawn and described, the
/// PNGs left to [`CohortFigures::rasterise`] (documents that do not embed them can be
/// rendered meanwhile).
pub fn cohort_drawings(
    analysis: &CohortAnalysis,
    arms: &ArmData<'_>,
    settings: &Analysis,
    output: &OutputConfig,
    pngs: PngUse,
) -> Result<CohortFigures> {
    let results: &CohortResults = &analysis.results;
    let cohort = results.id.as_str();
    let png = pngs.files;
    let unit = settings.time_unit.name();
    let unit_title = {
        let mut c = unit.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    // Each figure described from the results it shows, in its SVG (inline and file) too.
    let described = |mut figs: CohortFigures| {
        for fig in &mut figs.inline {
            fig.alt = alt::alt_text(&fig.name, results, settings);
            fig.svg = alt::accessible(&fig.svg, &fig.caption, &fig.alt);
            if let Some(wide) = &fig.wide_svg {
                fig.wide_svg = Some(alt::accessible(wide, &fig.caption, &fig.alt));
            }
            let path = format!("{cohort}/figures/{}.svg", fig.name);
            if let Some(file) = figs.files.iter_mut().find(|f| f.path == path) {
                file.bytes = fig.svg.clone().into_bytes().into();
            }
        }
        figs
    };
    // The Kaplan–Meier figures and the others drawn at once (the last cohort of a build draws
    // while the other core would wait), then put in the order a serial drawing gives.
    let (km, others) = rayon::join(
        || {
            let mut figs = CohortFigures::default();
            km_figures(
                analysis,
                arms,
                settings,
                output,
                pngs,
                &unit_title,
                &mut figs,
            )
            .map(|()| described(figs))
        },
        || {
            let mut figs = CohortFigures::default();
            forest_figures(results, settings, &mut figs, png)?;
            ae_dot_figures(results, settings, &mut figs, png)?;
            tumour_figures(analysis, arms, &unit_title, &mut figs, png)?;
            ae_bar_figure(results, settings, output, &mut figs, png)?;
            Ok(described(figs))
        },
    );
    let mut figs = km?;
    figs.append(others?);
    Ok(figs)
}

/// The Kaplan–Meier figure of each endpoint (by arm with arms; in landscape too when a format
/// asks), or its cumulative-incidence figure when it has competing events.
fn km_figures(
    analysis: &CohortAnalysis,
    arms: &ArmData<'_>,
    settings: &Analysis,
    output: &OutputConfig,
    pngs: PngUse,
    unit_title: &str,
    figs: &mut CohortFigures,
) -> Result<()> {
    let results: &CohortResults = &analysis.results;
    let cohort = results.id.as_str();
    let png = pngs.files;
    for (endpoint, fit) in &analysis.km {
        let Some(summary) = results.tte.get(endpoint) else {
            continue;
        };
        if summary.cif.is_some() {
            incidence_figure(
                analysis,
                arms,
                endpoint,
                settings,
                (output, unit_title),
                (figs, pngs),
            )?;
            continue;
        }
        let statistics = |source| Error::Statistics {
            cohort: cohort.to_string(),
            what: format!("KM figure for {endpoint}"),
            source,
        };
        // A cohort with arms: one curve per arm, the comparisons under the legend.
        let mut series = Vec::new();
        for (arm, fits) in arms.km {
            let arm_summary = results
                .arms
                .iter()
                .find(|a| &a.arm == arm)
                .and_then(|a| a.results.tte.get(endpoint));
            if let (Some(fit), Some(arm_summary)) = (fits.get(endpoint), arm_summary) {
                let name = results.arm_short(arm);
                series.push(KmSeries {
                    table: table_of(arm_summary),
                    ..km_series(fit, name, &arm_summary.median, settings).map_err(statistics)?
                });
            }
        }
        let arms_drawn = !series.is_empty();
        if !arms_drawn {
            series.push(KmSeries {
                table: table_of(summary),
                ..km_series(fit, &results.label, &summary.median, settings).map_err(statistics)?
            });
        }
        let note = if arms_drawn {
            comparison_notes(results, endpoint, settings)
        } else {
            Vec::new()
        };
        let title = endpoint_title(endpoint, settings);
        let opts = KmPlotOptions {
            title: figure_title(output, format!("{title}: {}", results.label)),
            y_label: km_y_label(endpoint),
            time_unit: unit_title.to_string(),
            // Each arm's band too, as KMunicate (Morris et al. 2019) recommends.
            show_ci: true,
            tick_step: None,
            x_max: None,
            note,
            wide: false,
            kmunicate: settings.km_table == crate::config::KmTable::Kmunicate,
            incidence: false,
        };
        let caption = if arms_drawn {
            format!(
                "Kaplan–Meier estimates of {} by arm with pointwise {}% CIs ({}); hazard ratio from a Cox model, log-rank p; {} below the axis.",
                title.to_lowercase(),
                settings.ci_percent(),
                settings.km_ci.name(),
                table_words(settings)
            )
        } else {
            format!(
                "Kaplan–Meier estimate of {} with pointwise {}% CI ({}); {} below the axis.",
                title.to_lowercase(),
                settings.ci_percent(),
                settings.km_ci.name(),
                table_words(settings)
            )
        };
        let drawn = plots::km_plot(&series, &opts);
        let name = format!("km-{}", endpoint.to_ascii_lowercase());
        let wide = wide_drawing(&series, &opts, pngs.wide && drawn.is_ok(), cohort, &name)?;
        figs.add(cohort, &name, caption, drawn, png)?;
        if let Some(figure) = figs.inline.last_mut().filter(|_| wide.is_some()) {
            figure.wide_svg = wide;
        }
    }

    Ok(())
}

/// A cohort with arms and subgroups: a forest plot per comparison and endpoint.
fn forest_figures(
    results: &CohortResults,
    settings: &Analysis,
    figs: &mut CohortFigures,
    png: bool,
) -> Result<()> {
    let cohort = results.id.as_str();
    let several = results.comparisons.len() > 1;
    for (i, c) in results.comparisons.iter().enumerate() {
        for (endpoint, t) in &c.tte {
            if t.subgroups.is_empty() {
                continue;
            }
            let title = endpoint_title(endpoint, settings);
            let name = if several {
                format!("forest-{}-{}", endpoint.to_ascii_lowercase(), i + 1)
            } else {
                format!("forest-{}", endpoint.to_ascii_lowercase())
            };
            let stratified = t.stratified.is_some();
            let what = format!(
                "{} for {} vs {} by subgroup",
                title.to_lowercase(),
                results.arm_short(&c.arm),
                results.arm_short(&c.reference)
            );
            let level = settings.ci_percent();
            let caption = if t.fine_gray.is_some() {
                format!(
                    "Subdistribution hazard ratios of {what} (Fine–Gray model, other events competing, {level}% CI); the first row is all subjects. Events are events of interest; interaction is not tested for subdistribution hazards."
                )
            } else {
                format!(
                    "Hazard ratios of {what} (Cox model, {level}% CI); the first row is all subjects{}. Interaction p: likelihood-ratio test of arm \u{d7} subgroup{}.",
                    if stratified { ", stratified" } else { "" },
                    if stratified { ", within strata" } else { "" }
                )
            };
            figs.add(
                cohort,
                &name,
                caption,
                plots::forest_of(
                    if t.fine_gray.is_some() {
                        plots::Ratio::Subdistribution
                    } else {
                        plots::Ratio::Hazard
                    },
                    &forest_rows(results, t),
                    results.arm_short(&c.arm),
                    results.arm_short(&c.reference),
                    &format!("{}", settings.ci_percent()),
                    None,
                ),
                png,
            )?;
        }
    }

    Ok(())
}

/// A cohort with arms and ADAE: the adverse-event dot plot per comparison (the most frequent
/// terms, `ae_top_n`).
fn ae_dot_figures(
    results: &CohortResults,
    settings: &Analysis,
    figs: &mut CohortFigures,
    png: bool,
) -> Result<()> {
    let cohort = results.id.as_str();
    let several = results.comparisons.len() > 1;
    for (i, c) in results.comparisons.iter().enumerate() {
        let Some(s) = &c.safety else { continue };
        let rows: Vec<plots::AeDotRow> = s
            .rows
            .iter()
            .filter(|r| r.kind == crate::results::AeRiskKind::Term)
            .take(settings.ae_top_n)
            .map(|r| plots::AeDotRow {
                term: r.term.clone().unwrap_or_default(),
                pct: 100.0 * r.n as f64 / s.total.max(1) as f64,
                pct_reference: 100.0 * r.n_reference as f64 / s.total_reference.max(1) as f64,
                difference: (
                    100.0 * r.difference.estimate,
                    100.0 * r.difference.lower,
                    100.0 * r.difference.upper,
                ),
            })
            .collect();
        if rows.is_empty() || settings.ae_top_n == 0 {
            continue;
        }
        let name = if several {
            format!("ae-dot-{}", i + 1)
        } else {
            "ae-dot".to_string()
        };
        let caption = format!(
            "Treatment-emergent adverse events of {} vs {}: the {} most frequent terms, percentage of each arm's safety population with the term, and the risk difference ({}% CI, {}).",
            results.arm_short(&c.arm),
            results.arm_short(&c.reference),
            rows.len(),
            settings.ci_percent(),
            match s.method {
                crate::results::DifferenceMethod::Newcombe => "Newcombe",
                method => method.interval_name(),
            }
        );
        figs.add(
            cohort,
            &name,
            caption,
            plots::ae_dot(
                &rows,
                results.arm_short(&c.arm),
                results.arm_short(&c.reference),
                &format!("{}", settings.ci_percent()),
            ),
            png,
        )?;
    }

    Ok(())
}

/// The waterfall and spider plots (with ADTR) and the swimmer plot (with ADRS), by arm with
/// arms. Figures of data the study does not have are not attempted, and need no note; a note
/// says when the data exist but hold nothing to draw.
fn tumour_figures(
    analysis: &CohortAnalysis,
    arms: &ArmData<'_>,
    unit_title: &str,
    figs: &mut CohortFigures,
    png: bool,
) -> Result<()> {
    let results: &CohortResults = &analysis.results;
    let cohort = results.id.as_str();
    if analysis.has_adtr {
        let bars: Vec<plots::WaterfallBar> = analysis
            .tumour
            .iter()
            .filter_map(|t| {
                let best = t.pchg.iter().map(|p| p.1).reduce(f64::min)?;
                Some(plots::WaterfallBar {
                    usubjid: t.usubjid.to_string(),
                    best_pchg: best,
                    response: t.response.clone(),
                })
            })
            .collect();
        // A cohort with arms: a panel per arm (a trial's readers compare the arms' shares of
        // shrinking tumours, which bars of all arms interleaved would hide).
        let (drawn, caption) = if results.arms.is_empty() {
            (
                plots::waterfall(&bars),
                "Best percentage change from baseline in the sum of target-lesion diameters, by confirmed best overall response; dashed lines at +20% and −30%.",
            )
        } else {
            let by_arm: Vec<plots::WaterfallArm> = results
                .arms
                .iter()
                .map(|a| plots::WaterfallArm {
                    arm: results.arm_short(&a.arm).to_string(),
                    bars: arms.of_arm(&bars, &a.arm, |b| &b.usubjid),
                })
                .collect();
            (
                plots::waterfall_by_arm(&by_arm),
                "Best percentage change from baseline in the sum of target-lesion diameters, one panel per arm, by confirmed best overall response; dashed lines at +20% and −30%.",
            )
        };
        figs.add(cohort, "waterfall", caption.to_string(), drawn, png)?;
        let lines: Vec<plots::SpiderLine> = analysis
            .tumour
            .iter()
            .filter(|t| !t.pchg.is_empty())
            .map(|t| plots::SpiderLine {
                usubjid: t.usubjid.to_string(),
                points: t.pchg.clone(),
                response: t.response.clone(),
            })
            .collect();
        figs.add(
            cohort,
            "spider",
            "Percentage change from baseline in the sum of target-lesion diameters over time."
                .to_string(),
            plots::spider(&lines, unit_title),
            png,
        )?;
    }
    if analysis.derived.is_empty() && analysis.tumour.is_empty() {
        // No ADRS: no timeline to draw.
    } else if analysis.tumour.len() > MAX_SWIMMER_LANES {
        figs.notes.push(Diagnostic::note(
            Kind::FigureLeftOut,
            format!(
                "figure swimmer skipped: {} subjects; a swimmer plot is drawn for at most {MAX_SWIMMER_LANES}",
                analysis.tumour.len()
            ),
        ));
    } else {
        let lanes: Vec<plots::SwimLane> = analysis
            .tumour
            .iter()
            .map(|t| plots::SwimLane {
                usubjid: t.usubjid.to_string(),
                end: t.end.max(0.0),
                ongoing: t.ongoing,
                response: t.response.clone(),
                first_response: t.first_response,
                progression: t.progression,
                death: t.death,
            })
            .collect();
        // A cohort with arms: the arms one under the other, never pooled.
        let (drawn, by_arm) = if results.arms.is_empty() {
            (plots::swimmer(&lanes, unit_title), "")
        } else {
            let by_arm: Vec<plots::SwimArm> = results
                .arms
                .iter()
                .map(|a| plots::SwimArm {
                    arm: results.arm_short(&a.arm).to_string(),
                    lanes: arms.of_arm(&lanes, &a.arm, |l| &l.usubjid),
                })
                .collect();
            (
                plots::swimmer_by_arm(&by_arm, unit_title),
                ", one group per arm",
            )
        };
        figs.add(
            cohort,
            "swimmer",
            format!("Time on treatment per subject{by_arm}, with first response, progression and death; arrows mark treatment ongoing at the cut-off."),
            drawn,
            png,
        )?;
    }
    Ok(())
}

/// The bars of the most frequent treatment-related adverse events (by arm with arms).
fn ae_bar_figure(
    results: &CohortResults,
    settings: &Analysis,
    output: &OutputConfig,
    figs: &mut CohortFigures,
    png: bool,
) -> Result<()> {
    let cohort = results.id.as_str();
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
        let title = figure_title(output, "Treatment-related adverse events".to_string());
        let labels = (safety.grading.any(), safety.grading.severe());
        let severe = match safety.grading {
            crate::results::AeGrading::Ctcae => "with grade ≥3",
            crate::results::AeGrading::Severity => "with severe events",
        };
        let by_arm = ae_arms(results, &terms);
        let (drawn, caption) = if !by_arm.is_empty() {
            (
                plots::ae_bars_by_arm(&by_arm, &title, labels),
                format!(
                    "The {} most frequent treatment-related adverse events of the cohort, by arm: subjects with {} (bar, first number) and {} (darker part, number in brackets), % of each arm's safety population.",
                    terms.len(),
                    safety.grading.any().to_lowercase(),
                    severe,
                ),
            )
        } else {
            let drawn = if safety.total == 0 {
                Err(PlotError::NoData)
            } else {
                plots::ae_bars_labelled(&terms, safety.total, &title, labels)
            };
            (
                drawn,
                format!(
                    "The {} most frequent treatment-related adverse events: subjects with {} and {}, % of the safety population (N = {}).",
                    terms.len(),
                    safety.grading.any().to_lowercase(),
                    severe,
                    safety.total
                ),
            )
        };
        figs.add(cohort, "ae-trae", caption, drawn, png)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study() -> Analysis {
        crate::config::AnalysisConfig::default().resolve(&Default::default())
    }

    fn point(time: f64, n_risk: usize) -> KmPoint {
        KmPoint {
            time,
            surv: n_risk as f64 / 10_000.0,
            lower: None,
            upper: None,
            n_risk,
            n_event: 1,
            n_censor: 0,
        }
    }

    /// The all-cohort figure is drawn for up to MAX_STUDY_KM_COHORTS cohorts (as SVG and
    /// PNG), and skipped with a note above: 1,000 cohorts made a PNG too large to encode.
    #[test]
    fn the_all_cohort_km_figure_is_skipped_with_a_note_above_its_cohort_limit() {
        let curves = |n: usize| -> Vec<(String, crate::config::TimeUnit, KmSeries)> {
            (0..n)
                .map(|c| {
                    let points = (0..20).map(|i| point(i as f64 + 0.5, 100 - i)).collect();
                    let series = KmSeries {
                        label: format!("cohort {c}"),
                        points,
                        n: 100,
                        median: None,
                        median_label: String::new(),
                        table: Vec::new(),
                    };
                    (
                        crate::model::endpoint::OS.to_string(),
                        crate::config::TimeUnit::Months,
                        series,
                    )
                })
                .collect()
        };
        let (files, notes) =
            study_km_figures(&curves(MAX_STUDY_KM_COHORTS), (true, true), &study()).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["figures/km-os.png", "figures/km-os.svg"]);
        assert!(notes.is_empty());
        let (files, notes) = study_km_figures(&curves(1000), (true, true), &study()).unwrap();
        assert!(files.is_empty());
        assert_eq!(
            notes.iter().map(|n| n.message.clone()).collect::<Vec<_>>(),
            [format!("figure figures/km-os skipped: 1000 cohorts; the all-cohort Kaplan–Meier figure is drawn for at most {MAX_STUDY_KM_COHORTS} (each cohort's own figure is drawn)")]
        );
    }

    #[test]
    fn thinning_keeps_the_number_at_risk_exact_at_ticks() {
        // 10,000 distinct times over 60 months: one subject leaves at each.
        let points: Vec<KmPoint> = (0..10_000)
            .map(|i| point(0.003 + i as f64 * 0.006, 10_000 - i))
            .collect();
        let series = |points: Vec<KmPoint>| KmSeries {
            label: "x".into(),
            points,
            n: 10_000,
            median: None,
            median_label: String::new(),
            table: Vec::new(),
        };
        let full = series(points.clone());
        let thin = series(thin_steps(points));
        assert!(
            thin.points.len() <= MAX_DRAWN_STEPS,
            "{}",
            thin.points.len()
        );
        for tick in [0.0, 0.5, 1.0, 3.0, 6.0, 12.0, 24.0, 36.0, 48.0, 59.75] {
            assert_eq!(
                plots::number_at_risk(&thin, tick),
                plots::number_at_risk(&full, tick),
                "at {tick}"
            );
        }
        let events: usize = thin.points.iter().map(|p| p.n_event).sum();
        assert_eq!(events, 10_000);
        assert_eq!(
            thin.points.last().map(|p| p.surv),
            full.points.last().map(|p| p.surv)
        );
    }
}
