//! `--cold`: a file's pages dropped from the operating system's page cache before each run of
//! the open stage, so that it reads from the device, where the system allows it.

use serde::Serialize;
use std::ffi::OsStr;

/// What `--cold` could do for a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cold {
    /// The kernel was asked to drop the file's cached pages before each run, and accepted
    /// (Linux: `posix_fadvise(POSIX_FADV_DONTNEED)` after `fdatasync`, so no page stays dirty).
    Evicted,
    /// This system offers no way to evict one file's pages, or refused for this file: the
    /// runs read whatever the cache held.
    Unsupported,
}

/// Drops the cached pages of the file at `path` (before an open stage's run): what was done.
pub fn evict(path: &OsStr) -> Cold {
    match std::fs::File::open(path) {
        Ok(file) => evict_file(&file),
        Err(_) => Cold::Unsupported,
    }
}

#[cfg(target_os = "linux")]
fn evict_file(file: &std::fs::File) -> Cold {
    // Dirty pages are not dropped: write them first (a file just written, as tests make).
    let _ = file.sync_data();
    match rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed) {
        Ok(()) => Cold::Evicted,
        Err(_) => Cold::Unsupported,
    }
}

#[cfg(not(target_os = "linux"))]
fn evict_file(_file: &std::fs::File) -> Cold {
    Cold::Unsupported
}
