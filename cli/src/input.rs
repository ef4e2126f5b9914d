//! Reading input files: by default read whole into memory as one consistent snapshot, so a
//! file changed while a command runs cannot change the bytes it verified nor end it with a
//! signal; with `--mmap`, memory-mapped, so nothing is copied, on the caller's word that the
//! file does not change meanwhile.

use crate::status::Failure;
use std::ffi::OsStr;
use std::fs::File;

/// How a command reads its input files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Read into memory ([`flatmodel::snapshot::read_file`]): a file written while it is read
    /// is read again, then refused.
    #[default]
    Read,
    /// Memory-mapped (`--mmap`): no copy and no read ahead of use, for files too large to hold
    /// in memory. The caller upholds that nothing truncates or rewrites the file while the
    /// command runs: a truncated file's pages end the process with `SIGBUS`.
    Map,
}

/// A file's bytes, read or mapped.
pub enum Input {
    /// Read into memory.
    Read(Memory),
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// An empty file (which cannot be mapped).
    Empty,
}

impl Input {
    /// Reads or maps `path`.
    pub fn open(path: &OsStr, access: Access) -> Result<Input, Failure> {
        let name = path.to_string_lossy();
        let file = File::open(path).map_err(|e| Failure::new(format!("{name}: {e}")))?;
        Input::of(&file, &name, access).map_err(|e| Failure::new(format!("{name}: {e}")))
    }

    /// Reads or maps `file`, opened already (an nnpackage opens its files inside the package);
    /// `name` says which file in messages.
    pub fn of(file: &File, name: &str, access: Access) -> std::io::Result<Input> {
        match access {
            Access::Read => Memory::read_file(file).map(Input::Read).map_err(|e| match e.kind() {
                std::io::ErrorKind::OutOfMemory => std::io::Error::other(format!("{e}: --mmap maps it instead")),
                _ => e,
            }),
            Access::Map => Input::map(file, name),
        }
    }

    fn map(file: &File, name: &str) -> std::io::Result<Input> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{name}: not a regular file")));
        }
        if meta.len() == 0 {
            return Ok(Input::Empty);
        }
        // SAFETY: `Mmap::map` is unsafe because the bytes behind a mapping can change, or (the
        // file truncated) become unreadable, while the process holds it. The mapping is
        // read-only and private; it is made only with `--mmap`, whose documentation (`help`,
        // the README) states the condition the caller upholds: nothing truncates or rewrites
        // the file while the command runs. Under that condition the slice is as stable as a
        // `Vec`'s. This is the command line's one `unsafe`.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }?;
        Ok(Input::Mapped(map))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Read(memory) => memory.as_ref(),
            Input::Mapped(m) => m,
            Input::Empty => &[],
        }
    }
}

/// Fills `bytes`, zero already, with the first `bytes.len()` bytes of `file`, reading only its
/// data: where the file system tells where a sparse file's holes are (Linux's `SEEK_DATA` and
/// `SEEK_HOLE`), the holes, which read as zeros, are not read at all. A file of gigabytes of
/// holes (a test's sparse 4 GiB `.litertlm`) then reads in the time and memory of its data.
/// Elsewhere, or where the file system says nothing, the whole range is read. A file shorter
/// than `bytes` fails with `UnexpectedEof` (the snapshot then reads it again).
fn fill_skipping_holes(mut file: &File, bytes: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let mut at = 0;
    while at < len {
        let Some((data, hole)) = next_data(file, at, len) else {
            // Holes to the end, as long as the file is still as long as the buffer.
            if file.metadata()?.len() < len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            break;
        };
        let range = usize::try_from(data).ok().zip(usize::try_from(hole).ok());
        let Some(part) = range.and_then(|(data, hole)| bytes.get_mut(data..hole)) else { break };
        file.seek(SeekFrom::Start(data))?;
        file.read_exact(part)?;
        at = hole;
    }
    Ok(())
}

/// The next range of `file`'s data at or after `at`, cut at `len`: `Some((at, len))` (read it
/// all) where holes cannot be found, `None` when only holes remain before `len`.
fn next_data(file: &File, at: u64, len: u64) -> Option<(u64, u64)> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{seek, SeekFrom};
        let data = match seek(file, SeekFrom::Data(at)) {
            Ok(data) if data >= len => return None,
            Ok(data) => data,
            // No data at or after `at`.
            Err(rustix::io::Errno::NXIO) => return None,
            Err(_) => return Some((at, len)),
        };
        // Every file ends with a hole (its end), so a hole is found past any data.
        let hole = seek(file, SeekFrom::Hole(data)).map_or(len, |hole| hole.clamp(data.saturating_add(1), len));
        Some((data, hole))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        Some((at, len))
    }
}

/// Files this large or larger are read into huge pages ([`Memory::Huge`]).
const HUGE_PAGE: usize = 2 << 20;

/// Memory a file is read into.
///
/// Writing fresh memory costs a page fault per page: on Linux, reading 100 MB into a `Vec`
/// takes about 55 ms, two thirds of it faults. A file of [`HUGE_PAGE`] bytes or more goes
/// instead into an anonymous mapping (process memory, not the file: it cannot change or
/// vanish) aligned to 2 MiB and advised to use transparent huge pages, which fault 512 times
/// less often: about 20 ms for the same file (where the system gives huge pages on advice).
pub enum Memory {
    /// A small file's bytes.
    Small(Vec<u8>),
    /// A large file's bytes: `map[start..start + len]`, `start` aligned to [`HUGE_PAGE`].
    Huge {
        /// The anonymous mapping, [`HUGE_PAGE`] longer than the file.
        map: memmap2::MmapMut,
        /// Where the file's bytes start in it.
        start: usize,
        /// How many they are.
        len: usize,
    },
}

impl Memory {
    /// The regular file at `path`, read whole as one consistent snapshot
    /// ([`flatmodel::snapshot::read_file_with`]): a file written while it is read is read again,
    /// then refused; nothing is mapped from the file, so nothing changes under a view and no
    /// signal can end the process. (The Python package reads paths so.)
    pub fn read(path: &std::path::Path) -> std::io::Result<Memory> {
        Memory::read_file(&File::open(path)?)
    }

    /// [`Memory::read`] of a file opened already. The memory starts zeroed, so only the file's
    /// data is read: a sparse file's holes are skipped ([`fill_skipping_holes`]), and the pages
    /// under them stay untouched, taking no memory.
    fn read_file(file: &File) -> std::io::Result<Memory> {
        flatmodel::snapshot::read_file_with(file, u64::MAX, Memory::new, fill_skipping_holes)
    }

    /// Zeroed memory for `len` bytes.
    fn new(len: usize) -> std::io::Result<Memory> {
        if len < HUGE_PAGE {
            return Ok(Memory::Small(vec![0; len]));
        }
        let map = memmap2::MmapOptions::new().len(len.saturating_add(HUGE_PAGE)).map_anon()?;
        let misaligned = map.as_ptr().addr() % HUGE_PAGE;
        let start = (HUGE_PAGE - misaligned) % HUGE_PAGE;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage); // advice: without it, ordinary pages
        Ok(Memory::Huge { map, start, len })
    }
}

/// How the bytes are held and how many, not the bytes.
impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            Input::Read(_) => "Read",
            Input::Mapped(_) => "Mapped",
            Input::Empty => "Empty",
        };
        f.debug_struct("Input").field("how", &how).field("len", &self.bytes().len()).finish()
    }
}

/// Where the bytes are and how many, not the bytes.
impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            Memory::Small(_) => "Small",
            Memory::Huge { .. } => "Huge",
        };
        f.debug_struct("Memory").field("how", &how).field("len", &self.as_ref().len()).finish()
    }
}

impl AsRef<[u8]> for Memory {
    fn as_ref(&self) -> &[u8] {
        match self {
            Memory::Small(bytes) => bytes,
            Memory::Huge { map, start, len } => map.get(*start..start.saturating_add(*len)).unwrap_or_default(),
        }
    }
}

impl AsMut<[u8]> for Memory {
    fn as_mut(&mut self) -> &mut [u8] {
        match self {
            Memory::Small(bytes) => bytes,
            Memory::Huge { map, start, len } => map.get_mut(*start..start.saturating_add(*len)).unwrap_or_default(),
        }
    }
}
