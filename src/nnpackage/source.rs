//! Where a package's files come from: a directory (paths resolved and kept inside it, symlinks
//! included) or a zip archive (entries found by name, inflated within a budget).
//!
//! A directory's files are opened through a handle on the package directory (`cap-std`), which
//! resolves each path component by component beneath it: a symlink swapped in after a check
//! cannot lead the open outside the package, and what is read is the file that was opened.

use super::error::{PackageError, PackageErrorKind as Kind, Problem};
use super::path::RelPath;
use super::zip::{Archive, Data};
use super::Limits;
use crate::wire::to_u64;
use std::fmt;
use std::format;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

/// Bytes a [`Loader`] produced: a `Vec<u8>`, a memory map, anything that shows bytes.
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// How the package reads a model file, or the zip archive: given the file, opened read-only
/// (inside the package, for a directory's files), its bytes.
///
/// The default, [`read_file`], copies the file into memory. The library forbids `unsafe`, so
/// it cannot memory-map; a caller that accepts mapping's hazard (another process truncating
/// the file) passes a loader that maps.
pub type Loader = fn(File) -> std::io::Result<SharedBytes>;

/// The default [`Loader`]: the whole file, read into memory as one consistent snapshot
/// ([`crate::snapshot::read_file`]: read again, then refused, when it changes meanwhile).
pub fn read_file(file: File) -> std::io::Result<SharedBytes> {
    Ok(Arc::new(crate::snapshot::read_file(&file, u64::MAX)?))
}

/// The bytes of one file of a package: the whole of what a [`Loader`] produced, a stored zip
/// entry's range of the archive, or an inflated zip entry.
#[derive(Clone)]
pub struct FileBytes {
    whole: SharedBytes,
    range: Range<usize>,
}

impl FileBytes {
    /// All of `whole`.
    pub fn new(whole: SharedBytes) -> Self {
        let len = (*whole).as_ref().len();
        FileBytes { whole, range: 0..len }
    }

    /// Bytes held in a vector.
    pub fn from_vec(bytes: Vec<u8>) -> Self {
        FileBytes::new(Arc::new(bytes))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        (*self.whole).as_ref().get(self.range.clone()).unwrap_or(&[])
    }

    /// `range` of these bytes, sharing them (no copy); `None` when it lies outside them.
    pub fn range(&self, range: Range<usize>) -> Option<FileBytes> {
        let inside = range.start <= range.end && range.end <= self.as_bytes().len();
        inside.then(|| self.slice(range))
    }

    /// `range` of these bytes, sharing them (empty when out of range).
    fn slice(&self, range: Range<usize>) -> FileBytes {
        let start = self.range.start.checked_add(range.start);
        let end = self.range.start.checked_add(range.end);
        match (start, end) {
            (Some(s), Some(e)) if s <= e && e <= self.range.end => FileBytes { whole: self.whole.clone(), range: s..e },
            _ => FileBytes::from_vec(Vec::new()),
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FileBytes({} bytes)", self.as_bytes().len())
    }
}

/// The container a package was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// A directory holding `metadata/MANIFEST`.
    Directory,
    /// A zip archive of such a directory (its files at the root, or under one folder).
    Zip,
}

/// The files of an open package.
pub(crate) enum Source {
    /// A directory: its resolved path (for messages) and a handle that opens files beneath it.
    Dir {
        root: PathBuf,
        dir: cap_std::fs::Dir,
        loader: Loader,
    },
    Zip {
        bytes: FileBytes,
        archive: Archive,
        prefix: String,
        budget: u64,
    },
}

fn io_problem(e: &std::io::Error) -> Problem {
    match e.kind() {
        std::io::ErrorKind::NotFound => Problem::new(Kind::NotFound, "not found"),
        _ => Problem::new(Kind::Io, e.to_string()),
    }
}

impl Source {
    /// The directory `path` (resolved through symlinks once, here).
    pub(crate) fn dir(path: &Path, loader: Loader) -> Result<Source, PackageError> {
        let root = std::fs::canonicalize(path).map_err(|e| io_problem(&e).at(""))?;
        let dir = cap_std::fs::Dir::open_ambient_dir(&root, cap_std::ambient_authority())
            .map_err(|e| io_problem(&e).at(""))?;
        Ok(Source::Dir { root, dir, loader })
    }

    /// The zip archive `path`.
    pub(crate) fn zip(path: &Path, loader: Loader, limits: &Limits) -> Result<Source, PackageError> {
        let file = File::open(path).map_err(|e| io_problem(&e).at(""))?;
        let bytes = FileBytes::new(loader(file).map_err(|e| io_problem(&e).at(""))?);
        Source::zip_bytes(bytes, limits)
    }

    /// The zip archive `bytes`.
    pub(crate) fn zip_bytes(bytes: FileBytes, limits: &Limits) -> Result<Source, PackageError> {
        let archive = Archive::read(bytes.as_bytes(), limits.max_zip_entries).map_err(|p| p.at(""))?;
        let prefix = package_root(&archive).map_err(|p| p.at(""))?;
        Ok(Source::Zip { bytes, archive, prefix, budget: limits.max_zip_bytes })
    }

    /// What kind of container this is.
    pub(crate) fn container(&self) -> Container {
        match self {
            Source::Dir { .. } => Container::Directory,
            Source::Zip { .. } => Container::Zip,
        }
    }

    /// The file `rel`. With `small`, a file larger than that is refused before it is read
    /// (the MANIFEST, a config file); without, it is read with the loader.
    pub(crate) fn read(&mut self, rel: &RelPath, small: Option<u64>) -> Result<FileBytes, Problem> {
        match self {
            Source::Dir { root, dir, loader } => {
                let (file, len) = open_in(root, dir, rel)?;
                match small {
                    Some(limit) => read_small(file, rel, len, limit),
                    None => loader(file)
                        .map(FileBytes::new)
                        .map_err(|e| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str()))),
                }
            }
            Source::Zip { bytes, archive, prefix, budget } => {
                let name = format!("{prefix}{}", rel.as_str());
                let limit = small.map_or(*budget, |s| s.min(*budget));
                let size = archive.size_of(&name).ok_or_else(|| not_found(rel))?;
                if let Some(small) = small.filter(|&s| size > s) {
                    return Err(too_large(rel, size, small));
                }
                let data = archive.extract(bytes.as_bytes(), &name, limit)?.ok_or_else(|| not_found(rel))?;
                *budget = budget.saturating_sub(size);
                Ok(match data {
                    Data::Stored(range) => bytes.slice(range),
                    Data::Inflated(v) => FileBytes::from_vec(v),
                })
            }
        }
    }

    /// Whether the package holds the regular file `rel`, by the same rules as
    /// [`Source::read`], without reading it: `Ok` when it does, else why not.
    pub(crate) fn check_file(&self, rel: &RelPath) -> Result<(), Problem> {
        match self {
            Source::Dir { root, dir, .. } => open_in(root, dir, rel).map(drop),
            Source::Zip { archive, prefix, .. } => {
                archive.size_of(&format!("{prefix}{}", rel.as_str())).map(drop).ok_or_else(|| not_found(rel))
            }
        }
    }
}

/// The problem of a file `rel` the package does not hold.
fn not_found(rel: &RelPath) -> Problem {
    Problem::new(Kind::NotFound, format!("file {:?} not found", rel.as_str()))
}

/// Opens the regular file `rel` beneath `dir` (the package directory, resolved at `root`):
/// the file and its length.
fn open_in(root: &Path, dir: &cap_std::fs::Dir, rel: &RelPath) -> Result<(File, u64), Problem> {
    let io = |e: std::io::Error| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str()));
    let escapes = || {
        Problem::new(Kind::PathEscapes, format!("file {:?} is a symlink that leads outside the package", rel.as_str()))
    };
    // Opened beneath the package's handle, which resolves the path one component at a time
    // and refuses any that leads out: no check-then-open window to race.
    let inside = rel.components().collect::<PathBuf>();
    let file = match dir.open_with(&inside, &read_only()) {
        Ok(file) => file.into_std(),
        Err(e) => {
            // Why, for the message: how the host resolves the path now.
            let joined = rel.components().fold(root.to_path_buf(), |p, c| p.join(c));
            let outside = std::fs::canonicalize(&joined).is_ok_and(|r| !r.starts_with(root));
            return Err(match e.kind() {
                std::io::ErrorKind::NotFound => not_found(rel),
                _ if outside => escapes(),
                // Refused by the handle itself (no OS error): an absolute symlink.
                std::io::ErrorKind::PermissionDenied if e.raw_os_error().is_none() => escapes(),
                _ => io(e),
            });
        }
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(Problem::new(Kind::Io, format!("{:?} is not a regular file", rel.as_str())));
    }
    Ok((file, meta.len()))
}

/// Read-only, and on Unix non-blocking: a FIFO or device planted in the package opens at once
/// (and is then refused as not a regular file) instead of blocking the open.
fn read_only() -> cap_std::fs::OpenOptions {
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options
}

fn too_large(rel: &RelPath, size: u64, limit: u64) -> Problem {
    Problem::new(Kind::TooLarge, format!("file {:?} is {size} bytes, more than the limit of {limit}", rel.as_str()))
}

/// Reads a small file, refusing one larger than `limit` (even if it grows while being read).
fn read_small(file: File, rel: &RelPath, len: u64, limit: u64) -> Result<FileBytes, Problem> {
    if len > limit {
        return Err(too_large(rel, len, limit));
    }
    let io = |e: std::io::Error| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str()));
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if to_u64(bytes.len()) > limit {
        return Err(too_large(rel, to_u64(bytes.len()), limit));
    }
    Ok(FileBytes::from_vec(bytes))
}

/// Whether `archive` holds an nnpackage: a `metadata/MANIFEST` at its root or in a top-level
/// folder (the places [`package_root`] looks). A zip archive that does not is a model bundle
/// ([`crate::bundle`]).
pub(crate) fn holds_package(archive: &Archive) -> bool {
    let suffix = format!("/{}", super::MANIFEST);
    archive.contains(super::MANIFEST)
        || archive.names().filter_map(|n| n.strip_suffix(suffix.as_str())).any(|dir| !dir.contains('/'))
}

/// Where the package lies in the archive: `""` when `metadata/MANIFEST` is at the root, or
/// `"dir/"` when it is `dir/metadata/MANIFEST` for exactly one top-level `dir` (archives made
/// by zipping the package's folder).
fn package_root(archive: &Archive) -> Result<String, Problem> {
    if archive.contains(super::MANIFEST) {
        return Ok(String::new());
    }
    let suffix = format!("/{}", super::MANIFEST);
    let nested: Vec<&str> =
        archive.names().filter_map(|n| n.strip_suffix(suffix.as_str())).filter(|dir| !dir.contains('/')).collect();
    match nested.as_slice() {
        [] => Ok(String::new()),
        [dir] => Ok(format!("{dir}/")),
        many => Err(Problem::new(
            Kind::Zip,
            format!(
                "zip archive: {} folders hold a metadata/MANIFEST ({}); which is the package?",
                many.len(),
                many.join(", ")
            ),
        )),
    }
}
