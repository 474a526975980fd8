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
use tera::{Context, Tera};

mod ahead;
mod convert;
mod filters;
pub mod html;
pub mod markdown;
mod methods;
pub mod sandbox;

pub use convert::*;
pub use filters::{register_filters, TRACED};
use filters::{register_filters_with, FilterSettings};
pub use methods::{
    arms_compared, category_counts, methods_statistics, methods_statistics_short, top_terms,
    ArmPair, CategoryCount, TermCount,
};

use crate::config::{Analysis, Study};

use crate::error::{Error, Result};
pub use crate::figures::Figure;
pub use crate::format::{
    fixed, fmt_count_pct, fmt_limits, fmt_n_pct, fmt_pct, fmt_plain, long_date,
};
use crate::results::CohortResults;

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
    ("slides.txt", include_str!("../../../templates/slides.txt")),
    ("poster.txt", include_str!("../../../templates/poster.txt")),
    ("base.css", include_str!("../../../templates/base.css")),
];

/// The built-in templates by name, but those of `skip`.
fn builtin_sources(skip: &[&'static str]) -> BTreeMap<String, TemplateSource> {
    BUILTIN_TEMPLATES
        .iter()
        .filter(|(name, _)| !skip.contains(name))
        .map(|(name, text)| {
            (
                name.to_string(),
                TemplateSource {
                    path: None,
                    text: text.to_string(),
                },
            )
        })
        .collect()
}

/// Adds `sources` to `tera` together (so templates may include each other in any order): a
/// built-in whose text is its own as parsed ahead ([`ahead`]), every other text parsed by
/// Tera. Gives how many were parsed.
fn add_templates(
    tera: &mut Tera,
    sources: &BTreeMap<String, TemplateSource>,
) -> tera::Result<usize> {
    let mut parse = Vec::new();
    for (name, source) in sources {
        match ahead::template(name, &source.text) {
            Some(template) => {
                tera.templates.insert(name.clone(), template);
            }
            None => parse.push((name.as_str(), source.text.as_str())),
        }
    }
    let parsed = parse.len();
    // Also links every template's parents and checks macro imports, as for one parsed alone.
    tera.add_raw_templates(parse)?;
    Ok(parsed)
}

/// The built-in templates a build's documents cannot reach, left out when the config has no
/// templates of its own (they were a third of parsing the built-ins, docs/PERFORMANCE.md;
/// with the trees read ahead they still save their sandboxing and traced copy):
/// the arms' results part when no cohort has arms (`abstract.md` and `abstract.txt` include
/// it only for a cohort with comparisons, which only arms make), `slides.txt` without `pptx`
/// and `poster.txt` without `poster`.
pub fn unreachable_builtins(config: &crate::config::StudyConfig) -> Vec<&'static str> {
    use crate::config::Format;
    let formats = &config.output.formats;
    let mut skip = Vec::new();
    if config.cohorts.iter().all(|c| c.arms.is_none()) {
        skip.push("abstract-results-arms.txt");
    }
    if !formats.contains(&Format::Pptx) {
        skip.push("slides.txt");
    }
    if !formats.contains(&Format::Poster) {
        skip.push("poster.txt");
    }
    skip
}

/// Everything a cohort's documents are rendered from.
#[derive(Debug, Serialize)]
pub struct DocumentContext<'a> {
    /// `study:` from the config.
    pub study: &'a Study,
    /// The cohort's results as the analysis made them (`results.json` adds to its warnings
    /// those of the figures and documents).
    pub cohort: &'a CohortResults,
    /// The cohort's warnings known when its documents are made: the analysis' and the
    /// figures' notes on a figure left out.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
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
    /// The categories of the cohort's response criteria (other than RECIST 1.1) with their
    /// counts, best first.
    pub categories: Vec<CategoryCount>,
    /// The rendered Markdown body, for HTML wrappers.
    pub body: String,
    /// The report as data: its sections and tables, as report.html and report.docx print them.
    pub report: crate::documents::report::Report,
    /// A cohort with arms: each comparison with the two arms' results beside it.
    pub arms_compared: Vec<ArmPair<'a>>,
    /// The sentences of the abstract's paragraphs by heading (`Methods`, `Results`, whatever
    /// `headings` calls them), for the slides.
    pub sentences: BTreeMap<String, Vec<String>>,
    /// The abstract's section names (`output.conference.sections`).
    pub headings: crate::config::SectionNames,
    /// What the abstract shows: blocks and endpoints, as `output.abstract` and the
    /// shortening to the conference limit leave them (`documents::shorten`).
    pub show: crate::documents::shorten::Shown,
    /// These fields as Tera's context, serialised at the first render and reused by the
    /// others (serialising the figures and the report for each of a cohort's eight renders
    /// was a tenth of its documents; docs/PERFORMANCE.md). Only `body`, `methods_statistics`
    /// and `sentences` are read again at each render: the others are fixed by then.
    #[serde(skip)]
    pub tera: std::sync::Mutex<Option<Context>>,
    /// The names of the context's keys (this struct's fields as serialised).
    #[serde(skip)]
    pub keys: std::sync::OnceLock<Vec<String>>,
    /// The traced renders' context ([`TRACED_ITEMS`]) with its sources, made at the first.
    #[serde(skip)]
    pub traced:
        std::sync::Mutex<Option<(Context, std::sync::Arc<crate::documents::trace::Sources>)>>,
}

/// The most items of one list the traced renders' context holds. Every value of that context
/// is indexed by address to name its pointer; a cohort of 10^5 adverse-event terms held
/// millions. An abstract prints from the lists' heads (the built-in templates from lists
/// of their own, `top_trae`), so the traced render equals the plain one; a template that
/// prints beyond the cut renders differently traced, and its numbers are then untraced.
pub const TRACED_ITEMS: usize = 1000;

/// `value` with every list cut to its first [`TRACED_ITEMS`].
fn cut_lists(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Array(items) => {
            Value::Array(items.iter().take(TRACED_ITEMS).map(cut_lists).collect())
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), cut_lists(v))).collect())
        }
        other => other.clone(),
    }
}

impl DocumentContext<'_> {
    /// The bytes of the template's input that it may print whole on top of what the document
    /// limit allows it to write itself: the figures and the body.
    fn given_bytes(&self) -> usize {
        self.figures.iter().map(|f| f.svg.len()).sum::<usize>() + self.body.len()
    }

    /// Calls `f` with this context as Tera's, made once, its changing fields current.
    fn with_tera<R>(&self, f: impl FnOnce(&Context) -> R) -> tera::Result<R> {
        let mut made = self.tera.lock().unwrap_or_else(|p| p.into_inner());
        let context = match &mut *made {
            Some(context) => {
                self.current(context);
                context
            }
            None => {
                let value = serde_json::to_value(self).map_err(tera::Error::json)?;
                if let serde_json::Value::Object(map) = &value {
                    let _ = self.keys.set(map.keys().cloned().collect());
                }
                made.insert(Context::from_value(value)?)
            }
        };
        Ok(f(context))
    }

    /// Puts the fields that change between renders into `context`.
    fn current(&self, context: &mut Context) {
        context.insert("body", &self.body);
        context.insert("methods_statistics", &self.methods_statistics);
        context.insert("sentences", &self.sentences);
        context.insert("show", &self.show);
    }

    /// Calls `f` with the traced renders' context (this one, its lists cut to
    /// [`TRACED_ITEMS`]) and the sources of its values, made once, its changing fields current.
    fn with_traced<R>(
        &self,
        f: impl FnOnce(&Context, std::sync::Arc<crate::documents::trace::Sources>) -> R,
    ) -> tera::Result<R> {
        let mut traced = self.traced.lock().unwrap_or_else(|p| p.into_inner());
        if traced.is_none() {
            let cut = self.with_tera(|full| {
                let mut cut = Context::new();
                for key in self.keys.get().into_iter().flatten() {
                    if let Some(value) = full.get(key) {
                        cut.insert(key.as_str(), &cut_lists(value));
                    }
                }
                cut
            })?;
            let sources = std::sync::Arc::new(trace_sources(&cut, self));
            *traced = Some((cut, sources));
        }
        let Some((context, sources)) = traced.as_mut() else {
            return Err(tera::Error::msg("the traced context was not made"));
        };
        // Replacing existing keys leaves the other values where the sources found them.
        self.current(context);
        Ok(f(context, sources.clone()))
    }

    /// The cohort's results as the traced renders read them (lists cut to [`TRACED_ITEMS`]),
    /// once a traced render has run.
    pub fn traced_results(&self) -> Option<std::sync::Arc<serde_json::Value>> {
        let traced = self.traced.lock().unwrap_or_else(|p| p.into_inner());
        traced.as_ref().map(|(_, sources)| sources.root())
    }
}

/// What a config text is rendered with ([`Renderer::render_text`]): the study, the cohort and
/// its analysis settings, made into Tera's context once for all of a cohort's texts.
pub struct TextContext(Context);

impl TextContext {
    pub fn new(study: &Study, cohort: &CohortResults, analysis: &Analysis) -> TextContext {
        let mut context = Context::new();
        context.insert("study", study);
        context.insert("cohort", cohort);
        context.insert("analysis", analysis);
        TextContext(context)
    }
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
    /// The same templates rewritten for the traced render (`documents::trace`).
    traced: Tera,
    sources: BTreeMap<String, TemplateSource>,
    /// Whether any template came from the user (`output.templates`, [`Renderer::with_templates`]):
    /// then every HTML document goes through [`html::sanitize_document`].
    user_templates: bool,
    /// Built-ins left unparsed ([`unreachable_builtins`]).
    skipped: Vec<&'static str>,
    /// Ready instances with the filters of one set of settings, by (percent decimals, time
    /// decimals, CI level, Markdown escaping): the templates are cloned once per set of
    /// settings, not once per document (docs/PERFORMANCE.md).
    ready: std::sync::Mutex<HashMap<ReadyKey, std::sync::Arc<Tera>>>,
}

/// The filters' settings, whether the template is Markdown (escaped for Markdown), and whether
/// the instance is the traced one.
type ReadyKey = (FilterSettings, bool, bool);

impl Renderer {
    /// Loads the built-ins, then the files of `user_dir`: a file named like a built-in replaces
    /// it (the others stay), and any other `.md`, `.txt`, `.html` or `.css` file is added so a
    /// user template can include or extend it.
    pub fn new(user_dir: Option<&Path>) -> Result<Renderer> {
        Renderer::without(user_dir, &[])
    }

    /// [`Renderer::new`], leaving the built-ins of `skip` unparsed unless `user_dir` holds
    /// templates (which may include any built-in).
    pub fn without(user_dir: Option<&Path>, skip: &[&'static str]) -> Result<Renderer> {
        let mut user = Vec::new();
        if let Some(dir) = user_dir {
            for (name, path) in user_template_files(dir)? {
                let text = read_template(&path)?;
                user.push((name, Some(path), text));
            }
        }
        let skip = if user.is_empty() { skip } else { &[] };
        Renderer::with_sources(user, skip)
    }

    /// The built-ins with `templates` (name, text) given as text rather than files: named
    /// like a built-in, one replaces it. Checked and sandboxed as user files are.
    pub fn with_templates(templates: &[(&str, &str)]) -> Result<Renderer> {
        Renderer::with_sources(
            templates
                .iter()
                .map(|(name, text)| (name.to_string(), None, text.to_string()))
                .collect(),
            &[],
        )
    }

    fn with_sources(
        user: Vec<(String, Option<std::path::PathBuf>, String)>,
        skip: &[&'static str],
    ) -> Result<Renderer> {
        let user_templates = !user.is_empty();
        let mut sources = builtin_sources(skip);
        for (name, path, text) in user {
            sources.insert(name, TemplateSource { path, text });
        }
        let mut renderer = Renderer {
            tera: Tera::default(),
            traced: Tera::default(),
            sources,
            user_templates,
            skipped: skip.to_vec(),
            ready: Default::default(),
        };
        for (name, source) in &renderer.sources {
            sandbox::check_source(&source.text, sandbox::MAX_TEMPLATE_BYTES)
                .map_err(|e| renderer.source_error(name, &e))?;
        }
        let mut tera = Tera::default();
        tera.autoescape_on(vec![".html"]);
        add_templates(&mut tera, &renderer.sources).map_err(|e| renderer.error("", &e))?;
        sandbox::secure(&mut tera).map_err(|(name, e)| renderer.source_error(&name, &e))?;
        renderer.traced = sandbox::traced(&tera);
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
        let given = ctx.given_bytes();
        ctx.with_tera(|context| self.render_context(name, context, ctx.analysis, given, false))
            .map_err(|e| self.error(name, &e))?
    }

    /// Renders one template with tracing on (`documents::trace`): the text with its numbers
    /// marked, and the entries the marks name (pointers relative to the cohort's entry).
    pub fn render_traced(
        &self,
        name: &str,
        ctx: &DocumentContext<'_>,
    ) -> Result<(String, Vec<crate::documents::trace::Entry>)> {
        let given = ctx.given_bytes();
        let (text, entries) = ctx
            .with_traced(|context, sources| {
                crate::documents::trace::traced(sources, || {
                    self.render_context(name, context, ctx.analysis, given, true)
                })
            })
            .map_err(|e| self.error(name, &e))?;
        Ok((text?, entries))
    }

    /// Renders one template with any serialisable context (`index.html`).
    pub fn render_with<T: Serialize>(
        &self,
        name: &str,
        ctx: &T,
        analysis: &Analysis,
    ) -> Result<String> {
        let context = Context::from_serialize(ctx).map_err(|e| self.error(name, &e))?;
        self.render_context(name, &context, analysis, 0, false)
    }

    fn render_context(
        &self,
        name: &str,
        context: &Context,
        analysis: &Analysis,
        given: usize,
        traced: bool,
    ) -> Result<String> {
        if self.skipped.contains(&name) {
            return Err(Error::Internal(format!(
                "the built-in template {name} was left unparsed as unreachable, yet rendered"
            )));
        }
        let markdown = name.ends_with(".md");
        let key = (FilterSettings::of(analysis), markdown, traced);
        let ready = self.ready.lock().ok().and_then(|r| r.get(&key).cloned());
        let tera = match ready {
            Some(tera) => tera,
            None => {
                let mut tera = if traced {
                    self.traced.clone()
                } else {
                    self.tera.clone()
                };
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
        context: &TextContext,
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
        // A text that cannot reach another template is rendered by an instance of its own,
        // secured as the templates are; otherwise by a copy of the templates (a copy per text
        // cost as much as rendering all the abstracts).
        let mut tera = if !reaches_other_templates(text) {
            let mut tera = Tera::default();
            tera.add_raw_template(what, text)
                .map_err(|e| located(error_chain(&e)))?;
            sandbox::secure(&mut tera).map_err(|(_, e)| located(e.message))?;
            tera
        } else {
            // A text may include any built-in: those left unparsed are parsed for it.
            let mut tera = if self.skipped.is_empty() {
                self.tera.clone()
            } else {
                Renderer::with_sources(Vec::new(), &[])?.tera
            };
            tera.add_raw_template(what, text)
                .map_err(|e| located(error_chain(&e)))?;
            sandbox::secure_template(&mut tera, what).map_err(|e| located(e.message))?;
            tera
        };
        register_filters(&mut tera, analysis);
        tera.autoescape_on(vec![""]);
        tera.set_escape_fn(escape_markdown);
        sandbox::check_calls(&tera).map_err(|(_, e)| located(e.message))?;
        sandbox::render(&tera, what, &context.0, 0).map_err(|e| match e {
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

/// Whether a template's text can reach another template: it has an `include`, `import` or
/// `extends` tag, Tera's only ways to (the words in prose, "patients were included", are not).
/// Any tag starting so counts, in a comment or raw block too: the answer errs towards yes.
fn reaches_other_templates(text: &str) -> bool {
    text.match_indices("{%").any(|(i, _)| {
        let tag = text[i + 2..].trim_start_matches(['-', '+']).trim_start();
        ["include", "import", "extends"]
            .iter()
            .any(|word| tag.starts_with(word))
    })
}

/// The context values a traced render can name, by address (`documents::trace`): the cohort
/// (its own pointers), each comparison's arms and comparison (under `/arms/i` and
/// `/comparisons/j`), and the listed terms (under `/safety/by_term/k`).
fn trace_sources(context: &Context, ctx: &DocumentContext<'_>) -> crate::documents::trace::Sources {
    use serde_json::Value;
    let root = context.get("cohort").cloned().unwrap_or_default();
    let mut sources = crate::documents::trace::Sources::new(std::sync::Arc::new(root));
    if let Some(cohort) = context.get("cohort") {
        sources.add(cohort, "");
    }
    let c = ctx.cohort;
    if let Some(Value::Array(pairs)) = context.get("arms_compared") {
        for (json, pair) in pairs.iter().zip(&ctx.arms_compared) {
            let arm =
                |a: &crate::results::ArmResults| c.arms.iter().position(|x| std::ptr::eq(x, a));
            let parts = [
                ("arm", arm(pair.arm).map(|i| format!("/arms/{i}"))),
                (
                    "reference",
                    arm(pair.reference).map(|i| format!("/arms/{i}")),
                ),
                (
                    "comparison",
                    c.comparisons
                        .iter()
                        .position(|x| std::ptr::eq(x, pair.comparison))
                        .map(|j| format!("/comparisons/{j}")),
                ),
            ];
            for (key, pointer) in parts {
                if let (Some(value), Some(pointer)) = (json.get(key), pointer) {
                    sources.add(value, &pointer);
                }
            }
        }
    }
    for (key, terms) in [
        ("top_trae", &ctx.top_trae),
        ("top_trae_grade3", &ctx.top_trae_grade3),
        ("trae_grade3_terms", &ctx.trae_grade3_terms),
    ] {
        if let Some(Value::Array(items)) = context.get(key) {
            for (json, term) in items.iter().zip(terms) {
                let at = format!("/safety/by_term/{}", term.index);
                if let Some(n) = json.get("n") {
                    sources.add_one(n, format!("{at}/{}", term.count));
                }
                if let Some(name) = json.get("term") {
                    sources.add_one(name, format!("{at}/term"));
                }
                sources.add_one(json, at);
            }
        }
    }
    if let Some(Value::Array(items)) = context.get("categories") {
        for (json, category) in items.iter().zip(&ctx.categories) {
            if let Some(n) = json.get("n") {
                sources.add_one(
                    n,
                    format!(
                        "/response/bor/{}",
                        crate::documents::trace::escape_token(&category.code)
                    ),
                );
            }
        }
    }
    sources
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
        // Anything but a folder: a FIFO or device under a template's name is refused when
        // read, not skipped.
        .filter(|p| !p.is_dir())
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
    let bytes = crate::files::read(path, sandbox::MAX_TEMPLATE_BYTES as u64)
        .map_err(|e| Error::io(path, "cannot read template", e))?
        .unwrap_or_default();
    String::from_utf8(bytes).map_err(|e| {
        Error::io(
            path,
            "cannot read template",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
        )
    })
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

#[cfg(test)]
pub(crate) mod tests;
