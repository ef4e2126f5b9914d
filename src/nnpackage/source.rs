//! Where a package's files come from: a directory (paths resolved and kept inside it, symlinks
//! included) or a zip archive (entries found by name, inflated within a budget).

use super::error::{PackageError, PackageErrorKind as Kind, Problem};
use super::path::RelPath;
use super::zip::{Archive, Data};
use super::Limits;
use std::fmt;
use std::format;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::sync::Arc;
use std::vec::Vec;

/// Bytes a [`Loader`] produced: a `Vec<u8>`, a memory map, anything that shows bytes.
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// How the package reads a model file, or the zip archive, from disk: given the resolved
/// path (already checked to lie inside the package), its bytes.
///
/// The default, [`read_file`], copies the file into memory with `std::fs::read`. The library
/// forbids `unsafe`, so it cannot memory-map; a caller that accepts mapping's hazard (another
/// process truncating the file) passes a loader that maps.
pub type Loader = fn(&Path) -> std::io::Result<SharedBytes>;

/// The default [`Loader`]: the whole file, read into memory.
pub fn read_file(path: &Path) -> std::io::Result<SharedBytes> {
    Ok(Arc::new(std::fs::read(path)?))
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
    Dir { root: PathBuf, loader: Loader },
    Zip { bytes: FileBytes, archive: Archive, prefix: String, budget: u64 },
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
        Ok(Source::Dir { root, loader })
    }

    /// The zip archive `path`.
    pub(crate) fn zip(path: &Path, loader: Loader, limits: &Limits) -> Result<Source, PackageError> {
        let bytes = FileBytes::new(loader(path).map_err(|e| io_problem(&e).at(""))?);
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
        let not_found = || Problem::new(Kind::NotFound, format!("file {:?} not found", rel.as_str()));
        match self {
            Source::Dir { root, loader } => {
                let joined = rel.components().fold(root.clone(), |p, c| p.join(c));
                let resolved = std::fs::canonicalize(&joined).map_err(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => not_found(),
                    _ => Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str())),
                })?;
                if !resolved.starts_with(root.as_path()) {
                    return Err(Problem::new(
                        Kind::PathEscapes,
                        format!("file {:?} is a symlink that leads outside the package", rel.as_str()),
                    ));
                }
                let meta = std::fs::metadata(&resolved)
                    .map_err(|e| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str())))?;
                if !meta.is_file() {
                    return Err(Problem::new(Kind::Io, format!("{:?} is not a regular file", rel.as_str())));
                }
                match small {
                    Some(limit) => read_small(&resolved, rel, meta.len(), limit),
                    None => loader(&resolved)
                        .map(FileBytes::new)
                        .map_err(|e| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str()))),
                }
            }
            Source::Zip { bytes, archive, prefix, budget } => {
                let name = format!("{prefix}{}", rel.as_str());
                let limit = small.map_or(*budget, |s| s.min(*budget));
                let size = archive.size_of(&name).ok_or_else(not_found)?;
                if let Some(small) = small.filter(|&s| size > s) {
                    return Err(too_large(rel, size, small));
                }
                let data = archive.extract(bytes.as_bytes(), &name, limit)?.ok_or_else(not_found)?;
                *budget = budget.saturating_sub(size);
                Ok(match data {
                    Data::Stored(range) => bytes.slice(range),
                    Data::Inflated(v) => FileBytes::from_vec(v),
                })
            }
        }
    }
}

fn too_large(rel: &RelPath, size: u64, limit: u64) -> Problem {
    Problem::new(Kind::TooLarge, format!("file {:?} is {size} bytes, more than the limit of {limit}", rel.as_str()))
}

/// Reads a small file, refusing one larger than `limit` (even if it grows while being read).
fn read_small(path: &Path, rel: &RelPath, len: u64, limit: u64) -> Result<FileBytes, Problem> {
    if len > limit {
        return Err(too_large(rel, len, limit));
    }
    let io = |e: std::io::Error| Problem::new(Kind::Io, format!("file {:?}: {e}", rel.as_str()));
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(rel, bytes.len() as u64, limit));
    }
    Ok(FileBytes::from_vec(bytes))
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
