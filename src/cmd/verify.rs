//! `readout verify DIR`: the folder's files against its manifest.

use super::*;

/// Runs `readout verify`: exit 1 when a listed file changed, vanished or is not a regular
/// file, or the folder holds a file the manifest does not list.
pub(super) fn verify_command(dir: &Path) -> Result<ExitCode> {
    let problems = crate::review::verify::verify_folder(dir)?;
    if problems.is_empty() {
        outln!(
            "{}: every file matches manifest.json, and it lists every file",
            dir.display()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            outln!("{p}");
        }
        errln!(
            "{}: {} problem(s): the folder is not as the build wrote it (manifest.json)",
            dir.display(),
            problems.len()
        );
        Ok(ExitCode::from(1))
    }
}
