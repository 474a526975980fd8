//! The documents of one cohort and the cut-off folder's index: builds the template context
//! from the results and the config texts, renders the templates, measures the abstract against
//! the conference limit, and returns the files (nothing is written here).
//!
//! | file | when | from |
//! |---|---|---|
//! | `abstract.txt` | always | `abstract.txt` (the text the conference limit is counted on) |
//! | `abstract.md` | `md` in formats | `abstract.md` |
//! | `abstract.html`, `report.html` | `html` | `abstract.html` (the Markdown as HTML), `report.html` |
//! | `abstract.docx`, `report.docx` | `docx` | [`docx`] |
//! | `index.html` (cut-off folder) | `html` | `index.html` |

mod archive;
pub mod ard;
pub mod conference;
pub mod docx;
pub mod formats;
pub mod lint;
pub mod listed;
pub mod numbers;
pub mod prose;
pub mod render;
pub mod report;
pub mod shorten;
pub mod slides;
pub mod trace;
pub mod xlsx;

use serde::Serialize;

use crate::config::{Analysis, CohortConfig, LoadedConfig, Study};
use crate::diagnostic::{Diagnostic, Kind};
use crate::error::{Error, Result};
use crate::model::Date;

use crate::files::OutputFile;
use crate::results::{AbstractLength, CohortRecord, CohortResults};
use render::{CohortTexts, DocumentContext, Renderer};

/// What a company gives the documents: `word/styles.xml` of `output.docx_reference` and the
/// slide template of `output.pptx_reference`, read once per study.
#[derive(Debug, Clone, Default)]
pub struct Assets {
    /// The Word reference's styles part.
    pub docx_styles: Option<std::sync::Arc<[u8]>>,
    /// The Word reference's own header and footer parts, when they stand alone.
    pub docx_running: [Option<std::sync::Arc<[u8]>>; 2],
    /// The PowerPoint reference's masters, layouts and theme.
    pub pptx_template: Option<std::sync::Arc<slides::SlideTemplate>>,
    /// The poster's printed size and references (`output.poster`, else the congress's size).
    pub poster: slides::poster::PosterSpec,
}

/// A cohort's documents and the length of its abstract under the conference rule.
#[derive(Debug)]
pub struct CohortDocuments {
    /// The files, paths relative to the cut-off folder.
    pub files: Vec<OutputFile>,
    /// `abstract.txt` measured by `output.conference` (`None` without one).
    pub abstract_length: Option<AbstractLength>,
    /// Warnings of the documents stage (for the cohort's warnings).
    pub warnings: Vec<Diagnostic>,
}

/// The abstract and the report of one cohort in every requested format; the cohort is
/// `cohorts[place]` of results.json (the numbers sheet and `abstract.html` point into it).
#[allow(clippy::too_many_arguments)]
pub fn render_documents(
    cfg: &LoadedConfig,
    (cohort, place): (&CohortConfig, usize),
    results: &CohortResults,
    analysis: &Analysis,
    (figures, notes): (&[render::Figure], &[Diagnostic]),
    renderer: &Renderer,
    assets: &Assets,
    formats: &formats::Formats,
) -> Result<CohortDocuments> {
    start_documents(
        cfg,
        (cohort, place),
        results,
        analysis,
        (figures.to_vec(), notes),
        renderer,
        assets,
        formats,
    )?
    .finish(figures)
}

/// A cohort's documents rendered as far as they go without the figures' PNGs: the abstract,
/// its numbers, and the formats before the first that embeds PNGs (in the registry's order).
pub struct StartedDocuments<'a> {
    docs: formats::CohortDocs<'a>,
    formats: &'a formats::Formats,
    /// The formats written so far.
    written: usize,
    files: Vec<OutputFile>,
    abstract_length: Option<AbstractLength>,
    place: usize,
}

impl StartedDocuments<'_> {
    /// The other formats and the numbers sheet, once the figures are rasterised: `figures` are
    /// the ones [`start_documents`] was given, in the same order, with their PNGs.
    pub fn finish(mut self, figures: &[render::Figure]) -> Result<CohortDocuments> {
        for (kept, drawn) in self.docs.ctx.figures.iter_mut().zip(figures) {
            kept.png.clone_from(&drawn.png);
            kept.wide_png.clone_from(&drawn.wide_png);
        }
        let (files, _) = self
            .formats
            .cohort_files(&mut self.docs, self.written, false)?;
        self.files.extend(files);
        self.files.extend(self.docs.numbers.files(self.place)?);
        Ok(CohortDocuments {
            files: self.files,
            abstract_length: self.abstract_length,
            warnings: self.docs.warnings,
        })
    }
}

/// Where the report's tables come from: the datasets the config gives, and its file's name.
fn provenance(cfg: &LoadedConfig) -> crate::documents::report::Provenance {
    let data = &cfg.config.data;
    let given = [
        ("ADAE", data.adae.is_some()),
        ("ADEX", data.adex.is_some()),
        ("ADRS", data.adrs.is_some()),
        ("ADTR", data.adtr.is_some()),
        ("ADTTE", data.adtte.is_some()),
    ];
    crate::documents::report::Provenance {
        datasets: given
            .into_iter()
            .filter_map(|(name, on)| on.then_some(name))
            .collect(),
        config: cfg
            .path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
    }
}

/// [`render_documents`] up to the formats that embed the figures' PNGs, which
/// [`StartedDocuments::finish`] writes once they are rasterised; the figures are drawn (SVG).
#[allow(clippy::too_many_arguments)]
pub fn start_documents<'a>(
    cfg: &'a LoadedConfig,
    (cohort, place): (&'a CohortConfig, usize),
    results: &'a CohortResults,
    analysis: &'a Analysis,
    (figures, notes): (Vec<render::Figure>, &[Diagnostic]),
    renderer: &'a Renderer,
    assets: &'a Assets,
    formats: &'a formats::Formats,
) -> Result<StartedDocuments<'a>> {
    let study = &cfg.config.study;
    let texts = cohort_texts(cfg, cohort, results, analysis, renderer)?;
    let methods_statistics = render::methods_statistics(analysis, results);
    // The analysis' warnings and the figures' notes: what is known as the documents are made.
    let mut warnings = results.warnings.clone();
    crate::diagnostic::extend_unique(&mut warnings, notes.iter().cloned());
    let report = crate::documents::report::cohort_report(
        study,
        (results, &warnings),
        analysis,
        &methods_statistics,
        (
            &figures.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
            cfg.config.output.numbering,
        ),
        &provenance(cfg),
    );
    let mut ctx = DocumentContext {
        keys: Default::default(),
        traced: Default::default(),
        study,
        cohort: results,
        warnings,
        analysis,
        text: texts,
        methods_statistics,
        ci_percent: render::fmt_plain(analysis.ci_percent()),
        figures,
        top_trae: render::top_terms(results, 2, "trae_any", |t| t.trae_any),
        top_trae_grade3: render::top_terms(results, 1, "trae_grade3plus", |t| {
            t.trae_grade3plus.unwrap_or(0)
        }),
        // Listed by name when there are at most `ae_terms_listed`: one more tells.
        trae_grade3_terms: {
            let mut terms = render::top_terms(results, usize::MAX, "trae_grade3plus", |t| {
                t.trae_grade3plus.unwrap_or(0)
            });
            terms.truncate(analysis.ae_terms_listed.saturating_add(1));
            terms
        },
        categories: render::category_counts(results),
        body: String::new(),
        report,
        arms_compared: render::arms_compared(results),
        sentences: Default::default(),
        show: shorten::Shown::new(results, analysis, &cfg.config.output.abstract_blocks),
        headings: cfg
            .config
            .output
            .conference
            .as_ref()
            .map(|c| c.sections())
            .unwrap_or_default(),
        tera: Default::default(),
    };
    // Unsafe links and raw HTML from the config's texts (or a user template) made text: the
    // Markdown file is read by other tools, which would make them live.
    let render_abstract = |ctx: &DocumentContext<'_>| -> Result<(String, String)> {
        let markdown =
            render::markdown::neutralise(&tidy_text(&renderer.render("abstract.md", ctx)?))
                .into_owned();
        Ok((markdown, tidy_text(&renderer.render("abstract.txt", ctx)?)))
    };
    let rule = cfg.config.output.conference.as_ref().and_then(|c| c.rule());
    // The Methods' statistics in full, or with `show.methods_short` in one sentence when that
    // is shorter (made the first time it is asked for).
    let long_methods = ctx.methods_statistics.clone();
    let short_methods = std::cell::OnceCell::new();
    let methods_for = |show: &shorten::Shown| {
        let short = show
            .methods_short
            .then(|| {
                short_methods.get_or_init(|| render::methods_statistics_short(analysis, results))
            })
            .filter(|short| short.len() < long_methods.len());
        short.unwrap_or(&long_methods).clone()
    };
    ctx.methods_statistics = methods_for(&ctx.show);
    let (mut markdown, mut plain) = render_abstract(&ctx)?;
    let mut abstract_length = rule.as_ref().map(|r| r.measure(&plain));
    // Over the limit: the steps of `shorten::Step::ORDER` in turn, each kept only when it
    // shortens the abstract, until it fits (docs/CONFERENCES.md, "Shortening").
    let mut before = None;
    if let (Some(rule), Some(length)) = (&rule, &mut abstract_length) {
        let include = &cfg.config.output.abstract_blocks.include;
        for step in shorten::Step::ORDER {
            if length.within_limit {
                break;
            }
            let kept = ctx.show.clone();
            if !step.apply(&mut ctx.show, include) {
                continue;
            }
            ctx.methods_statistics = methods_for(&ctx.show);
            let (m, p) = render_abstract(&ctx)?;
            let mut shorter = rule.measure(&p);
            if shorter.count < length.count {
                before.get_or_insert(length.count);
                shorter.left_out = std::mem::take(&mut length.left_out);
                shorter.left_out.push(step.describe().to_string());
                (markdown, plain, *length) = (m, p, shorter);
            } else {
                ctx.show = kept;
            }
        }
        // The text kept is the one its plan renders: the Methods of that plan.
        ctx.methods_statistics = methods_for(&ctx.show);
    }
    // The abstract's counts and percentages read back and checked against each other: a
    // template or config text that prints a wrong pair fails the build; the message lists
    // the first few, each with a bounded excerpt (docs/LINT.md).
    let disagreements = crate::documents::lint::check_proportions(&plain);
    if !disagreements.is_empty() {
        return Err(Error::Analysis {
            cohort: cohort.id.clone(),
            message: format!(
                "abstract.txt disagrees with itself (nothing written for this cohort):\n  {}",
                disagreements.lines().join("\n  ")
            ),
        });
    }
    let mut warnings = length_notes(cfg, rule.as_ref(), before, abstract_length.as_ref());
    warnings.extend(missing_parts(cfg, cohort));
    let mut rows = crate::profile::timing::stage("  numbers sheet", || {
        traced_rows(renderer, &ctx, &plain, &mut warnings)
    })?;
    let disagreements = numbers::disagreements(&rows, &ctx.traced_results().unwrap_or_default());
    if !disagreements.is_empty() {
        return Err(Error::Analysis {
            cohort: cohort.id.clone(),
            message: format!(
                "abstract.txt disagrees with results.json (nothing written for this cohort):\n  {}",
                disagreements.join("\n  ")
            ),
        });
    }
    // What shortening left out, as the sheet's last row: its source is results.json's list.
    let shortened = abstract_length.as_ref().filter(|l| !l.left_out.is_empty());
    if let (Some(rule), Some(length)) = (&rule, shortened) {
        rows.push(numbers::Row {
            section: "Note".into(),
            sentence: 0,
            text: format!("left out to fit the {} limit", rule.name),
            entry: trace::Entry {
                pointer: "/abstract_length/left_out".into(),
                value: serde_json::Value::String(length.left_out.join("; ")),
                denominator: None,
                format: "note",
            },
        });
    }
    let dir = &cohort.id;
    let mut files = vec![OutputFile {
        path: format!("{dir}/abstract.txt"),
        bytes: plain.clone().into_bytes().into(),
    }];
    let mut docs = formats::CohortDocs {
        dir,
        ctx,
        renderer,
        assets,
        markdown,
        plain,
        numbers: numbers::NumbersSheet {
            dir: cohort.id.clone(),
            rows,
            html: None,
        },
        warnings,
    };
    let (written, until) = formats.cohort_files(&mut docs, 0, true)?;
    files.extend(written);
    Ok(StartedDocuments {
        docs,
        formats,
        written: until,
        files,
        abstract_length,
        place,
    })
}

/// The cohort's texts: its title (the config's, else the study's and the label), population,
/// and the config's Background, Methods and Conclusions rendered as templates.
fn cohort_texts(
    cfg: &LoadedConfig,
    cohort: &CohortConfig,
    results: &CohortResults,
    analysis: &Analysis,
    renderer: &Renderer,
) -> Result<CohortTexts> {
    let study = &cfg.config.study;
    let context = std::cell::OnceCell::new();
    let text_of = |what: &str, text: &Option<String>| -> Result<String> {
        match text {
            Some(t) => renderer
                .render_text(
                    &format!("cohorts.{}.{what}", cohort.id),
                    t,
                    context.get_or_init(|| render::TextContext::new(study, results, analysis)),
                    analysis,
                )
                .map(|s| s.trim().to_string()),
            None => Ok(String::new()),
        }
    };
    let label = results.label.clone();
    // Without a cohort title: the study's (Markdown) and the label (text, escaped in the
    // Markdown form, which abstract.md prints and abstract.txt reads as Markdown).
    let cohort_title = match &cohort.title {
        Some(t) => Some(text_of("title", &Some(t.clone()))?),
        None => None,
    };
    let heading = study.title.as_deref().unwrap_or(&study.id);
    // One cohort: the study's title alone (a congress prints no population suffix); several:
    // each abstract named by its cohort.
    let alone = cfg.config.cohorts.len() == 1 && study.title.is_some();
    let suffixed = |label: &str| {
        if alone {
            heading.to_string()
        } else {
            format!("{heading}: {label}")
        }
    };
    Ok(CohortTexts {
        title_markdown: cohort_title
            .clone()
            .unwrap_or_else(|| suffixed(&render::escape_markdown(&label))),
        title: cohort_title.unwrap_or_else(|| suffixed(&label)),
        population: cohort.population.clone().unwrap_or(label),
        background: text_of("background", &cohort.background)?,
        methods: text_of("methods", &cohort.methods)?,
        conclusions: text_of("conclusions", &cohort.conclusions)?,
    })
}

/// Notes on the abstract's length: a named conference without a rule readout can cite, and
/// an abstract shortened to fit (`before`: its count before the first step; `length`: as
/// kept, with what it left out).
fn length_notes(
    cfg: &LoadedConfig,
    rule: Option<&conference::LengthRule>,
    before: Option<usize>,
    length: Option<&AbstractLength>,
) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    if let (Some(crate::config::ConferenceSpec::Named(conference)), None) =
        (&cfg.config.output.conference, rule)
    {
        warnings.push(Diagnostic::note(
            Kind::AbstractLength,
            format!(
                "`{}` has no length limit readout can cite (docs/CONFERENCES.md): \
                 the abstract was not measured; state the call's rule as `output.conference: \
                 {{ limit, counts, title }}`",
                conference.name()
            ),
        ));
    }
    if let (Some(before), Some(rule), Some(length)) = (before, rule, length) {
        warnings.push(Diagnostic::note(
            Kind::AbstractLength,
            format!(
                "the abstract was over the {} limit ({before} {}); to fit it left out: {} \
                 ({} now; the report keeps everything; `output.abstract.include` pins a block)",
                rule.name,
                rule.counts.describe(),
                length.left_out.join("; "),
                length.count,
            ),
        ));
    }
    warnings
}

/// What a congress asks of every abstract and the config does not give, when it names a
/// conference: the trial registry number (ASCO, ESMO and CONSORT for Abstracts require one) and
/// the Background (`build --strict` refuses an abstract without one).
fn missing_parts(cfg: &LoadedConfig, cohort: &CohortConfig) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    if cfg.config.output.conference.is_none() {
        return warnings;
    }
    if cfg.config.study.registry_id.is_none() {
        warnings.push(
            Diagnostic::warning(
                Kind::AbstractContent,
                "the abstract gives no trial registry number: congresses (ASCO, ESMO) and \
                 CONSORT for Abstracts require one",
            )
            .at(crate::diagnostic::Location::Key("study.registry_id".into())),
        );
    }
    if !cohort.has_background() {
        warnings.push(
            Diagnostic::warning(
                Kind::AbstractContent,
                "the abstract has no Background, which every congress's abstract has",
            )
            .at(crate::diagnostic::Location::Key(format!(
                "cohorts.{}.background",
                cohort.id
            ))),
        );
    }
    warnings
}

/// The sentences of each headed paragraph of a plain-text abstract (`Methods: ...`), by heading;
/// a section `headings` renames is keyed by its usual name (`Methods`), as templates ask for it.
pub(crate) fn paragraph_sentences(
    plain: &str,
    headings: &crate::config::SectionNames,
) -> std::collections::BTreeMap<String, Vec<String>> {
    let usual = crate::config::SectionNames::default();
    plain
        .split("\n\n")
        .filter_map(|p| {
            let heading = numbers::heading(p)?;
            let body = p.get(heading.len() + 2..).unwrap_or("");
            let sentences = conference::sentences(body)
                .into_iter()
                .map(str::to_string)
                .collect();
            let key = headings
                .each()
                .into_iter()
                .zip(usual.each())
                .find(|((_, name), _)| *name == heading)
                .map_or(heading, |(_, (_, usual))| usual);
            Some((key.to_string(), sentences))
        })
        .collect()
}

/// Why a traced render gave no sources: it differs from the plain one.
const UNTRACED: &str = "a template uses the output of readout's number filters in a way the \
                        traced render cannot follow (docs/OUTPUTS.md)";

/// The numbers of `abstract.txt` (`plain`) with their sources, from the traced render; none,
/// with a warning, when the traced text is not the plain one.
fn traced_rows(
    renderer: &Renderer,
    ctx: &DocumentContext<'_>,
    plain: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<numbers::Row>> {
    let (marked, entries) = renderer.render_traced("abstract.txt", ctx)?;
    let (text, spans) = trace::split(&tidy_text(&marked));
    if text != plain {
        warnings.push(Diagnostic::warning(
            Kind::Untraced,
            format!("abstract-numbers.csv lists no numbers: {UNTRACED}"),
        ));
        return Ok(Vec::new());
    }
    Ok(numbers::rows(&text, &spans, &entries))
}

/// `abstract.html` with its numbers marked (the Markdown rendered traced) and the entries the
/// marks name; `html` (the plain document) without marks, with a warning, when the traced
/// document is not the plain one.
pub(crate) fn traced_html(
    renderer: &Renderer,
    ctx: &mut DocumentContext<'_>,
    markdown: &str,
    html: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(String, Vec<trace::Entry>)> {
    let (marked, entries) = renderer.render_traced("abstract.md", ctx)?;
    let marked = render::markdown::neutralise(&tidy_text(&marked)).into_owned();
    if trace::strip(&marked) == markdown {
        ctx.body = render::markdown_to_html(&marked, false);
        let document = renderer.finish_html(renderer.render("abstract.html", ctx)?);
        if trace::strip(&document) == html {
            return Ok((document, entries));
        }
    }
    warnings.push(Diagnostic::warning(
        Kind::Untraced,
        format!("abstract.html names no sources: {UNTRACED}"),
    ));
    Ok((html.to_string(), Vec::new()))
}

/// The context of `index.html`.
#[derive(Debug, Serialize)]
pub struct IndexContext<'a> {
    /// `study:` from the config.
    pub study: &'a Study,
    /// The cut-off of the folder.
    pub cutoff: Option<Date>,
    /// The cohorts built, in config order.
    pub cohorts: Vec<IndexCohort<'a>>,
    /// Study-level files: results.json, manifest.json, derived datasets.
    pub files: Vec<Link>,
}

/// One cohort's row in `index.html`.
#[derive(Debug, Serialize)]
pub struct IndexCohort<'a> {
    /// The cohort's `results.json` entry, its term listings as the documents list them
    /// ([`listed`]).
    pub cohort: std::borrow::Cow<'a, CohortRecord>,
    /// Its documents, in a fixed order.
    pub documents: Vec<Link>,
    /// Its figures.
    pub figures: Vec<Link>,
}

/// A link: the text and the relative path.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    /// Link text.
    pub label: String,
    /// Path relative to the cut-off folder.
    pub href: String,
}

/// `index.html` of a cut-off folder: links to every cohort's documents and figures among
/// `paths` (the folder's files so far), plus `results.json` and `manifest.json` (which are
/// written beside it).
pub fn render_index(
    cfg: &LoadedConfig,
    cutoff: Option<Date>,
    cohorts: &[CohortRecord],
    paths: &[String],
    renderer: &Renderer,
) -> Result<OutputFile> {
    const DOCUMENTS: [(&str, &str); 8] = [
        ("abstract.html", "Abstract (HTML)"),
        ("report.html", "Report (HTML)"),
        ("abstract.txt", "Abstract (plain text)"),
        ("abstract.md", "Abstract (Markdown)"),
        ("abstract.docx", "Abstract (Word)"),
        ("report.docx", "Report (Word)"),
        ("slides.pptx", "Slides (PowerPoint)"),
        (
            "abstract-numbers.csv",
            "Abstract numbers and their sources (CSV)",
        ),
    ];
    let has = |path: &str| paths.iter().any(|p| p == path);
    let rows = cohorts
        .iter()
        .map(|c| {
            let documents = DOCUMENTS
                .iter()
                .map(|(file, label)| (format!("{}/{file}", c.results.id), label))
                .filter(|(href, _)| has(href))
                .map(|(href, label)| Link {
                    label: label.to_string(),
                    href,
                })
                .collect();
            let prefix = format!("{}/figures/", c.results.id);
            let mut figures: Vec<Link> = paths
                .iter()
                .filter(|p| p.starts_with(&prefix) && p.ends_with(".svg"))
                .map(|p| Link {
                    label: p
                        .trim_start_matches(&prefix)
                        .trim_end_matches(".svg")
                        .to_string(),
                    href: p.clone(),
                })
                .collect();
            figures.sort_by(|a, b| a.href.cmp(&b.href));
            let cohort = match listed::listed(&c.results).0 {
                std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(c),
                std::borrow::Cow::Owned(results) => std::borrow::Cow::Owned(CohortRecord {
                    results,
                    abstract_length: c.abstract_length.clone(),
                    decimals: c.decimals,
                    diagnostics: c.diagnostics.clone(),
                }),
            };
            IndexCohort {
                cohort,
                documents,
                figures,
            }
        })
        .collect();
    let mut study_files = vec![
        Link {
            label: "results.json (every computed number)".to_string(),
            href: "results.json".to_string(),
        },
        Link {
            label: "manifest.json (versions and SHA-256 of inputs and outputs)".to_string(),
            href: "manifest.json".to_string(),
        },
    ];
    let mut derived: Vec<&String> = paths.iter().filter(|p| p.starts_with("derived/")).collect();
    derived.sort();
    study_files.extend(derived.into_iter().map(|p| Link {
        label: p.clone(),
        href: p.clone(),
    }));
    let context = IndexContext {
        study: &cfg.config.study,
        cutoff,
        cohorts: rows,
        files: study_files,
    };
    let html = renderer.render_with("index.html", &context, &cfg.analysis_for_study())?;
    Ok(OutputFile {
        path: "index.html".to_string(),
        bytes: html_bytes(renderer, html).into(),
    })
}

/// An HTML document's bytes as written ([`Renderer::finish_html`]).
fn html_bytes(renderer: &Renderer, html: String) -> Vec<u8> {
    renderer.finish_html(html).into_bytes()
}

/// Collapses the blank runs templates leave, and ends with one newline.
fn tidy_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
