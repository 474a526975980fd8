//! The documents of one cohort (abstract.md, abstract.html, ...): builds the template context
//! from the results and the config texts, renders the templates, and returns the files.

use crate::config::{Analysis, CohortConfig, Format, LoadedConfig};
use crate::endpoints::CohortResults;
use crate::error::Result;
use crate::render::{self, CohortTexts, DocumentContext, Renderer};
use crate::write::OutputFile;

/// The abstract in every requested format.
pub fn render_documents(
    cfg: &LoadedConfig,
    cohort: &CohortConfig,
    results: &CohortResults,
    analysis: &Analysis,
    figures: &[render::Figure],
    renderer: &Renderer,
    formats: &[Format],
) -> Result<Vec<OutputFile>> {
    let study = &cfg.config.study;
    let text_of = |what: &str, text: &Option<String>| -> Result<String> {
        match text {
            Some(t) => renderer
                .render_text(
                    &format!("cohorts.{}.{what}", cohort.id),
                    t,
                    study,
                    results,
                    analysis,
                )
                .map(|s| s.trim().to_string()),
            None => Ok(String::new()),
        }
    };
    let label = results.label.clone();
    let texts = CohortTexts {
        title: match &cohort.title {
            Some(t) => text_of("title", &Some(t.clone()))?,
            None => match &study.title {
                Some(st) => format!("{st}: {label}"),
                None => format!("{}: {label}", study.id),
            },
        },
        population: cohort.population.clone().unwrap_or(label),
        background: text_of("background", &cohort.background)?,
        methods: text_of("methods", &cohort.methods)?,
        conclusions: text_of("conclusions", &cohort.conclusions)?,
    };
    let mut ctx = DocumentContext {
        study,
        cohort: results,
        analysis,
        text: texts,
        methods_statistics: render::methods_statistics(analysis),
        figures: figures.to_vec(),
        top_trae: render::top_terms(results, 2, |t| t.trae_any),
        top_trae_grade3: render::top_terms(results, 1, |t| t.trae_grade3plus),
        body: String::new(),
    };
    let markdown = renderer.render("abstract.md", &ctx)?;
    let markdown = tidy_markdown(&markdown);
    let mut files = Vec::new();
    let dir = &cohort.id;
    if formats.contains(&Format::Md) {
        files.push(OutputFile {
            path: format!("{dir}/abstract.md"),
            bytes: markdown.clone().into_bytes(),
        });
    }
    if formats.contains(&Format::Html) {
        ctx.body = render::markdown_to_html(&markdown, false);
        files.push(OutputFile {
            path: format!("{dir}/abstract.html"),
            bytes: renderer.render("abstract.html", &ctx)?.into_bytes(),
        });
    }
    Ok(files)
}

/// Collapses the blank runs templates leave, and ends with one newline.
fn tidy_markdown(text: &str) -> String {
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
