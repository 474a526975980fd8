//! `ard`: a cohort's analysis results data, `<cohort>/ard.csv` (`documents::ard`): one row per
//! statistic of its results.json entry, in the long layout of `cards`; with `dataset-json`
//! also `<cohort>/ard.json`, the same rows as CDISC Dataset-JSON.

use super::{CohortDocs, OutputFormat};
use crate::documents::ard;
use crate::error::{Error, Result};
use crate::files::OutputFile;

pub(super) struct Ard {
    /// With `dataset-json` among the formats: `ard.json` beside `ard.csv`.
    pub(super) dataset_json: bool,
}

impl OutputFormat for Ard {
    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let failed = |message: String| Error::Analysis {
            cohort: docs.dir.to_string(),
            message: format!("cannot write the analysis results data: {message}"),
        };
        let entry = serde_json::to_value(docs.ctx.cohort).map_err(|e| failed(e.to_string()))?;
        let rows = ard::ard_rows(&entry);
        let mut files = vec![OutputFile {
            path: format!("{}/ard.csv", docs.dir),
            bytes: ard::ard_csv(&rows).map_err(failed)?.into(),
        }];
        if self.dataset_json {
            let as_of = docs
                .ctx
                .cohort
                .cutoff
                .map_or_else(|| "1960-01-01".to_string(), |d| d.to_string());
            files.push(OutputFile {
                path: format!("{}/ard.json", docs.dir),
                bytes: ard::ard_dataset_json(&rows, &docs.ctx.study.id, &as_of)
                    .map_err(failed)?
                    .into(),
            });
        }
        Ok(files)
    }
}
