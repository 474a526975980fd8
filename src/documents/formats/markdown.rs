//! `md`: the abstract as Markdown, `<cohort>/abstract.md`.

use super::{CohortDocs, OutputFormat};
use crate::error::Result;
use crate::files::OutputFile;

pub(super) struct Markdown;

impl OutputFormat for Markdown {
    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        Ok(vec![OutputFile {
            path: format!("{}/abstract.md", docs.dir),
            bytes: docs.markdown.clone().into_bytes().into(),
        }])
    }
}
