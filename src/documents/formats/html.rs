//! `html`: the abstract and the report as self-contained HTML (`<cohort>/abstract.html`, with
//! its numbers' sources, pointing into the cohort's place in results.json;
//! `<cohort>/report.html`), and the cut-off folder's `index.html`.

use super::{CohortDocs, Needs, OutputFormat};
use crate::documents::render;
use crate::error::Result;
use crate::files::OutputFile;

pub(super) struct Html;

impl OutputFormat for Html {
    fn needs(&self) -> Needs {
        Needs {
            index: true,
            ..Needs::default()
        }
    }

    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let renderer = docs.renderer;
        docs.ctx.body = render::markdown_to_html(&docs.markdown, false);
        let html = renderer.finish_html(renderer.render("abstract.html", &docs.ctx)?);
        let sources = crate::profile::timing::stage("  html sources", || {
            crate::documents::traced_html(
                renderer,
                &mut docs.ctx,
                &docs.markdown,
                &html,
                &mut docs.warnings,
            )
        })?;
        docs.numbers.html = Some(sources);
        docs.ctx.body = render::markdown_to_html(&docs.markdown, false);
        Ok(vec![OutputFile {
            path: format!("{}/report.html", docs.dir),
            bytes: renderer
                .finish_html(renderer.render("report.html", &docs.ctx)?)
                .into_bytes()
                .into(),
        }])
    }
}
