//! `readout verify DIR`: recomputes the SHA-256 of every file a cut-off folder's
//! `manifest.json` lists (outputs, inputs, config), and walks the folder for what the
//! manifest does not list. Only regular files are read, hashed as a stream: outputs are
//! relative paths inside the folder, opened without following links (a link in the folder is
//! reported, never followed); every file is opened without blocking and checked to be a
//! regular file before it is read (a FIFO or a device is reported, never read).
//! docs/OUTPUTS.md, docs/BAD-INPUT.md.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, FileType};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::write::outputs::Manifest;

/// The largest `manifest.json` read (a build's is a few kB per cohort).
pub const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// What a path in the folder is, as the walk found it (links are not followed).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    File,
    Folder,
    Link,
    /// A FIFO, socket or device, in words.
    Other(&'static str),
}

fn kind_of(t: FileType) -> Kind {
    if t.is_symlink() {
        return Kind::Link;
    }
    if t.is_dir() {
        return Kind::Folder;
    }
    if t.is_file() {
        return Kind::File;
    }
    Kind::Other(crate::files::special_kind(t))
}

/// The SHA-256 of what `file` holds, read in pieces.
fn sha256_of(mut file: File, buffer: &mut [u8]) -> std::io::Result<String> {
    let mut hasher = Sha256::default();
    loop {
        match file.read(buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(crate::load::digest_hex(hasher.finalize()))
}

/// Hashes the regular file at `path` and reports it when it is not one, cannot be read or
/// does not have the manifest's hash.
fn check(
    label: &str,
    path: &Path,
    follow: bool,
    expected: &str,
    buffer: &mut [u8],
    problems: &mut Vec<String>,
) {
    let hashed = crate::files::open_regular(path, follow)
        .and_then(|file| sha256_of(file, buffer).map_err(|e| format!("cannot be read: {e}")));
    match hashed {
        Ok(actual) if actual != expected => problems.push(format!(
            "{label} {} changed: SHA-256 {actual}, manifest has {expected}",
            path.display()
        )),
        Ok(_) => {}
        Err(why) => problems.push(format!("{label} {} {why}", path.display())),
    }
}

/// The manifest's output path as a path inside the folder: relative, parts separated by
/// `/`, none of them empty, `.` or `..`.
fn inside(path: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return None;
        }
        out.push(part);
    }
    out.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then_some(out)
}

/// Everything under `dir` by its path relative to it, links not followed; a folder that
/// cannot be listed is a problem.
fn walk(dir: &Path, problems: &mut Vec<String>) -> BTreeMap<PathBuf, Kind> {
    let mut found = BTreeMap::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(folder) = folders.pop() {
        let path = dir.join(&folder);
        let entries = match std::fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) => {
                problems.push(format!("folder {} cannot be read: {e}", path.display()));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    problems.push(format!("folder {} cannot be read: {e}", path.display()));
                    break;
                }
            };
            let relative = folder.join(entry.file_name());
            let kind = match entry.file_type() {
                Ok(t) => kind_of(t),
                Err(e) => {
                    problems.push(format!(
                        "{} cannot be read: {e}",
                        dir.join(&relative).display()
                    ));
                    continue;
                }
            };
            if kind == Kind::Folder {
                folders.push(relative.clone());
            }
            found.insert(relative, kind);
        }
    }
    found
}

/// ` (to TARGET)` for a link, when it can be read.
fn link_target(path: &Path) -> String {
    std::fs::read_link(path)
        .map(|target| format!(" (to {})", target.display()))
        .unwrap_or_default()
}

/// Why a listed output the walk did not find is not there: a folder on its way that is a
/// link or no folder, or nothing at all.
fn why_missing(dir: &Path, relative: &Path, walked: &BTreeMap<PathBuf, Kind>) -> String {
    let path = dir.join(relative);
    let mut ancestors: Vec<&Path> = relative
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .collect();
    ancestors.reverse();
    for ancestor in ancestors {
        let on_the_way = dir.join(ancestor);
        match walked.get(ancestor) {
            Some(Kind::Link) => {
                return format!(
                    "output {} cannot be reached: {} on its way is a symbolic link{}, which is \
                     not followed; expected a folder",
                    path.display(),
                    on_the_way.display(),
                    link_target(&on_the_way)
                )
            }
            Some(Kind::File | Kind::Other(_)) => {
                return format!(
                    "output {} cannot be reached: {} on its way is not a folder",
                    path.display(),
                    on_the_way.display()
                )
            }
            Some(Kind::Folder) | None => {}
        }
    }
    format!(
        "output {} is missing; manifest.json lists it",
        path.display()
    )
}

/// `manifest.json` of `dir`: a regular file (not a link, FIFO or device) of at most
/// [`MAX_MANIFEST_BYTES`].
fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join("manifest.json");
    let file = crate::files::open_regular(&path, false).map_err(|why| {
        Error::data_file(&path, format!("{why}: the manifest `readout build` writes"))
    })?;
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(&path, "cannot read manifest", e))?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(Error::data_file(
            &path,
            format!(
                "larger than {} MiB; expected the manifest `readout build` writes",
                MAX_MANIFEST_BYTES >> 20
            ),
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::data_file(
            &path,
            format!("not a readout manifest ({e}); expected the output of `readout build`"),
        )
    })
}

/// Returns one line per problem (empty: all match): a listed file that changed, is missing,
/// is a link or not a regular file; an output path outside the folder; and every file, link
/// or other entry of the folder the manifest does not list (`manifest.json` aside). Input
/// and config paths are relative to the folder (older manifests: to where the build ran),
/// and may be links (they live outside the folder), but must lead to regular files.
pub fn verify_folder(dir: &Path) -> Result<Vec<String>> {
    let manifest = read_manifest(dir)?;
    let mut problems = Vec::new();
    let mut walk_problems = Vec::new();
    let walked = walk(dir, &mut walk_problems);
    let mut buffer = vec![0u8; 1 << 16];
    let mut listed = HashSet::new();
    for entry in &manifest.outputs {
        let Some(relative) = inside(&entry.path) else {
            problems.push(format!(
                "output path `{}` is not inside the folder; expected a relative path such as \
                 `all/abstract.txt`, without `..`",
                entry.path
            ));
            continue;
        };
        let path = dir.join(&relative);
        match walked.get(&relative) {
            Some(Kind::File) => check(
                "output",
                &path,
                false,
                &entry.sha256,
                &mut buffer,
                &mut problems,
            ),
            Some(Kind::Link) => problems.push(format!(
                "output {} is a symbolic link{}, which is not followed; expected the regular \
                 file the build wrote",
                path.display(),
                link_target(&path)
            )),
            Some(Kind::Folder) => problems.push(format!(
                "output {} is a folder; expected the regular file the build wrote",
                path.display()
            )),
            Some(Kind::Other(what)) => problems.push(format!(
                "output {} is {what}; expected the regular file the build wrote",
                path.display()
            )),
            None => problems.push(why_missing(dir, &relative, &walked)),
        }
        listed.insert(relative);
    }
    let source = |path: &str| match manifest.paths_relative_to.as_deref() {
        Some(_) => dir.join(path),
        None => Path::new(path).to_path_buf(),
    };
    for entry in &manifest.inputs {
        check(
            "input",
            &source(&entry.path),
            true,
            &entry.sha256,
            &mut buffer,
            &mut problems,
        );
    }
    check(
        "config",
        &source(&manifest.config.path),
        true,
        &manifest.config.sha256,
        &mut buffer,
        &mut problems,
    );
    problems.extend(walk_problems);
    for (relative, kind) in &walked {
        if *kind == Kind::Folder
            || listed.contains(relative)
            || relative.as_os_str() == "manifest.json"
        {
            continue;
        }
        let path = dir.join(relative);
        problems.push(match kind {
            Kind::Link => format!(
                "{} is a symbolic link{} that manifest.json does not list; expected only the \
                 files the build wrote (not followed)",
                path.display(),
                link_target(&path)
            ),
            Kind::Other(what) => format!(
                "{} is {what} that manifest.json does not list; expected only the files the \
                 build wrote",
                path.display()
            ),
            Kind::File | Kind::Folder => format!(
                "{} is not listed in manifest.json; expected only the files the build wrote \
                 (added after the build?)",
                path.display()
            ),
        });
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relative_paths_inside_the_folder_are_outputs() {
        assert_eq!(
            inside("all/abstract.txt"),
            Some(PathBuf::from("all/abstract.txt"))
        );
        for path in [
            "/etc/passwd",
            "../x",
            "all/../../x",
            "./x",
            "a//b",
            "",
            "a/",
            "/dev/zero",
        ] {
            assert_eq!(inside(path), None, "{path}");
        }
    }
}
