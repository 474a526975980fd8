//! `pptx`: a congress deck per cohort, `<cohort>/slides.pptx` (`documents::slides`), on the
//! company template of `output.pptx_reference` or readout's own.

use super::{CohortDocs, Needs, OutputFormat};
use crate::documents::slides::{self as deck, SlideTemplate};
use crate::error::Result;
use crate::files::OutputFile;

pub(super) struct Slides;

impl OutputFormat for Slides {
    fn needs(&self) -> Needs {
        Needs {
            pngs: true,
            wide_figures: true,
            ..Needs::default()
        }
    }

    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let (text, template) = words_and_template(docs, "slides.txt")?;
        Ok(vec![OutputFile {
            path: format!("{}/slides.pptx", docs.dir),
            bytes: deck::deck(&docs.ctx, &text, &template, docs.dir)?.into(),
        }])
    }
}

/// A PowerPoint file's words (`name` rendered, with the abstract's sentences by section) and
/// its template: the company's, else readout's own.
pub(super) fn words_and_template(
    docs: &mut CohortDocs<'_>,
    name: &str,
) -> Result<(String, std::sync::Arc<SlideTemplate>)> {
    docs.ctx.sentences = crate::documents::paragraph_sentences(&docs.plain, &docs.ctx.headings);
    let text = docs.renderer.render(name, &docs.ctx)?;
    let template = match &docs.assets.pptx_template {
        Some(t) => t.clone(),
        None => std::sync::Arc::new(SlideTemplate::house()),
    };
    Ok((text, template))
}
