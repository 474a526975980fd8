//! `readout lint FILE...`: every count and percentage of an abstract checked against itself.

use std::io::Read;

use super::*;

use crate::documents::lint::MAX_TEXT_BYTES;

/// `readout lint`: each file's disagreeing pairs, one line each (the first
/// [`crate::documents::lint::MAX_LISTED`], then how many more); exit 1 when there are any.
pub(super) fn lint_command(files: &[PathBuf]) -> Result<ExitCode> {
    let mut total = 0;
    for path in files {
        let text = read_text(path)?;
        let found = crate::documents::lint::check_proportions(&text);
        for line in found.lines() {
            outln!("{}: {line}", path.display());
        }
        total += found.count;
    }
    if total == 0 {
        outln!("every count agrees with its percentage");
        Ok(ExitCode::SUCCESS)
    } else {
        errln!("{total} count(s) disagree with their percentage");
        Ok(ExitCode::from(1))
    }
}

/// A text to check, of at most [`MAX_TEXT_BYTES`] (read through a limit, so a device that
/// never ends, such as `/dev/zero`, is refused too), as UTF-8.
fn read_text(path: &Path) -> Result<String> {
    let cannot = |e| Error::io(path, "cannot read the abstract", e);
    let file = crate::files::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(Error::data_file(
            path,
            format!(
                "larger than {} MiB; expected an abstract's text (a few kB)",
                MAX_TEXT_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::data_file(
            path,
            format!(
                "not UTF-8 text (byte {}); save the file as UTF-8",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}
