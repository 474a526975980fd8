//! `poster`: a congress poster per cohort, `<cohort>/poster.pptx` (`documents::slides::poster`),
//! from `poster.txt`, at the poster size of `output.poster` or the congress, on the company
//! template of `output.pptx_reference` or readout's own.

use super::{CohortDocs, Needs, OutputFormat};
use crate::documents::slides::poster;
use crate::error::Result;
use crate::files::OutputFile;

pub(super) struct Poster;

impl OutputFormat for Poster {
    fn needs(&self) -> Needs {
        Needs {
            pngs: true,
            ..Needs::default()
        }
    }

    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let (text, template) = super::slides::words_and_template(docs, "poster.txt")?;
        let bytes = poster::poster(
            &docs.ctx,
            &text,
            &template,
            &docs.assets.poster,
            docs.dir,
            &mut docs.warnings,
        )?;
        Ok(vec![OutputFile {
            path: format!("{}/poster.pptx", docs.dir),
            bytes: bytes.into(),
        }])
    }
}
