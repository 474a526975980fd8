//! Opening files that may have been tampered with: only regular files, without blocking on
//! a FIFO or device, and (for the files of a cut-off folder) never through a link. Used by
//! `diff`, `verify`, and `write` for its lock file (docs/BAD-INPUT.md).

use std::fs::{File, FileType};
use std::path::Path;

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
    // Looked at first, so that a device is not even opened (opening some has effects).
    let seen = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    let seen = seen.map_err(|e| format!("cannot be read: {e}"))?;
    if !seen.is_file() {
        return Err(format!(
            "is {}; expected a regular file",
            special_kind(seen.file_type())
        ));
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
    let file = options
        .open(path)
        .map_err(|e| format!("cannot be read: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "is {}; expected a regular file",
            special_kind(meta.file_type())
        ));
    }
    Ok(file)
}
