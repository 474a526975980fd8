//! `readout diff BEFORE AFTER`: what changed from one cut-off folder to the next.

use super::*;

/// Where a diff's files were written.
pub(super) fn print_written(paths: &[PathBuf]) {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    errln!("diff written to {}", names.join(", "));
}

/// Runs `readout diff`: prints the report and says where its files went.
pub(super) fn diff_command(before: &Path, after: &Path) -> Result<ExitCode> {
    let report = crate::review::diff::diff_folders(before, after)?;
    print!("{}", escape_controls(&report.markdown, true));
    print_written(&report.written);
    Ok(ExitCode::SUCCESS)
}
