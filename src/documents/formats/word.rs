//! `docx`: the abstract and the report as Word files (`documents::docx`), in the styles of
//! `output.docx_reference` when given.

use super::{CohortDocs, Needs, OutputFormat};
use crate::documents::docx;
use crate::error::Result;
use crate::files::OutputFile;

pub(super) struct Word;

impl OutputFormat for Word {
    fn needs(&self) -> Needs {
        Needs {
            pngs: true,
            ..Needs::default()
        }
    }

    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let styles = docs.assets.docx_styles.as_deref();
        Ok(vec![
            OutputFile {
                path: format!("{}/abstract.docx", docs.dir),
                bytes: docx::abstract_docx(&docs.plain, docs.dir, styles)?.into(),
            },
            OutputFile {
                path: format!("{}/report.docx", docs.dir),
                bytes: docx::report_docx(&docs.ctx, docs.dir, styles, &docs.assets.docx_running)?
                    .into(),
            },
        ])
    }
}
