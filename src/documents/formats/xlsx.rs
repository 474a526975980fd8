//! `xlsx`: the report's tables as an Excel workbook, `<cohort>/tables.xlsx`
//! (`documents::xlsx`): one sheet per table, numbers as numbers.

use super::{CohortDocs, OutputFormat};
use crate::documents::xlsx;
use crate::error::{Error, Result};
use crate::files::OutputFile;

pub(super) struct Xlsx;

impl OutputFormat for Xlsx {
    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let bytes = xlsx::tables_xlsx(&docs.ctx.report, docs.ctx.cohort.cutoff).map_err(|e| {
            Error::Analysis {
                cohort: docs.dir.to_string(),
                message: format!("cannot write tables.xlsx: {e}"),
            }
        })?;
        Ok(vec![OutputFile {
            path: format!("{}/tables.xlsx", docs.dir),
            bytes: bytes.into(),
        }])
    }
}
