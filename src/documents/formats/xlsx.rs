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
        let cut = xlsx::cut_tables(&docs.ctx.report);
        if !cut.is_empty() {
            docs.warnings.push(crate::diagnostic::Diagnostic::warning(
                crate::diagnostic::Kind::ListShortened,
                format!(
                    "tables.xlsx: a text of more than 32,767 characters (Excel's most in a cell) \
                     is cut with an ellipsis in {} (the report keeps it whole)",
                    cut.join("; ")
                ),
            ));
        }
        Ok(vec![OutputFile {
            path: format!("{}/tables.xlsx", docs.dir),
            bytes: bytes.into(),
        }])
    }
}
