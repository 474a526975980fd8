//! `ard`: a cohort's analysis results data, `<cohort>/ard.csv` (`documents::ard`): one row per
//! statistic of its results.json entry, in the long layout of `cards`.

use super::{CohortDocs, OutputFormat};
use crate::documents::ard;
use crate::error::{Error, Result};
use crate::files::OutputFile;

pub(super) struct Ard;

impl OutputFormat for Ard {
    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let failed = |message: String| Error::Analysis {
            cohort: docs.dir.to_string(),
            message: format!("cannot write ard.csv: {message}"),
        };
        let entry = serde_json::to_value(docs.ctx.cohort).map_err(|e| failed(e.to_string()))?;
        Ok(vec![OutputFile {
            path: format!("{}/ard.csv", docs.dir),
            bytes: ard::ard_csv(&entry).map_err(failed)?,
        }])
    }
}
