//! `readout lint FILE...`: every count and percentage of an abstract checked against itself.

use super::*;

/// `readout lint`: each file's disagreeing pairs, one line each; exit 1 when there are any.
pub(super) fn lint_command(files: &[PathBuf]) -> Result<ExitCode> {
    let mut total = 0;
    for path in files {
        let bytes =
            std::fs::read(path).map_err(|e| Error::io(path, "cannot read the abstract", e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::data_file(
                path,
                format!(
                    "not UTF-8 text (byte {}); save the file as UTF-8",
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        let found = crate::lint::check_proportions(&text);
        for d in &found {
            outln!("{}: {d}", path.display());
        }
        total += found.len();
    }
    if total == 0 {
        outln!("every count agrees with its percentage");
        Ok(ExitCode::SUCCESS)
    } else {
        errln!("{total} count(s) disagree with their percentage");
        Ok(ExitCode::from(1))
    }
}
