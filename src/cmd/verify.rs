//! `readout verify DIR`: the folder's files against its manifest.

use super::*;

/// Runs `readout verify`: exit 1 when a file changed since the build.
pub(super) fn verify_command(dir: &Path) -> Result<ExitCode> {
    let problems = crate::verify::verify_folder(dir)?;
    if problems.is_empty() {
        outln!("{}: every file matches manifest.json", dir.display());
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            outln!("{p}");
        }
        errln!(
            "{}: {} file(s) changed since the build",
            dir.display(),
            problems.len()
        );
        Ok(ExitCode::from(1))
    }
}
