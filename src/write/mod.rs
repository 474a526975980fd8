//! Writing a cut-off folder (docs/ARCHITECTURE.md, "Output"): files are written as they are
//! made (a large derived CSV in pieces) into a temporary folder beside the target, which then
//! takes the target's place. A cut-off folder therefore appears whole or not at all, and the
//! last good build is never removed before the new one is in place:
//!
//! - On Linux the two folders are exchanged in one step (`renameat2(RENAME_EXCHANGE)`), then
//!   the old one is removed; elsewhere (or where the file system cannot exchange) the old
//!   folder is renamed aside to `.old-NAME-PID` first, and a build killed between the two
//!   renames is recovered by the next one, which renames `.old-*` back before anything else.
//! - Builds of one cut-off folder, by any process, take turns: a lock file `.NAME.lock` beside
//!   the folder is held from the first file written to the swap.
//! - A target that is a file, a link, or a folder that no readout build wrote is refused
//!   before anything is moved ([`check_target`]).
//!
//! Only this stage and `load` touch the file system.

pub mod outputs;

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::load::sha256_hex;
use crate::write::outputs::ManifestEntry;

use crate::files::OutputFile;

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

/// Creates a new file for writing at `path`: never an existing file and never through a
/// link (O_EXCL refuses any existing path, a dangling link included), so a path planted in
/// an output tree cannot redirect a write (docs/BAD-INPUT.md).
pub fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Writes `bytes` as the file `path`, replacing what is there in one step: they go to a new
/// temporary file beside it ([`create_new`]), renamed over `path` (a link at `path` is
/// replaced, never followed). Used for the files written outside a cut-off folder (`diff`).
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    // A leftover of a killed run of this process id (or a planted path): removed, not used;
    // remove_file takes a link itself away, never its target.
    if std::fs::symlink_metadata(&tmp).is_ok() {
        std::fs::remove_file(&tmp).map_err(|e| Error::io(&tmp, "cannot remove", e))?;
    }
    let written = create_new(&tmp).and_then(|mut f| f.write_all(bytes));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&tmp, "cannot write", e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, "cannot write", e)
    })
}

/// Where a cut-off folder's files go as the build makes them, hashed for the manifest on the
/// way. In memory (`readout check`, `--strict`, benchmarks), or into a staging folder beside
/// the target (`.tmp-NAME-PID`), written as each cohort is built so that a build holds no
/// more than the cohorts in flight (a cohort of a large study has a derived CSV of tens of
/// MB; 1,000 cohorts with PNG held 1.5 GiB). [`FolderSink::finish`] moves the staging folder
/// into place; a sink dropped unfinished removes it, so the folder appears whole or not at
/// all. Nothing touches the disk before the first file.
pub struct FolderSink {
    /// The target folder; `None` in memory.
    target: Option<PathBuf>,
    state: std::sync::Mutex<SinkState>,
}

#[derive(Default)]
struct SinkState {
    /// The staging folder, once created.
    staging: Option<PathBuf>,
    /// Folders above it that the sink created (deepest first), removed again if the folder
    /// is not finished and they are empty.
    created: Vec<PathBuf>,
    /// Files kept (in memory only).
    files: Vec<OutputFile>,
    /// Paths in the order they came, with their SHA-256.
    entries: Vec<ManifestEntry>,
    seen: std::collections::HashSet<PathBuf>,
    made: std::collections::BTreeSet<PathBuf>,
    /// The lock on the target, held from the staging folder's creation to the swap.
    lock: Option<std::fs::File>,
}

impl FolderSink {
    /// Files kept in memory ([`FolderSink::into_files`]).
    pub fn in_memory() -> FolderSink {
        FolderSink {
            target: None,
            state: Default::default(),
        }
    }

    /// Files written under a staging folder for `target`.
    pub fn staging(target: &Path) -> FolderSink {
        FolderSink {
            target: Some(target.to_path_buf()),
            state: Default::default(),
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, SinkState>> {
        self.state
            .lock()
            .map_err(|_| Error::Internal("an output writer thread stopped".to_string()))
    }

    /// Where the files of `paths` go in the staging folder (created with the first file),
    /// their folders made; `None` each in memory. A path that would leave the folder or that
    /// came before is refused.
    fn claim<'p>(&self, paths: impl Iterator<Item = &'p str>) -> Result<Vec<Option<PathBuf>>> {
        let Some(target) = &self.target else {
            return Ok(paths.map(|_| None).collect());
        };
        let mut state = self.lock()?;
        let staging = match &state.staging {
            Some(staging) => staging.clone(),
            None => {
                let (staging, created, lock) = create_staging(target)?;
                state.staging = Some(staging.clone());
                state.created = created;
                state.lock = Some(lock);
                staging
            }
        };
        let mut claimed = Vec::new();
        for rel in paths {
            let path = staging.join(safe_relative(rel).ok_or_else(|| {
                Error::Other(format!(
                    "output path `{rel}` would leave the output folder; refusing to write it"
                ))
            })?);
            if !state.seen.insert(path.clone()) {
                // Written in parallel, two files of one path would interleave: never two.
                return Err(Error::Other(format!(
                    "two output files have the path `{rel}`; refusing to write either"
                )));
            }
            if let Some(dir) = path.parent() {
                if state.made.insert(dir.to_path_buf()) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| Error::io(dir, "cannot create output folder", e))?;
                }
            }
            claimed.push(Some(path));
        }
        Ok(claimed)
    }

    /// Takes files: hashes them and keeps or writes them (in parallel). A path that would
    /// leave the folder or that came before is refused.
    pub fn put(&self, files: Vec<OutputFile>) -> Result<()> {
        use rayon::prelude::*;
        let paths = self.claim(files.iter().map(|f| f.path.as_str()))?;
        // Hashed and written in parallel; the first error in file order is reported.
        let entries = files
            .par_iter()
            .zip(paths)
            .map(|(f, path)| {
                if let Some(path) = path {
                    use std::io::Write;
                    create_new(&path)
                        .and_then(|mut file| file.write_all(&f.bytes))
                        .map_err(|e| Error::io(&path, "cannot write", e))?;
                }
                Ok(ManifestEntry {
                    path: f.path.clone(),
                    sha256: sha256_hex(&f.bytes),
                })
            })
            .collect::<Vec<Result<ManifestEntry>>>()
            .into_iter()
            .collect::<Result<Vec<_>>>()?;
        let mut state = self.lock()?;
        state.entries.extend(entries);
        if self.target.is_none() {
            state.files.extend(files);
        }
        Ok(())
    }

    /// A file given in pieces ([`FileWriter::write`]), written and hashed as they come: a
    /// large file (the derived CSV of a cohort of millions) is never whole in memory when the
    /// sink writes to disk. It counts as taken once [`FileWriter::finish`]ed.
    pub fn create(&self, path: &str) -> Result<FileWriter<'_>> {
        let file = match self.claim(std::iter::once(path))?.pop().flatten() {
            Some(on_disk) => Some((
                create_new(&on_disk).map_err(|e| Error::io(&on_disk, "cannot write", e))?,
                on_disk,
            )),
            None => None,
        };
        Ok(FileWriter {
            sink: self,
            path: path.to_string(),
            file,
            bytes: Vec::new(),
            hasher: sha2::Sha256::default(),
            failed: false,
        })
    }

    /// The paths taken so far, in the order they came.
    pub fn paths(&self) -> Result<Vec<String>> {
        Ok(self
            .lock()?
            .entries
            .iter()
            .map(|e| e.path.clone())
            .collect())
    }

    /// The manifest entries of the files taken so far, in path order.
    pub fn manifest_entries(&self) -> Result<Vec<ManifestEntry>> {
        let mut entries = self.lock()?.entries.clone();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    /// The files kept (empty for a staging sink).
    pub fn into_files(self) -> Vec<OutputFile> {
        self.state
            .lock()
            .map(|mut state| std::mem::take(&mut state.files))
            .unwrap_or_default()
    }

    /// Moves the staging folder into place as the target, replacing an earlier build of it
    /// (a folder with no files is created empty). Nothing to do in memory.
    pub fn finish(self) -> Result<()> {
        let Some(target) = &self.target else {
            return Ok(());
        };
        let mut state = self.lock()?;
        let staging = match state.staging.take() {
            Some(staging) => staging,
            None => {
                let (staging, _, lock) = create_staging(target)?;
                state.lock = Some(lock);
                staging
            }
        };
        state.created.clear();
        let result = swap_into_place(&staging, target);
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        // Released only now: the next build of this folder starts from the swapped one.
        state.lock = None;
        result
    }
}

/// A file of a [`FolderSink`] written in pieces.
pub struct FileWriter<'s> {
    sink: &'s FolderSink,
    path: String,
    /// The open file in the staging folder, and its path; `None` in memory.
    file: Option<(std::fs::File, PathBuf)>,
    /// The bytes so far (in memory only).
    bytes: Vec<u8>,
    hasher: sha2::Sha256,
    /// A piece failed to be written: the file is not taken.
    failed: bool,
}

impl FileWriter<'_> {
    /// Appends `piece` to the file.
    pub fn write(&mut self, piece: &[u8]) -> Result<()> {
        use sha2::Digest;
        use std::io::Write;
        self.hasher.update(piece);
        match &mut self.file {
            Some((file, path)) => file.write_all(piece).map_err(|e| {
                self.failed = true;
                Error::io(&*path, "cannot write", e)
            }),
            None => {
                self.bytes.extend_from_slice(piece);
                Ok(())
            }
        }
    }

    /// Closes the file: the sink takes it (with its SHA-256 for the manifest). A file a piece
    /// of which failed to be written is refused.
    pub fn finish(self) -> Result<()> {
        use sha2::Digest;
        if self.failed {
            return Err(Error::Other(format!(
                "output file `{}` was not written whole; refusing to list it",
                self.path
            )));
        }
        let entry = ManifestEntry {
            path: self.path.clone(),
            sha256: crate::load::digest_hex(self.hasher.finalize()),
        };
        let mut state = self.sink.lock()?;
        state.entries.push(entry);
        if self.file.is_none() {
            state.files.push(OutputFile {
                path: self.path,
                bytes: self.bytes.into(),
            });
        }
        Ok(())
    }
}

impl Drop for FolderSink {
    fn drop(&mut self) {
        // Unfinished: the partial folder goes.
        if let Ok(state) = self.state.get_mut() {
            if let Some(staging) = state.staging.take() {
                let _ = std::fs::remove_dir_all(staging);
            }
            // A lock file in a folder this build created goes with the folder.
            if let (Some(target), Some(_)) = (&self.target, state.lock.take()) {
                if !state.created.is_empty() {
                    if let Some(name) = target.file_name() {
                        let mut lock = std::ffi::OsString::from(".");
                        lock.push(name);
                        lock.push(".lock");
                        let _ = std::fs::remove_file(target.with_file_name(lock));
                    }
                }
            }
            for dir in &state.created {
                let _ = std::fs::remove_dir(dir); // only if empty
            }
        }
    }
}

/// Whether a build may replace `target`: it is absent, an empty folder, or a folder a
/// readout build wrote (it holds `manifest.json`). A file, a link or another folder is
/// refused and left as it is.
pub fn check_target(target: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A file where a parent folder should be: the folder cannot be made.
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(Error::io(target, "cannot create output folder", e))
        }
        Err(e) => return Err(Error::io(target, "cannot read output folder", e)),
    };
    let refuse = |what: &str| {
        Err(Error::Other(format!(
            "{}: {what}; refusing to replace it with a build (expected no such path, or a \
             folder readout wrote); move it away or choose another --out",
            target.display()
        )))
    };
    if meta.file_type().is_symlink() {
        return refuse("is a symbolic link");
    }
    if !meta.is_dir() {
        return refuse("is a file, not a cut-off folder");
    }
    let empty = std::fs::read_dir(target)
        .map_err(|e| Error::io(target, "cannot read output folder", e))?
        .next()
        .is_none();
    if !empty && !target.join("manifest.json").is_file() {
        return refuse("is a folder that holds no manifest.json, so no readout build wrote it");
    }
    Ok(())
}

/// Before a build of `target`: what killed builds of it left is recovered or removed (under
/// the lock), and a target that may not be replaced is refused ([`check_target`]). Nothing is
/// created where the folder's parent does not exist yet.
pub fn prepare_target(target: &Path) -> Result<()> {
    let Some(parent) = target.parent().filter(|p| p.is_dir()) else {
        return check_target(target);
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let _lock = lock_target(parent, &name)?;
    recover_and_remove_temporaries(parent, &name, target)?;
    check_target(target)
}

/// The lock on cut-off folder `name` in `parent`, held while the returned file is open;
/// waits while another build of the folder holds it.
fn lock_target(parent: &Path, name: &str) -> Result<std::fs::File> {
    let lock_path = parent.join(format!(".{name}.lock"));
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    // Never through a link (a dangling one would create its target) and never waiting on a
    // FIFO: opened without following links and without blocking, then checked to be a file.
    #[cfg(any(
        target_os = "linux",
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd",
        target_os = "openbsd",
        target_os = "netbsd",
        target_os = "dragonfly"
    ))]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(crate::files::O_NOFOLLOW | crate::files::O_NONBLOCK);
    }
    let refuse = |what: &str| {
        Error::Other(format!(
            "{}: {what}; expected the lock file readout keeps beside the cut-off folder \
             (a regular file); remove it",
            lock_path.display()
        ))
    };
    match std::fs::symlink_metadata(&lock_path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(refuse("is a symbolic link")),
        Ok(meta) if !meta.is_file() => return Err(refuse("is not a regular file")),
        _ => {}
    }
    let lock = options
        .open(&lock_path)
        .map_err(|e| Error::io(&lock_path, "cannot create the lock file", e))?;
    let is_file = lock
        .metadata()
        .map_err(|e| Error::io(&lock_path, "cannot read the lock file", e))?
        .is_file();
    if !is_file {
        return Err(refuse("is not a regular file"));
    }
    lock.lock()
        .map_err(|e| Error::io(&lock_path, "cannot lock the output folder", e))?;
    Ok(lock)
}

/// Creates the staging folder for `target` (its parent first) under the lock on `target`,
/// after recovering or removing what killed builds of it left; also the folders above it it
/// had to create, deepest first, and the lock.
fn create_staging(target: &Path) -> Result<(PathBuf, Vec<PathBuf>, std::fs::File)> {
    let parent = target
        .parent()
        .ok_or_else(|| Error::Other(format!("{}: has no parent folder", target.display())))?;
    let created: Vec<PathBuf> = parent
        .ancestors()
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::io(parent, "cannot create output folder", e))?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let lock = lock_target(parent, &name)?;
    recover_and_remove_temporaries(parent, &name, target)?;
    check_target(target)?;
    let staging = parent.join(format!(".tmp-{name}-{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)
            .map_err(|e| Error::io(&staging, "cannot remove old temporary folder", e))?;
    }
    std::fs::create_dir_all(&staging)
        .map_err(|e| Error::io(&staging, "cannot create output folder", e))?;
    Ok((staging, created, lock))
}

/// Writes `files` as the folder `target`, replacing an earlier build of the same folder
/// only once the new one is complete.
pub fn write_folder_atomically(target: &Path, files: Vec<OutputFile>) -> Result<()> {
    let sink = FolderSink::staging(target);
    sink.put(files)?;
    sink.finish()
}

/// Puts the staging folder in the target's place. The earlier build, if any, is removed only
/// once the new one is in place.
fn swap_into_place(staging: &Path, target: &Path) -> Result<()> {
    if std::fs::symlink_metadata(target).is_err() {
        return std::fs::rename(staging, target)
            .map_err(|e| Error::io(target, "cannot move build into place", e));
    }
    if exchange(staging, target) {
        // The staging path now holds the earlier build.
        return std::fs::remove_dir_all(staging)
            .map_err(|e| Error::io(staging, "cannot remove earlier build", e));
    }
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
    if let Err(e) = std::fs::rename(staging, target) {
        // Put the earlier build back rather than leave no folder at all.
        let _ = std::fs::rename(&old, target);
        return Err(Error::io(target, "cannot move build into place", e));
    }
    std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, "cannot remove earlier build", e))
}

/// Exchanges two folders in one step where the system can (Linux's `renameat2` with
/// `RENAME_EXCHANGE`); `false` where it cannot, having changed nothing.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> bool {
    false
}

/// Cleans up after builds of `target` that were killed (called under the lock): an earlier
/// build renamed aside (`.old-NAME-PID`) while the target is missing is renamed back, as the
/// last good build; other `.old-NAME-*` and `.tmp-NAME-*` folders are removed. Those of a
/// readout still running (its staging folder lives while it builds) stay, where the system
/// tells which processes are (`/proc`).
fn recover_and_remove_temporaries(parent: &Path, name: &str, target: &Path) -> Result<()> {
    let proc = Path::new("/proc");
    let running = |pid: &str| {
        pid != std::process::id().to_string() && proc.is_dir() && proc.join(pid).exists()
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Ok(());
    };
    let mut leftovers: Vec<(&str, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().to_string();
        for prefix in [".tmp-", ".old-"] {
            let stale = file_name
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|pid| pid.chars().all(|c| c.is_ascii_digit()) && !running(pid));
            if stale {
                leftovers.push((prefix, entry.path()));
            }
        }
    }
    if std::fs::symlink_metadata(target).is_err() {
        if let Some((_, old)) = leftovers.iter().find(|(prefix, _)| *prefix == ".old-") {
            std::fs::rename(old, target)
                .map_err(|e| Error::io(old, "cannot restore the earlier build", e))?;
        }
    }
    for (_, path) in leftovers {
        if path.exists() {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    Ok(())
}

/// `path` as the file system resolves it, though it may not exist yet: made absolute, its
/// deepest existing ancestor resolved (symbolic links followed, `..` taken after them), the
/// rest appended by name with `.` and `..` applied.
pub fn resolved_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let parts: Vec<std::path::Component> = absolute.components().collect();
    for existing in (1..=parts.len()).rev() {
        let prefix: PathBuf = parts[..existing].iter().collect();
        if let Ok(mut out) = prefix.canonicalize() {
            for part in &parts[existing..] {
                match part {
                    std::path::Component::CurDir => {}
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    other => out.push(other),
                }
            }
            return out;
        }
    }
    absolute
}

/// `path` written relative to the folder `base` (both as the file system resolves them), e.g.
/// `../../data/adsl.csv`: what a manifest records, so that it reads the same wherever the
/// build ran and `verify` finds the files from anywhere.
pub fn relative_path(base: &Path, path: &Path) -> PathBuf {
    let (base, path) = (resolved_path(base), resolved_path(path));
    let common = base
        .components()
        .zip(path.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in base.components().skip(common) {
        out.push("..");
    }
    for part in path.components().skip(common) {
        out.push(part);
    }
    out
}

#[allow(clippy::expect_used)]
#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> OutputFile {
        OutputFile {
            path: path.to_string(),
            bytes: text.as_bytes().to_vec().into(),
        }
    }

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
        let files: Vec<OutputFile> = (0..50)
            .map(|i| file(&format!("c{}/f{i}.txt", i % 7), &format!("file {i}")))
            .collect();
        let target = tmp.path().join("ok");
        write_folder_atomically(&target, files).expect("written");
        for i in 0..50 {
            let text = std::fs::read_to_string(target.join(format!("c{}/f{i}.txt", i % 7)));
            assert_eq!(text.expect("read"), format!("file {i}"));
        }
        let twice = [file("a/x.txt", "one"), file("a/x.txt", "two")];
        let target = tmp.path().join("twice");
        let err = write_folder_atomically(&target, twice.to_vec()).expect_err("refused");
        assert!(
            err.to_string()
                .contains("two output files have the path `a/x.txt`"),
            "{err}"
        );
        assert!(!target.exists());
    }

    /// A staging sink touches nothing before its first file, writes files as they come into
    /// a staging folder beside the target, and moves it into place only when finished; one
    /// dropped unfinished leaves the target (an earlier build) as it was and no staging folder.
    #[test]
    fn a_staging_sink_writes_as_files_come_and_appears_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let out = tmp.path().join("out");
        let target = out.join("cut");
        let listing = |dir: &Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().to_string())
                        .filter(|n| !n.ends_with(".lock"))
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            names
        };

        let sink = FolderSink::staging(&target);
        assert!(!out.exists(), "nothing before the first file");
        sink.put(vec![
            file("c1/a.md", "one"),
            file("c1/figures/k.svg", "<svg/>"),
        ])
        .expect("put");
        let staging = format!(".tmp-cut-{}", std::process::id());
        assert_eq!(
            listing(&out),
            std::slice::from_ref(&staging),
            "written into staging, not the target"
        );
        assert_eq!(
            std::fs::read_to_string(out.join(&staging).join("c1/a.md")).expect("read"),
            "one"
        );
        sink.put(vec![
            file("results.json", "{}"),
            file("manifest.json", "{}"),
        ])
        .expect("put");
        let err = sink
            .put(vec![file("c1/a.md", "again")])
            .expect_err("repeat");
        assert!(
            err.to_string()
                .contains("two output files have the path `c1/a.md`"),
            "{err}"
        );
        let entries = sink.manifest_entries().expect("entries");
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "c1/a.md",
                "c1/figures/k.svg",
                "manifest.json",
                "results.json"
            ]
        );
        assert_eq!(entries[0].sha256, sha256_hex(b"one"));
        sink.finish().expect("finish");
        assert_eq!(listing(&out), ["cut"]);
        assert_eq!(listing(&target), ["c1", "manifest.json", "results.json"]);

        // A second build of the same folder dropped half-way: the first build stays.
        let sink = FolderSink::staging(&target);
        sink.put(vec![file("c1/a.md", "two")]).expect("put");
        assert_eq!(listing(&out).len(), 2, "the target and a staging folder");
        drop(sink);
        assert_eq!(listing(&out), ["cut"]);
        assert_eq!(
            std::fs::read_to_string(target.join("c1/a.md")).expect("read"),
            "one"
        );

        // Dropped unfinished, a sink removes the folders it created for its staging folder.
        let deep = tmp.path().join("new/study/cut");
        let sink = FolderSink::staging(&deep);
        sink.put(vec![file("a.txt", "a")]).expect("put");
        assert!(deep.parent().expect("parent").exists());
        drop(sink);
        assert!(!tmp.path().join("new").exists(), "no empty folders left");

        // A staging folder of a readout that is still running (here pid 1) is not stale; one
        // of a process that is gone is.
        let live = out.join(".tmp-cut-1");
        let gone = out.join(format!(".tmp-cut-{}", u32::MAX));
        std::fs::create_dir_all(&live).expect("mkdir");
        std::fs::create_dir_all(&gone).expect("mkdir");
        let sink = FolderSink::staging(&target);
        sink.put(vec![file("c1/a.md", "three")]).expect("put");
        sink.finish().expect("finish");
        assert_eq!(
            live.exists(),
            Path::new("/proc/1").exists(),
            "a running build's staging folder stays"
        );
        assert!(!gone.exists());
        let _ = std::fs::remove_dir_all(&live);

        // In memory: the files back in the order they came, nothing on disk.
        let sink = FolderSink::in_memory();
        sink.put(vec![file("b.txt", "b"), file("a.txt", "a")])
            .expect("put");
        assert_eq!(sink.paths().expect("paths"), ["b.txt", "a.txt"]);
        let files = sink.into_files();
        assert_eq!(files.len(), 2);
        assert_eq!(&files[1].bytes[..], b"a");
    }

    /// The last good build survives whatever happens to the next: a folder renamed aside by a
    /// build killed between its two renames is renamed back by the next build (even one that
    /// then fails), and a finished build takes the place of the earlier one in one step.
    #[test]
    fn the_last_good_build_is_never_lost() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let target = tmp.path().join("cut");
        let killed = tmp.path().join(format!(".old-cut-{}", u32::MAX));
        std::fs::create_dir_all(&killed).expect("mkdir");
        std::fs::write(killed.join("manifest.json"), "old").expect("write");
        std::fs::create_dir_all(tmp.path().join(format!(".tmp-cut-{}", u32::MAX - 1)))
            .expect("mkdir");

        // A build that fails after its first file: the earlier build is back in place.
        let sink = FolderSink::staging(&target);
        sink.put(vec![file("a.txt", "new")]).expect("put");
        drop(sink);
        assert_eq!(
            std::fs::read_to_string(target.join("manifest.json")).expect("restored"),
            "old"
        );
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        assert_eq!(names, ["cut"], "leftovers removed");

        // A build that finishes replaces it whole; nothing else is left beside it.
        write_folder_atomically(&target, vec![file("manifest.json", "new")]).expect("written");
        assert_eq!(
            std::fs::read_to_string(target.join("manifest.json")).expect("read"),
            "new"
        );
        let names: Vec<String> = std::fs::read_dir(tmp.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(names.len(), 2, "the folder and its lock file: {names:?}");
    }

    /// Only absent paths, empty folders and folders a build wrote may be replaced; a file, a
    /// link or another folder is refused and left as it was.
    #[test]
    fn a_target_that_is_not_a_build_is_refused_and_left_alone() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = |name: &str| tmp.path().join(name);
        std::fs::write(path("file"), "keep me").expect("write");
        std::fs::create_dir_all(path("foreign")).expect("mkdir");
        std::fs::write(path("foreign/notes.txt"), "mine").expect("write");
        std::fs::create_dir_all(path("empty")).expect("mkdir");
        std::fs::create_dir_all(path("built")).expect("mkdir");
        std::fs::write(path("built/manifest.json"), "{}").expect("write");
        for ok in ["absent", "empty", "built"] {
            check_target(&path(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for (name, why) in [("file", "is a file"), ("foreign", "holds no manifest.json")] {
            let err = check_target(&path(name)).expect_err(name).to_string();
            assert!(err.contains(why), "{err}");
            let err = write_folder_atomically(&path(name), vec![file("a.txt", "x")])
                .expect_err(name)
                .to_string();
            assert!(err.contains(why), "{err}");
        }
        assert_eq!(
            std::fs::read_to_string(path("file")).expect("read"),
            "keep me"
        );
        assert_eq!(
            std::fs::read_to_string(path("foreign/notes.txt")).expect("read"),
            "mine"
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(path("built"), path("link")).expect("symlink");
            let err = check_target(&path("link")).expect_err("link").to_string();
            assert!(err.contains("symbolic link"), "{err}");
        }
        let leftovers: Vec<String> = std::fs::read_dir(tmp.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with(".tmp-") || n.starts_with(".old-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    /// Two builds of one folder take turns: the second waits for the first to finish before
    /// it creates its staging folder, then replaces the first's folder.
    #[test]
    fn builds_of_one_folder_take_turns() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let target = tmp.path().join("cut");
        let first = FolderSink::staging(&target);
        first
            .put(vec![file("manifest.json", "first")])
            .expect("put");
        let (started, waiting) = std::sync::mpsc::channel();
        let second = std::thread::spawn({
            let target = target.clone();
            move || {
                let sink = FolderSink::staging(&target);
                started.send(()).expect("send");
                sink.put(vec![file("manifest.json", "second")])
                    .expect("put");
                sink.finish().expect("finish");
            }
        });
        waiting.recv().expect("started");
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!target.exists(), "the second build did not wait");
        first.finish().expect("finish");
        second.join().expect("second build");
        assert_eq!(
            std::fs::read_to_string(target.join("manifest.json")).expect("read"),
            "second"
        );
    }

    /// A file given in pieces is written as they come, hashed whole, and taken once finished;
    /// its path is checked like any other. In memory it comes back whole.
    #[test]
    fn a_file_written_in_pieces_is_hashed_whole_and_its_path_checked() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let target = tmp.path().join("cut");
        let pieces: [&[u8]; 3] = [b"USUBJID,BOR\n", b"S1,PR\n", b"S2,SD\n"];
        for sink in [FolderSink::staging(&target), FolderSink::in_memory()] {
            sink.put(vec![file("c1/a.md", "one")]).expect("put");
            let mut writer = sink.create("derived/c1.csv").expect("create");
            for piece in pieces {
                writer.write(piece).expect("write");
            }
            assert_eq!(sink.paths().expect("paths"), ["c1/a.md"], "not taken yet");
            writer.finish().expect("finish");
            if sink.target.is_some() {
                for (path, refusal) in [
                    ("derived/c1.csv", "two output files have the path"),
                    ("c1/a.md", "two output files have the path"),
                    ("../x.csv", "would leave the output folder"),
                ] {
                    let err = sink.create(path).err().expect("refused").to_string();
                    assert!(err.contains(refusal), "{path}: {err}");
                }
            }
            let entries = sink.manifest_entries().expect("entries");
            assert_eq!(entries[1].path, "derived/c1.csv");
            assert_eq!(entries[1].sha256, sha256_hex(&pieces.concat()));
            if sink.target.is_some() {
                sink.finish().expect("finish");
                let written = std::fs::read(target.join("derived/c1.csv")).expect("read");
                assert_eq!(written, pieces.concat());
            } else {
                let files = sink.into_files();
                assert_eq!(files[1].path, "derived/c1.csv");
                assert_eq!(files[1].bytes[..], pieces.concat());
            }
        }

        // A piece that cannot be written (here: a file open for reading only) fails, and the
        // file is then refused, not listed with the hash of what it should have held.
        let sink = FolderSink::staging(&tmp.path().join("broken"));
        let mut writer = sink.create("derived/c1.csv").expect("create");
        let on_disk = writer.file.take().expect("staging file").1;
        writer.file = Some((std::fs::File::open(&on_disk).expect("open"), on_disk));
        assert!(writer.write(b"USUBJID\n").is_err());
        let err = writer.finish().expect_err("refused");
        assert!(err.to_string().contains("not written whole"), "{err}");
        assert!(sink.manifest_entries().expect("entries").is_empty());
    }
}
