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
            Access::Read => {
                flatmodel::snapshot::read_file_into(file, u64::MAX, Memory::new).map(Input::Read).map_err(|e| {
                    match e.kind() {
                        std::io::ErrorKind::OutOfMemory => {
                            std::io::Error::other(format!("{e}: --mmap maps it instead"))
                        }
                        _ => e,
                    }
                })
            }
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
    /// ([`flatmodel::snapshot::read_file_into`]): a file written while it is read is read again,
    /// then refused; nothing is mapped from the file, so nothing changes under a view and no
    /// signal can end the process. (The Python package reads paths so.)
    pub fn read(path: &std::path::Path) -> std::io::Result<Memory> {
        let file = File::open(path)?;
        flatmodel::snapshot::read_file_into(&file, u64::MAX, Memory::new)
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
