//! Writing a cut-off folder (SPEC §6): every file is first assembled in memory, then written
//! into a temporary folder beside the target, which is renamed into place. A cut-off folder
//! therefore appears whole or not at all; an interrupted build leaves only a `.tmp-*` folder,
//! which the next build removes. Only this stage and `load` touch the file system.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::load::sha256_hex;

/// One output file: a path relative to the cut-off folder and its bytes.
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// Relative path with `/` separators, e.g. `cohort-1/abstract.md`.
    pub path: String,
    /// The content.
    pub bytes: Vec<u8>,
}

/// A file in `manifest.json`.
#[derive(Debug, Clone, Serialize)]
pub struct ManifestEntry {
    /// Relative path.
    pub path: String,
    /// Hex SHA-256.
    pub sha256: String,
}

/// Checks a relative output path cannot leave the output folder.
fn safe_relative(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(part) => out.push(part),
            _ => return None,
        }
    }
    Some(out)
}

/// SHA-256 entries of the files, in path order, hashed in parallel (the derived CSVs of a
/// large study are tens of megabytes).
pub fn manifest_entries(files: &[OutputFile]) -> Vec<ManifestEntry> {
    use rayon::prelude::*;
    let mut entries: Vec<ManifestEntry> = files
        .par_iter()
        .map(|f| ManifestEntry {
            path: f.path.clone(),
            sha256: sha256_hex(&f.bytes),
        })
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries
}

/// Writes `files` as the folder `target`, replacing an earlier build of the same folder
/// only once the new one is complete.
pub fn write_folder_atomically(target: &Path, files: &[OutputFile]) -> Result<()> {
    let parent = target
        .parent()
        .ok_or_else(|| Error::Other(format!("{}: has no parent folder", target.display())))?;
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::io(parent, "cannot create output folder", e))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    remove_stale_temporaries(parent, &name);
    let staging = parent.join(format!(".tmp-{name}-{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .map_err(|e| Error::io(&staging, "cannot remove old temporary folder", e))?;
    }
    let result = write_all(&staging, files).and_then(|()| swap_into_place(&staging, target));
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    result
}

fn write_all(staging: &Path, files: &[OutputFile]) -> Result<()> {
    std::fs::create_dir_all(staging)
        .map_err(|e| Error::io(staging, "cannot create output folder", e))?;
    // Folders first, one after the other; then the files in parallel (the first error in
    // file order is reported).
    let mut paths = Vec::with_capacity(files.len());
    let mut seen = std::collections::HashSet::with_capacity(files.len());
    let mut made = std::collections::BTreeSet::new();
    for f in files {
        let rel = safe_relative(&f.path).ok_or_else(|| {
            Error::Other(format!(
                "output path `{}` would leave the output folder; refusing to write it",
                f.path
            ))
        })?;
        let path = staging.join(rel);
        if !seen.insert(path.clone()) {
            // Written in parallel, two files of one path would interleave: never two.
            return Err(Error::Other(format!(
                "two output files have the path `{}`; refusing to write either",
                f.path
            )));
        }
        if let Some(dir) = path.parent() {
            if made.insert(dir.to_path_buf()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::io(dir, "cannot create output folder", e))?;
            }
        }
        paths.push(path);
    }
    use rayon::prelude::*;
    paths
        .par_iter()
        .zip(files)
        .map(|(path, f)| {
            std::fs::write(path, &f.bytes).map_err(|e| Error::io(path, "cannot write", e))
        })
        .collect::<Vec<Result<()>>>()
        .into_iter()
        .collect()
}

fn swap_into_place(staging: &Path, target: &Path) -> Result<()> {
    if target.exists() {
        let old = target.with_file_name(format!(
            ".old-{}-{}",
            target
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default(),
            std::process::id()
        ));
        std::fs::rename(target, &old)
            .map_err(|e| Error::io(target, "cannot replace earlier build", e))?;
        std::fs::rename(staging, target)
            .map_err(|e| Error::io(target, "cannot move build into place", e))?;
        std::fs::remove_dir_all(&old)
            .map_err(|e| Error::io(&old, "cannot remove earlier build", e))?;
    } else {
        std::fs::rename(staging, target)
            .map_err(|e| Error::io(target, "cannot move build into place", e))?;
    }
    Ok(())
}

/// Removes `.tmp-NAME-*` and `.old-NAME-*` folders left by builds that were killed.
fn remove_stale_temporaries(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().to_string();
        let stale = [".tmp-", ".old-"].iter().any(|prefix| {
            file_name
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|pid| pid.chars().all(|c| c.is_ascii_digit()))
        });
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        assert!(safe_relative("../x").is_none());
        assert!(safe_relative("/etc/passwd").is_none());
        assert!(safe_relative("a/../../b").is_none());
        assert!(safe_relative("").is_none());
        assert_eq!(
            safe_relative("cohort-1/figures/km-pfs.svg"),
            Some(PathBuf::from("cohort-1/figures/km-pfs.svg"))
        );
    }

    #[test]
    fn files_are_written_in_parallel_and_a_repeated_path_is_refused() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let file = |path: &str, text: &str| OutputFile {
            path: path.to_string(),
            bytes: text.as_bytes().to_vec(),
        };
        let files: Vec<OutputFile> = (0..50)
            .map(|i| file(&format!("c{}/f{i}.txt", i % 7), &format!("file {i}")))
            .collect();
        let target = tmp.path().join("ok");
        write_folder_atomically(&target, &files).expect("written");
        for i in 0..50 {
            let text = std::fs::read_to_string(target.join(format!("c{}/f{i}.txt", i % 7)));
            assert_eq!(text.expect("read"), format!("file {i}"));
        }
        let twice = [file("a/x.txt", "one"), file("a/x.txt", "two")];
        let target = tmp.path().join("twice");
        let err = write_folder_atomically(&target, &twice).expect_err("refused");
        assert!(
            err.to_string()
                .contains("two output files have the path `a/x.txt`"),
            "{err}"
        );
        assert!(!target.exists());
    }
}
