//! Reading a file whole into memory as one consistent snapshot (`std`).
//!
//! Views borrow the bytes they were verified over, so those bytes must not change while the
//! views live. A memory-mapped file can change under them (another process rewrites it) or
//! vanish (a truncated file's mapped pages end the process with `SIGBUS`); bytes read into
//! memory cannot. [`read_file`] reads a regular file into a `Vec<u8>` and checks that the file
//! did not change while it was read: its length, inode and modification and status-change
//! times are the same before and after, and the bytes read are as many as its length. A file
//! written meanwhile is read again, [`TRIES`] times at the most, then refused.
//!
//! Reading is cheap next to verification's guarantees: on the machine the project measures
//! on, a 100 MB file from the page cache reads in a few tens of milliseconds.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::vec::Vec;

/// How many times [`read_file`] reads a file that keeps changing before it gives up.
pub const TRIES: usize = 3;

/// What identifies a file's state: a file whose stamp is the same before and after a read
/// was not written while it was read (as far as the file system's clock can tell).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64),
    #[cfg(unix)]
    changed: (i64, i64),
}

impl Stamp {
    fn of(meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: (meta.dev(), meta.ino()),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// The whole of `file`, a regular file opened for reading, as one consistent snapshot: read
/// from its start, and read again when it changed meanwhile.
///
/// Errors (`io::Error`, its kind):
/// - `InvalidInput`: `file` is not a regular file (a pipe, a device, a directory), whose
///   length cannot be known before it is read.
/// - `FileTooLarge`: it is longer than `limit` bytes.
/// - `OutOfMemory`: its length cannot be allocated.
/// - `Other`: it changed while it was read, [`TRIES`] times in a row.
/// - any error of reading or seeking the file.
pub fn read_file(file: &File, limit: u64) -> io::Result<Vec<u8>> {
    read_file_into(file, limit, |len| {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(len).map_err(|_| too_large_for_memory(u64::try_from(len).unwrap_or(u64::MAX)))?;
        // `read_exact` fills a slice: the zeros are written first (a caller that wants to spare
        // that pass gives `read_file_into` memory that is zero already, as the command line does).
        bytes.resize(len, 0);
        Ok(bytes)
    })
}

/// [`read_file`] into a buffer of the caller's: `buffer(len)` gives one of exactly `len`
/// bytes for each try (memory laid out as the caller wants it, for example in huge pages).
pub fn read_file_into<B: AsMut<[u8]>>(
    file: &File,
    limit: u64,
    buffer: impl FnMut(usize) -> io::Result<B>,
) -> io::Result<B> {
    read_file_with(file, limit, buffer, read_from_start)
}

/// [`read_file_into`], the buffer filled by `fill(file, bytes)` instead of one read of the
/// whole file: it fills `bytes` with the file's first `bytes.len()` bytes, or fails with
/// `UnexpectedEof` when the file is shorter. A caller whose buffers are zero already can skip
/// what it knows reads as zeros, such as a sparse file's holes (the command line does). The
/// same checks follow: nothing past the end, and the file's stamp unchanged.
pub fn read_file_with<B: AsMut<[u8]>>(
    mut file: &File,
    limit: u64,
    mut buffer: impl FnMut(usize) -> io::Result<B>,
    mut fill: impl FnMut(&File, &mut [u8]) -> io::Result<()>,
) -> io::Result<B> {
    for _ in 0..TRIES {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a pipe, a device or a directory)",
            ));
        }
        let before = Stamp::of(&meta);
        if before.len > limit {
            let message = std::format!("{} bytes, more than the limit of {limit}", before.len);
            return Err(io::Error::new(io::ErrorKind::FileTooLarge, message));
        }
        let len = usize::try_from(before.len).map_err(|_| too_large_for_memory(before.len))?;
        let mut bytes = buffer(len)?;
        if bytes.as_mut().len() != len {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "the buffer is not of the file's length"));
        }
        let whole = match fill(file, bytes.as_mut()) {
            // Shorter than it was: truncated meanwhile.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => false,
            Err(e) => return Err(e),
            // Longer than it was: grown meanwhile.
            Ok(()) => {
                file.seek(SeekFrom::Start(before.len))?;
                file.read(&mut [0u8; 1])? == 0
            }
        };
        if whole && before == Stamp::of(&file.metadata()?) {
            return Ok(bytes);
        }
    }
    Err(io::Error::other(std::format!("the file changed while it was read, {TRIES} times in a row")))
}

/// Fills `bytes` with the file's first bytes, in one read from its start.
fn read_from_start(mut file: &File, bytes: &mut [u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(bytes)
}

fn too_large_for_memory(len: u64) -> io::Error {
    io::Error::new(io::ErrorKind::OutOfMemory, std::format!("{len} bytes cannot be held in memory"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str, bytes: &[u8]) -> (std::path::PathBuf, File) {
        let path = std::env::temp_dir().join(std::format!("flatmodel-snapshot-{}-{name}", std::process::id()));
        File::create(&path).and_then(|mut f| f.write_all(bytes)).ok();
        let file = File::open(&path).ok();
        (path, file.unwrap_or_else(|| panic!("cannot reopen the temporary file")))
    }

    #[test]
    fn reads_the_whole_file_from_its_start_whatever_the_position() {
        let (path, file) = temp("whole", b"0123456789");
        let mut first = [0u8; 4];
        (&file).read_exact(&mut first).ok();
        assert_eq!(read_file(&file, 10).ok().as_deref(), Some(b"0123456789".as_slice()));
        assert_eq!(read_file(&file, 9).map_err(|e| e.kind()), Err(io::ErrorKind::FileTooLarge));
        std::fs::remove_file(path).ok();
    }

    #[test]
    fn an_empty_file_is_empty_and_a_directory_is_refused() {
        let (path, file) = temp("empty", b"");
        assert_eq!(read_file(&file, 0).ok(), Some(Vec::new()));
        std::fs::remove_file(path).ok();
        let dir = File::open(std::env::temp_dir());
        let dir = dir.unwrap_or_else(|e| panic!("the temporary directory opens: {e}"));
        assert_eq!(read_file(&dir, u64::MAX).map_err(|e| e.kind()), Err(io::ErrorKind::InvalidInput));
    }
}
