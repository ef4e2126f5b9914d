//! Reading input files: memory-mapped, so nothing is copied.

use crate::Failure;
use std::ffi::OsStr;
use std::fs::File;

/// A file's bytes, mapped read-only (or empty).
pub enum Input {
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// An empty file (which cannot be mapped).
    Empty,
}

impl Input {
    /// Maps `path`.
    pub fn open(path: &OsStr) -> Result<Input, Failure> {
        let name = path.to_string_lossy();
        let file = File::open(path).map_err(|e| Failure::new(format!("{name}: {e}")))?;
        Input::map(&file, &name)
    }

    /// Maps `file`, opened already (an nnpackage opens its files inside the package); `name`
    /// says which file in messages.
    pub fn map(file: &File, name: &str) -> Result<Input, Failure> {
        let len = file.metadata().map_err(|e| Failure::new(format!("{name}: {e}")))?.len();
        if len == 0 {
            return Ok(Input::Empty);
        }
        // SAFETY: the mapping is read-only and private to this process; flatmodel never trusts
        // the bytes (it verifies them first), so the only hazard is another process truncating
        // the file while it is mapped, which would end this short-lived process with SIGBUS,
        // not corrupt memory it relies on. This is the crate's one `unsafe`.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| Failure::new(format!("{name}: {e}")))?;
        Ok(Input::Mapped(map))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m) => m,
            Input::Empty => &[],
        }
    }
}
