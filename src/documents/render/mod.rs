//! Documents from results: Tera templates (built in, overridable by name from
//! `output.templates`, as zola does) and Markdown → HTML with pulldown-cmark.
//!
//! Templates get the cohort's results, the study and the analysis settings, and filters that
//! keep them short and correct (`pct`, `n_pct`, `count_pct`, `ci`, `time`, `num`, `plain`,
//! `long_date`, `markdown`, `md_text`; see [`register_filters`]). Numbers are rounded here and
//! only here; `results.json` holds them unrounded. `.html` templates are autoescaped; the
//! others are text. A template error names the template (and the user file that replaced it),
//! the line, and for syntax errors the column.
//!
//! This module renders strings; [`crate::documents`] decides which files to make.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use tera::{Context, Tera};

pub mod html;
pub mod markdown;
pub mod sandbox;

use crate::config::{Analysis, MedianCi, ProportionCi, Study};

use crate::error::{Error, Result};
pub use crate::figures::Figure;
pub use crate::format::{
    fixed, fmt_count_pct, fmt_limits, fmt_n_pct, fmt_pct, fmt_plain, long_date,
};
use crate::results::{BaselineSummary, CohortResults, TestUsed};

/// The built-in templates: (name, source). A file of the same name in `output.templates`
/// replaces one; the `abstract-*.txt` parts hold the abstract's sentences shared by
/// `abstract.md` and `abstract.txt`.
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    (
        "abstract-methods.txt",
        include_str!("../../../templates/abstract-methods.txt"),
    ),
    (
        "abstract-results.txt",
        include_str!("../../../templates/abstract-results.txt"),
    ),
    (
        "abstract-results-arms.txt",
        include_str!("../../../templates/abstract-results-arms.txt"),
    ),
    (
        "abstract.md",
        include_str!("../../../templates/abstract.md"),
    ),
    (
        "abstract.txt",
        include_str!("../../../templates/abstract.txt"),
    ),
    (
        "abstract.html",
        include_str!("../../../templates/abstract.html"),
    ),
    (
        "report.html",
        include_str!("../../../templates/report.html"),
    ),
    ("index.html", include_str!("../../../templates/index.html")),
    ("base.css", include_str!("../../../templates/base.css")),
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
    /// The confidence level in percent, for table headers ("95").
    pub ci_percent: String,
    /// Inline SVG figures by file stem (`km-pfs`, `waterfall`, ...).
    pub figures: Vec<Figure>,
    /// The most common treatment-related terms (any grade), most frequent first.
    pub top_trae: Vec<TermCount>,
    /// The most common grade ≥3 treatment-related terms.
    pub top_trae_grade3: Vec<TermCount>,
    /// Every grade ≥3 treatment-related term, most frequent first (the abstract lists them
    /// when there are at most `analysis.ae_terms_listed`).
    pub trae_grade3_terms: Vec<TermCount>,
    /// The rendered Markdown body, for HTML wrappers.
    pub body: String,
    /// The report as data: its sections and tables, as report.html and report.docx print them.
    pub report: crate::documents::report::Report,
    /// A cohort with arms: each comparison with the two arms' results beside it.
    pub arms_compared: Vec<ArmPair<'a>>,
}

/// The Methods sentences of arm comparisons (none without arms): the Cox model and its ties
/// method, the stratification factors, the log-rank test, the interval of differences and the
/// test of response rates, as the abstract reports them.
fn comparison_methods(a: &Analysis, c: &CohortResults) -> Vec<String> {
    let level = a.ci_percent();
    let mut sentences = Vec::new();
    let Some(first) = c.comparisons.first() else {
        return sentences;
    };
    let strata: Option<&Vec<String>> = c
        .comparisons
        .iter()
        .flat_map(|cmp| cmp.tte.values())
        .find_map(|t| t.stratified.as_ref().map(|s| &s.strata));
    // A stratification factor by its baseline label in prose ("ECOG performance status",
    // "region"), else by its column.
    let names = |columns: &[String]| {
        let named: Vec<String> = columns
            .iter()
            .map(
                |column| match c.baseline.iter().find(|b| &b.column == column) {
                    Some(b) => crate::documents::prose::in_sentence(&b.label),
                    None => column.clone(),
                },
            )
            .collect();
        crate::documents::prose::and_list(&named)
    };
    if !first.tte.is_empty() {
        let ties = match a.cox_ties {
            crate::config::CoxTies::Efron => "Efron",
            crate::config::CoxTies::Breslow => "Breslow",
        };
        sentences.push(match strata {
            Some(strata) => format!(
                "Hazard ratios (HRs) with {level}% CIs were estimated with a Cox proportional hazards model stratified by {} ({ties} method for ties), and arms were compared with the log-rank test stratified likewise.",
                names(strata)
            ),
            None => format!(
                "Hazard ratios (HRs) with {level}% CIs were estimated with a Cox proportional hazards model ({ties} method for ties), and arms were compared with the log-rank test."
            ),
        });
    }
    if first.response.is_some() {
        let interval = match a.diff_ci {
            crate::config::DiffCi::Newcombe => "Newcombe hybrid score",
            crate::config::DiffCi::Wald => "Wald",
        };
        // The tests the comparisons used (`response_test`), as they were chosen.

        let used: std::collections::BTreeSet<TestUsed> = c
            .comparisons
            .iter()
            .filter_map(|cmp| cmp.response.as_ref())
            .flat_map(|r| [r.orr.test, r.dcr.test])
            .flatten()
            .collect();
        let cmh = |strata: &[String]| {
            format!(
                "the Cochran–Mantel–Haenszel test stratified by {}",
                names(strata)
            )
        };
        let test = match (used.iter().copied().collect::<Vec<_>>().as_slice(), strata) {
            ([TestUsed::Cmh], Some(strata)) => cmh(strata),
            ([TestUsed::Fisher], _) => "Fisher's exact test".to_string(),
            ([TestUsed::Chisq, TestUsed::Fisher], _) => {
                "the chi-square test, or Fisher's exact test where an expected count was below 5"
                    .to_string()
            }
            _ => "the chi-square test".to_string(),
        };
        sentences.push(format!(
            "Differences in response rates are given with {interval} {level}% CIs and tested with {test}."
        ));
    }
    sentences.push("All p-values are two-sided.".to_string());
    sentences
}

/// An arm compared with the reference, with both arms' results (for sentences such as
/// "median PFS 10.2 vs 5.1 months (HR 0.52 ...)").
#[derive(Debug, Clone, Serialize)]
pub struct ArmPair<'a> {
    /// The arm's results.
    pub arm: &'a crate::results::ArmResults,
    /// The reference arm's results.
    pub reference: &'a crate::results::ArmResults,
    /// The comparison.
    pub comparison: &'a crate::results::Comparison,
}

/// Each comparison of a cohort's results with its two arms.
pub fn arms_compared(c: &CohortResults) -> Vec<ArmPair<'_>> {
    let find = |name: &str| c.arms.iter().find(|a| a.arm == name);
    c.comparisons
        .iter()
        .filter_map(|comparison| {
            Some(ArmPair {
                arm: find(&comparison.arm)?,
                reference: find(&comparison.reference)?,
                comparison,
            })
        })
        .collect()
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
    count: impl Fn(&crate::results::TermCounts) -> usize,
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
    /// The title as Markdown: the same, but a label in it is escaped for Markdown (a label
    /// is text). `abstract.md` prints it, `abstract.txt` reads it with `md_text`.
    pub title_markdown: String,
    /// Population in words.
    pub population: String,
    /// Background (Markdown).
    pub background: String,
    /// Eligibility and treatment (Markdown).
    pub methods: String,
    /// Conclusions (Markdown).
    pub conclusions: String,
}

/// Where a template came from, for error messages.
#[derive(Debug, Clone)]
struct TemplateSource {
    /// The user file that replaced the built-in, if any.
    path: Option<std::path::PathBuf>,
    /// The template text (to find the line of a render error).
    text: String,
}

/// A Tera instance with the built-in templates, any user overrides, and readout's filters.
pub struct Renderer {
    tera: Tera,
    sources: BTreeMap<String, TemplateSource>,
    /// Whether any template came from the user (`output.templates`, [`Renderer::with_templates`]):
    /// then every HTML document goes through [`html::sanitize_document`].
    user_templates: bool,
    /// Ready instances with the filters of one set of settings, by (percent decimals, time
    /// decimals, CI level, Markdown escaping): the templates are cloned once per set of
    /// settings, not once per document (docs/PERFORMANCE.md).
    ready: std::sync::Mutex<HashMap<ReadyKey, std::sync::Arc<Tera>>>,
}

/// The filters' settings and whether the template is Markdown (escaped for Markdown).
type ReadyKey = (FilterSettings, bool);

/// What readout's filters take from the analysis settings: the one source of both the filters
/// and the key under which a renderer keeps an instance with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FilterSettings {
    percent_decimals: usize,
    time_decimals: usize,
    /// The confidence level in tenths of a percent (950 for 95%), hashable.
    ci_tenths: u64,
}

impl FilterSettings {
    fn of(analysis: &Analysis) -> FilterSettings {
        FilterSettings {
            percent_decimals: analysis.percent_decimals,
            time_decimals: analysis.time_decimals,
            ci_tenths: (analysis.ci_percent() * 10.0).round() as u64,
        }
    }
}

impl Renderer {
    /// Loads the built-ins, then the files of `user_dir`: a file named like a built-in replaces
    /// it (the others stay), and any other `.md`, `.txt`, `.html` or `.css` file is added so a
    /// user template can include or extend it.
    pub fn new(user_dir: Option<&Path>) -> Result<Renderer> {
        let mut user = Vec::new();
        if let Some(dir) = user_dir {
            for (name, path) in user_template_files(dir)? {
                let text = read_template(&path)?;
                user.push((name, Some(path), text));
            }
        }
        Renderer::with_sources(user)
    }

    /// The built-ins with `templates` (name, text) given as text rather than files: named
    /// like a built-in, one replaces it. Checked and sandboxed as user files are.
    pub fn with_templates(templates: &[(&str, &str)]) -> Result<Renderer> {
        Renderer::with_sources(
            templates
                .iter()
                .map(|(name, text)| (name.to_string(), None, text.to_string()))
                .collect(),
        )
    }

    fn with_sources(user: Vec<(String, Option<std::path::PathBuf>, String)>) -> Result<Renderer> {
        let user_templates = !user.is_empty();
        let mut sources: BTreeMap<String, TemplateSource> = BUILTIN_TEMPLATES
            .iter()
            .map(|(name, text)| {
                (
                    name.to_string(),
                    TemplateSource {
                        path: None,
                        text: text.to_string(),
                    },
                )
            })
            .collect();
        for (name, path, text) in user {
            sources.insert(name, TemplateSource { path, text });
        }
        let mut renderer = Renderer {
            tera: Tera::default(),
            sources,
            user_templates,
            ready: Default::default(),
        };
        for (name, source) in &renderer.sources {
            sandbox::check_source(&source.text, sandbox::MAX_TEMPLATE_BYTES)
                .map_err(|e| renderer.source_error(name, &e))?;
        }
        let mut tera = Tera::default();
        tera.autoescape_on(vec![".html"]);
        // Added together so templates may include each other in any order.
        let all: Vec<(&str, &str)> = renderer
            .sources
            .iter()
            .map(|(name, s)| (name.as_str(), s.text.as_str()))
            .collect();
        tera.add_raw_templates(all)
            .map_err(|e| renderer.error("", &e))?;
        sandbox::secure(&mut tera).map_err(|(name, e)| renderer.source_error(&name, &e))?;
        renderer.tera = tera;
        Ok(renderer)
    }

    /// An HTML document this renderer made, as it is written: through the sanitizer when a
    /// user template is loaded (any of them may reach any document through `include`, and
    /// `base.css` sits in every built-in one), then without unsafe URL attributes; the
    /// built-in templates' documents otherwise as rendered (`docs/BAD-INPUT.md`).
    pub fn finish_html(&self, html: String) -> String {
        let html = if self.user_templates {
            html::sanitize_document(&html)
        } else {
            html
        };
        match html::remove_unsafe_urls(&html) {
            std::borrow::Cow::Borrowed(_) => html,
            std::borrow::Cow::Owned(clean) => clean,
        }
    }

    /// Renders one template for one cohort. Decimals come from the cohort's settings.
    pub fn render(&self, name: &str, ctx: &DocumentContext<'_>) -> Result<String> {
        let context = Context::from_serialize(ctx).map_err(|e| self.error(name, &e))?;
        // The figures and the body are the template's input: it may print them whole on top
        // of what the document limit allows it to write itself.
        let given = ctx.figures.iter().map(|f| f.svg.len()).sum::<usize>() + ctx.body.len();
        self.render_context(name, &context, ctx.analysis, given)
    }

    /// Renders one template with any serialisable context (`index.html`).
    pub fn render_with<T: Serialize>(
        &self,
        name: &str,
        ctx: &T,
        analysis: &Analysis,
    ) -> Result<String> {
        let context = Context::from_serialize(ctx).map_err(|e| self.error(name, &e))?;
        self.render_context(name, &context, analysis, 0)
    }

    fn render_context(
        &self,
        name: &str,
        context: &Context,
        analysis: &Analysis,
        given: usize,
    ) -> Result<String> {
        let markdown = name.ends_with(".md");
        let key = (FilterSettings::of(analysis), markdown);
        let ready = self.ready.lock().ok().and_then(|r| r.get(&key).cloned());
        let tera = match ready {
            Some(tera) => tera,
            None => {
                let mut tera = self.tera.clone();
                register_filters_with(&mut tera, key.0);
                if markdown {
                    // `.html` output is escaped for HTML; Markdown output for Markdown (an
                    // instance of its own, so the HTML escaping of other templates is
                    // untouched).
                    tera.autoescape_on(vec![".md"]);
                    tera.set_escape_fn(escape_markdown);
                }
                let tera = std::sync::Arc::new(tera);
                if let Ok(mut r) = self.ready.lock() {
                    r.insert(key, tera.clone());
                }
                tera
            }
        };
        sandbox::render(&tera, name, context, given).map_err(|e| self.failure(name, e))
    }

    /// Renders a snippet of config text (background, conclusions) with the same filters and
    /// the same sandbox; what it prints is escaped for Markdown, as in `.md` templates (the
    /// text is Markdown: a data value must not become a link or markup). `what` names it in
    /// errors (`cohorts.a.background`).
    pub fn render_text(
        &self,
        what: &str,
        text: &str,
        study: &Study,
        cohort: &CohortResults,
        analysis: &Analysis,
    ) -> Result<String> {
        let text_error = |location: String, message: &str| Error::Template {
            template: what.to_string(),
            message: format!("{location}{}", tidy_message(message)),
        };
        sandbox::check_source(text, sandbox::MAX_TEXT_BYTES).map_err(|e| {
            text_error(
                e.line.map(|l| position(l, None)).unwrap_or_default(),
                &e.message,
            )
        })?;
        let located = |message: String| {
            let location = parse_location(&message)
                .or_else(|| find_named_line(text, &message))
                .map(|(line, column)| position(line, column))
                .unwrap_or_default();
            text_error(location, &message)
        };
        let mut tera = self.tera.clone();
        register_filters(&mut tera, analysis);
        tera.autoescape_on(vec![""]);
        tera.set_escape_fn(escape_markdown);
        tera.add_raw_template(what, text)
            .map_err(|e| located(error_chain(&e)))?;
        sandbox::secure_template(&mut tera, what).map_err(|e| located(e.message))?;
        sandbox::check_calls(&tera).map_err(|(_, e)| located(e.message))?;
        let mut context = Context::new();
        context.insert("study", study);
        context.insert("cohort", cohort);
        context.insert("analysis", analysis);
        sandbox::render(&tera, what, &context, 0).map_err(|e| match e {
            sandbox::RenderFailure::Limit(message) => text_error(String::new(), &message),
            sandbox::RenderFailure::Tera(e) => located(error_chain(&e)),
        })
    }

    /// A sandbox refusal of template `name` before rendering, with the user file and line.
    fn source_error(&self, name: &str, e: &sandbox::SourceError) -> Error {
        let file = self
            .sources
            .get(name)
            .and_then(|s| s.path.as_ref())
            .map(|p| format!("user file {}, ", p.display()))
            .unwrap_or_default();
        let line = e.line.map(|l| position(l, None)).unwrap_or_default();
        Error::Template {
            template: name.to_string(),
            message: format!("{file}{line}{}", e.message),
        }
    }

    /// Why rendering `name` failed: a sandbox limit, or Tera's error.
    fn failure(&self, name: &str, failure: sandbox::RenderFailure) -> Error {
        match failure {
            sandbox::RenderFailure::Tera(e) => self.error(name, &e),
            sandbox::RenderFailure::Limit(message) => self.source_error(
                name,
                &sandbox::SourceError {
                    line: None,
                    message,
                },
            ),
        }
    }

    /// A template error naming the template (and the user file that replaced it), the line
    /// (and column, for syntax errors) and Tera's explanation.
    fn error(&self, name: &str, e: &dyn std::error::Error) -> Error {
        let message = error_chain(e);
        // The template the error happened in: an included one, or a syntax error's file.
        let culprit = active_template(&message)
            .filter(|n| self.sources.contains_key(n.as_str()))
            .unwrap_or_else(|| name.to_string());
        let source = self.sources.get(&culprit);
        let location = parse_location(&message)
            .or_else(|| source.and_then(|s| find_named_line(&s.text, &message)))
            .map(|(line, column)| position(line, column))
            .unwrap_or_default();
        let file = source
            .and_then(|s| s.path.as_ref())
            .map(|p| format!("user file {}, ", p.display()))
            .unwrap_or_default();
        Error::Template {
            template: culprit,
            message: format!("{file}{location}{}", tidy_message(&message)),
        }
    }
}

/// The `.md`, `.txt`, `.html` and `.css` files of a user templates folder, by name, in name
/// order. A file that is a link to a file outside the folder is refused: templates see the
/// results and the config, never other files.
fn user_template_files(dir: &Path) -> Result<Vec<(String, std::path::PathBuf)>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, "cannot read the templates folder", e))?;
    let home = dir
        .canonicalize()
        .map_err(|e| Error::io(dir, "cannot read the templates folder", e))?;
    let mut paths: Vec<std::path::PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| matches!(x, "md" | "txt" | "html" | "css"))
        })
        .collect();
    paths.sort();
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let real = path
            .canonicalize()
            .map_err(|e| Error::io(&path, "cannot read template", e))?;
        if real.parent() != Some(home.as_path()) {
            return Err(Error::Template {
                template: name.to_string(),
                message: format!(
                    "user file {} is a link to {}, outside the templates folder; expected the \
                     template itself in {}",
                    path.display(),
                    real.display(),
                    dir.display()
                ),
            });
        }
        files.push((name.to_string(), path));
    }
    Ok(files)
}

/// A user template's text, refused unread when it is larger than a template may be.
fn read_template(path: &Path) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read template", e))?;
    if meta.len() > sandbox::MAX_TEMPLATE_BYTES as u64 {
        return Err(Error::Template {
            template: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            message: format!(
                "user file {}, {} bytes; a template may have at most {} bytes",
                path.display(),
                meta.len(),
                sandbox::MAX_TEMPLATE_BYTES
            ),
        });
    }
    std::fs::read_to_string(path).map_err(|e| Error::io(path, "cannot read template", e))
}

fn position(line: usize, column: Option<usize>) -> String {
    match column {
        Some(c) => format!("line {line}, column {c}: "),
        None => format!("line {line}: "),
    }
}

/// Every message of an error's cause chain, joined.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push('\n');
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// The template Tera names in "while rendering 'x'", "error happened in 'x'" or
/// "Failed to parse 'x'".
fn active_template(message: &str) -> Option<String> {
    for marker in [
        "Circular extend detected for template '",
        "Template '",
        "while rendering '",
        "error happened in '",
        "Failed to parse '",
    ] {
        if let Some(i) = message.rfind(marker) {
            let rest = message.get(i + marker.len()..)?;
            let end = rest.find('\'')?;
            return rest.get(..end).map(str::to_string);
        }
    }
    None
}

/// The ` --> line:column` of a Tera syntax error.
fn parse_location(message: &str) -> Option<(usize, Option<usize>)> {
    let i = message.find("--> ")?;
    let rest = message.get(i + 4..)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':'))
        .unwrap_or(rest.len());
    let (line, column) = rest.get(..end)?.split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()))
}

/// The first line of `text` that mentions the variable, filter or function a render error
/// names in backticks (Tera does not report lines for render errors).
fn find_named_line(text: &str, message: &str) -> Option<(usize, Option<usize>)> {
    let start = message.find('`')? + 1;
    let len = message.get(start..)?.find('`')?;
    let needle = message.get(start..start + len)?;
    if needle.is_empty() {
        return None;
    }
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| (i + 1, None))
}

/// Tera's syntax errors are drawn over several lines; keep the words, drop the drawing.
fn tidy_message(message: &str) -> String {
    let parts: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("-->") && !l.starts_with('|'))
        .filter(|l| {
            // The echoed source line: "12 | {{ x }}".
            !l.split_once(" |")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .map(|l| l.trim_start_matches("= "))
        .collect();
    parts.join(": ")
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

fn register_filters_with(tera: &mut Tera, settings: FilterSettings) {
    let pd = settings.percent_decimals;
    let td = settings.time_decimals;
    let level = fmt_plain(settings.ci_tenths as f64 / 10.0);
    tera.register_filter("pct", move |v: &Value, args: &HashMap<String, Value>| {
        Ok(Value::String(fmt_pct(v.as_f64(), decimals(args, pd))))
    });
    tera.register_filter("n_pct", move |v: &Value, args: &HashMap<String, Value>| {
        let n = v.get("n").and_then(Value::as_u64).unwrap_or(0);
        let total = v.get("N").and_then(Value::as_u64).unwrap_or(0);
        Ok(Value::String(fmt_n_pct(n, total, decimals(args, pd))))
    });
    tera.register_filter(
        "count_pct",
        move |v: &Value, args: &HashMap<String, Value>| {
            let n = v.as_u64().unwrap_or(0);
            let total = args.get("total").and_then(Value::as_u64).unwrap_or(0);
            Ok(Value::String(fmt_count_pct(n, total, decimals(args, pd))))
        },
    );
    tera.register_filter("num", move |v: &Value, args: &HashMap<String, Value>| {
        Ok(Value::String(match v.as_f64() {
            Some(x) => fixed(x, decimals(args, td)),
            None => missing(args, "NE"),
        }))
    });
    tera.register_filter("time", move |v: &Value, args: &HashMap<String, Value>| {
        Ok(Value::String(match v.as_f64() {
            Some(x) => fixed(x, decimals(args, td)),
            None => missing(args, "not reached"),
        }))
    });
    tera.register_filter("ci", move |v: &Value, args: &HashMap<String, Value>| {
        // Proportions are shown in percent, times as they are.
        let percent = flag(args, "percent");
        let d = decimals(args, if percent { pd } else { td });
        let lower = v.get("lower").and_then(Value::as_f64);
        let upper = v.get("upper").and_then(Value::as_f64);
        let limits = fmt_limits(lower, upper, d, percent);
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
        Ok(Value::String(match (counts, v.as_f64()) {
            ((Some(n), Some(total)), _) if total > 0 => {
                format!("{}%", crate::format::percent_of(n, total, d))
            }
            (_, Some(n)) if total > 0.0 => fmt_pct(Some(n / total), d),
            _ => "NE".to_string(),
        }))
    });
    tera.register_filter("test_name", |v: &Value, _: &HashMap<String, Value>| {
        let test: crate::results::TestUsed = serde_json::from_value(v.clone()).map_err(|e| {
            tera::Error::msg(format!(
                "test_name: expected `chisq`, `fisher` or `cmh` ({e})"
            ))
        })?;
        Ok(Value::String(test.short_name().to_string()))
    });
    tera.register_filter("p_value", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(crate::format::fmt_p(v.as_f64())))
    });
    tera.register_filter("plain", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(match v.as_f64() {
            Some(x) => fmt_plain(x),
            None => "NE".to_string(),
        }))
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
            Ok(Value::String(crate::documents::prose::baseline_phrase(
                &item, compact, pd,
            )))
        },
    );
    tera.register_filter("spell", |v: &Value, args: &HashMap<String, Value>| {
        let Some(n) = v.as_u64() else {
            return Ok(v.clone());
        };
        let words = crate::documents::prose::spell(n);
        Ok(Value::String(if flag(args, "capital") {
            crate::documents::prose::sentence_case(&words)
        } else {
            words
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
        let terms: Vec<(String, usize)> = v
            .as_array()
            .map(|terms| {
                terms
                    .iter()
                    .filter_map(|t| {
                        let term = t.get("term")?.as_str()?.to_string();
                        let n = usize::try_from(t.get("n")?.as_u64()?).ok()?;
                        Some((term, n))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Value::String(crate::documents::prose::counted_terms(
            &terms,
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
        Ok(Value::String(long_date(text)))
    });
    tera.register_filter("markdown", |v: &Value, args: &HashMap<String, Value>| {
        Ok(Value::String(markdown_to_html(
            v.as_str().unwrap_or(""),
            flag(args, "inline"),
        )))
    });
    tera.register_filter("md_text", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(markdown_to_text(v.as_str().unwrap_or(""))))
    });
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

/// Escapes a data string for Markdown: the characters that could start markup (emphasis,
/// code, links, tables, raw HTML, entities) get a backslash, and line breaks become spaces so
/// a value cannot start a new block. Renders as the same text.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

/// Markdown → HTML with pulldown-cmark; `inline` drops the wrapping paragraph of a one-line
/// text so it can sit inside a sentence. Raw HTML in the Markdown is escaped, not passed on,
/// and a link or image whose target is not [`safe_url`] is rendered as its text alone.
pub fn markdown_to_html(md: &str, inline: bool) -> String {
    markdown_html(md, inline, pulldown_cmark::Options::empty())
}

/// [`markdown_to_html`] with GitHub-style tables (`readout diff`).
pub fn markdown_tables_to_html(md: &str) -> String {
    markdown_html(md, false, pulldown_cmark::Options::ENABLE_TABLES)
}

/// Text for HTML: `&`, `<`, `>`, `"` and `'` as character references.
pub fn html_escape(text: &str) -> String {
    tera::escape_html(text)
}

fn markdown_html(md: &str, inline: bool, options: pulldown_cmark::Options) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    // For each open link or image: whether its tags were dropped.
    let mut dropped: Vec<bool> = Vec::new();
    let parser = Parser::new_ext(md, options).filter_map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
        Event::Start(Tag::Link { ref dest_url, .. } | Tag::Image { ref dest_url, .. }) => {
            let unsafe_target = !safe_link(dest_url);
            dropped.push(unsafe_target);
            (!unsafe_target).then_some(event)
        }
        Event::End(TagEnd::Link | TagEnd::Image) => {
            let was_dropped = dropped.pop().unwrap_or(false);
            (!was_dropped).then_some(event)
        }
        other => Some(other),
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

/// Whether a link target may stay a link in a document: `http:`, `https:` and `mailto:`
/// links, and relative links and fragments (no scheme). Read as a browser reads it: tabs and
/// line breaks anywhere and control characters and spaces in front are ignored, the scheme in
/// any case (entities and backslash escapes are already decoded by the Markdown parser).
/// Anything else with a colon before the first `/`, `?` or `#` is refused, whatever the
/// characters before the colon.
pub fn safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let trimmed = cleaned.trim_start_matches(|c: char| c <= ' ');
    match trimmed.find([':', '/', '?', '#']) {
        Some(i) if trimmed[i..].starts_with(':') => {
            let scheme = trimmed[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// Whether a Markdown link or image target may stay a link: [`safe_url`] as the Markdown
/// parser decoded it, and again with HTML's character references decoded once more (a reader
/// that leaves `&#00000058;` to the browser makes it a colon).
pub fn safe_link(dest: &str) -> bool {
    safe_url(dest) && safe_url(&html::decode_references(dest))
}

/// Markdown → plain text for `abstract.txt`: the words without markup; soft line breaks become
/// spaces, paragraphs are separated by a blank line, list items start with "- ". Raw HTML is
/// markup too: its tags and comments are left out, the text between them kept.
pub fn markdown_to_text(md: &str) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut out = String::new();
    // Inside a tag or a comment of raw HTML that a line of an HTML block left open.
    let mut open = None;
    for event in Parser::new(md) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::Html(t) => strip_tags(&t, &mut out, &mut open),
            Event::InlineHtml(_) => {}
            Event::End(TagEnd::HtmlBlock) => open = None,
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::End(TagEnd::Item) => out.push('\n'),
            Event::End(
                TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::List(_) | TagEnd::BlockQuote(_),
            ) => out.push_str("\n\n"),
            _ => {}
        }
    }
    let mut text = String::new();
    let mut blank = false;
    for line in out.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank = !text.is_empty();
            continue;
        }
        if blank {
            text.push('\n');
            blank = false;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    text
}

/// The text of raw HTML without its tags and comments, onto `out`; `open` carries a tag
/// (`Some(">")`) or comment (`Some("-->")`) left open from one line to the next.
fn strip_tags(html: &str, out: &mut String, open: &mut Option<&'static str>) {
    let mut rest = html;
    loop {
        if let Some(close) = *open {
            match rest.find(close) {
                Some(i) => {
                    rest = &rest[i + close.len()..];
                    *open = None;
                }
                None => return,
            }
        }
        let start = rest.char_indices().find(|&(i, c)| {
            c == '<'
                && rest[i + 1..]
                    .chars()
                    .next()
                    .is_some_and(|n| n.is_ascii_alphabetic() || "/!?".contains(n))
        });
        match start {
            Some((i, _)) => {
                out.push_str(&rest[..i]);
                let (close, skip) = if rest[i..].starts_with("<!--") {
                    ("-->", 4)
                } else {
                    (">", 1)
                };
                *open = Some(close);
                rest = &rest[i + skip..];
            }
            None => {
                out.push_str(rest);
                return;
            }
        }
    }
}

/// The statistics sentence of the Methods section, stating the conventions actually used.
pub fn methods_statistics(a: &Analysis, c: &CohortResults) -> String {
    let level = a.ci_percent();
    let mut sentences = Vec::new();
    if c.response.is_some() {
        sentences.push(if a.confirmed {
            format!(
                "Tumor response was assessed per RECIST 1.1; complete and partial responses required confirmation by a repeat assessment at least {} days later, and stable disease required an assessment at least {} days after treatment start.",
                a.confirmation_days, a.sd_min_days
            )
        } else {
            format!(
                "Tumor response was assessed per RECIST 1.1 (unconfirmed responses); stable disease required an assessment at least {} days after treatment start.",
                a.sd_min_days
            )
        });
    }
    if !c.tte.is_empty() {
        let median = match a.median_ci {
            MedianCi::Collett => {
                format!("{level}% CIs of medians as estimate ± z·SE with Collett's standard error")
            }
            other => format!(
                "{level}% CIs of medians by the Brookmeyer–Crowley method with {} transformation",
                other.transform().map(|t| t.name()).unwrap_or("log-log")
            ),
        };
        let followup = match &c.followup {
            Some(f) => format!(
                "; median follow-up was estimated by the reverse Kaplan–Meier method for {}",
                f.label
            ),
            None => String::new(),
        };
        sentences.push(format!(
            "Time-to-event endpoints were estimated by the Kaplan–Meier method, with {median}{followup}."
        ));
    }
    if c.response.is_some() {
        let proportion = match a.proportion_ci {
            ProportionCi::ClopperPearson => "exact Clopper–Pearson",
            ProportionCi::Wilson => "Wilson score",
        };
        sentences.push(format!("Proportions have {proportion} {level}% CIs."));
    }
    sentences.extend(comparison_methods(a, c));
    if let Some(s) = &c.safety {
        sentences.push(
            match s.grading {
                crate::results::AeGrading::Ctcae => "Adverse events were graded per CTCAE.",
                crate::results::AeGrading::Severity => {
                    "Adverse events were graded by severity (mild, moderate, severe), not per CTCAE."
                }
            }
            .to_string(),
        );
    }
    sentences.join(" ")
}

#[cfg(test)]
mod tests;
