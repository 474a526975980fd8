//! Files in and out. In: opening files that may have been tampered with: only regular files,
//! without blocking on a FIFO or device, and (for the files of a cut-off folder) never through
//! a link. Every file readout reads goes through here: the config, data, templates and
//! references ([`open`], [`read`]), and `diff`, `verify` and `write`'s lock file
//! ([`open_regular`]) (docs/BAD-INPUT.md). Out: [`OutputFile`], what the stages hand `write`.

use std::fs::{File, FileType};
use std::path::Path;

/// One output file: a path relative to the cut-off folder and its bytes (made by the figures
/// and documents stages, written by `write`).
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// Relative path with `/` separators, e.g. `cohort-1/abstract.md`.
    pub path: String,
    /// The content.
    pub bytes: FileBytes,
}

/// An output file's content: its own, or shared with the documents that embed it (a figure's
/// PNG is written as a file and put in the Word file and the deck, without a copy).
#[derive(Debug, Clone)]
pub enum FileBytes {
    Owned(Vec<u8>),
    Shared(std::sync::Arc<Vec<u8>>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Owned(bytes) => bytes,
            FileBytes::Shared(bytes) => bytes,
        }
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(bytes: Vec<u8>) -> FileBytes {
        FileBytes::Owned(bytes)
    }
}

impl From<std::sync::Arc<Vec<u8>>> for FileBytes {
    fn from(bytes: std::sync::Arc<Vec<u8>>) -> FileBytes {
        FileBytes::Shared(bytes)
    }
}

/// A file that is neither regular, nor a folder, nor a link, in words.
pub fn special_kind(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_dir() {
        return "a folder";
    }
    "not a regular file"
}

/// `open(2)` flags: `O_NOFOLLOW` (the last part of the path may not be a link) and
/// `O_NONBLOCK` (a FIFO does not wait for a writer), from rustix on Linux.
#[cfg(target_os = "linux")]
pub(crate) const O_NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
#[cfg(target_os = "linux")]
pub(crate) const O_NONBLOCK: i32 = rustix::fs::OFlags::NONBLOCK.bits() as i32;
/// The same flags on macOS and the BSDs, which share these values.
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
pub(crate) const O_NOFOLLOW: i32 = 0x0100;
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
pub(crate) const O_NONBLOCK: i32 = 0x0004;

/// Opens `path` for reading without blocking (and, unless `follow`, without following a
/// link at its end), and returns it only when it is a regular file, both before it is opened
/// and (`fstat`) once it is, so nothing is read from a FIFO or device, even one put in its
/// place meanwhile. The error says what it is instead.
pub fn open_regular(path: &Path, follow: bool) -> std::result::Result<File, String> {
    open_checked(path, follow).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => e.to_string(),
        _ => format!("cannot be read: {e}"),
    })
}

/// Opens an input file (config, data, template, reference) for reading: a regular file,
/// links followed, never blocking on a FIFO or device. A path that is not a regular file is
/// an `InvalidInput` error saying what it is, so callers name file and key as for any read
/// error.
pub fn open(path: &Path) -> std::io::Result<File> {
    open_checked(path, true)
}

/// An input file's bytes ([`open`]), at most `max` of them: `Ok(None)` when it is longer.
pub fn read(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = open(path)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, max.saturating_add(1)),
        &mut bytes,
    )?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// The check of [`open_regular`]; what is not a regular file is `InvalidInput`.
fn open_checked(path: &Path, follow: bool) -> std::io::Result<File> {
    let not_regular = |t: FileType| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {}; expected a regular file", special_kind(t)),
        )
    };
    // Looked at first, so that a device is not even opened (opening some has effects).
    let seen = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }?;
    if !seen.is_file() {
        return Err(not_regular(seen.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
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
        options.custom_flags(O_NONBLOCK | if follow { 0 } else { O_NOFOLLOW });
    }
    let _ = follow;
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok(file)
}

#[allow(clippy::unwrap_used)]
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A FIFO given where a file is expected is refused at once, not waited on.
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("adsl.csv");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let e = open(&fifo).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(read(&fifo, 10).unwrap_err().to_string().contains("FIFO"));
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "abc").unwrap();
        assert_eq!(read(&file, 3).unwrap().unwrap(), b"abc");
        assert_eq!(read(&file, 2).unwrap(), None);
        let e = open(dir.path()).unwrap_err();
        assert!(e.to_string().contains("is a folder"), "{e}");
    }
}
