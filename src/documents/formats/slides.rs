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
        docs.ctx.sentences = crate::documents::paragraph_sentences(&docs.plain, &docs.ctx.headings);
        let text = docs.renderer.render("slides.txt", &docs.ctx)?;
        let house;
        let template = match &docs.assets.pptx_template {
            Some(t) => t.as_ref(),
            None => {
                house = SlideTemplate::house();
                &house
            }
        };
        Ok(vec![OutputFile {
            path: format!("{}/slides.pptx", docs.dir),
            bytes: deck::deck(&docs.ctx, &text, template, docs.dir)?,
        }])
    }
}
