//! The associated files tflite-support packs with a TFLite model (labels, vocabularies): a zip
//! archive appended after the model, its offsets counted from the start of the file. Read with
//! the package's zip reader; the model itself does not depend on it, so a corrupt archive is a
//! warning on a valid model and an error only for what reads a file out of it.

use super::error::PackageError;
use super::zip::{Archive, Data};
use std::borrow::Cow;

/// The most entries an appended archive may list.
const MAX_ENTRIES: usize = 4096;

/// Where the error of an appended archive is located.
const AT: &str = "associated files";

/// The archive of associated files appended to a model's bytes.
pub struct AssociatedFiles<'a> {
    file: &'a [u8],
    archive: Archive,
}

/// The model's length and the archive's file count, not their bytes.
impl std::fmt::Debug for AssociatedFiles<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssociatedFiles").field("len", &self.file.len()).field("files", &self.names().count()).finish()
    }
}

impl<'a> AssociatedFiles<'a> {
    /// The archive appended to `file` (a whole TFLite file): `Ok(None)` when the file does not
    /// end with a zip archive's end record, an error when it does but the archive is corrupt.
    /// Reads the central directory only (linear in its size).
    pub fn read(file: &'a [u8]) -> Result<Option<Self>, PackageError> {
        let archive = Archive::read_appended(file, MAX_ENTRIES).map_err(|p| p.at(AT))?;
        Ok(archive.map(|archive| AssociatedFiles { file, archive }))
    }

    /// The bytes the archive takes: from its first entry's local header (or its central
    /// directory, when it has none) to the end of the file. The model's own bytes lie before.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.archive.start()..self.file.len()
    }

    /// The files' names, in archive order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.archive.names()
    }

    /// The declared size of file `name`.
    pub fn size_of(&self, name: &str) -> Option<u64> {
        self.archive.size_of(name)
    }

    /// The bytes of file `name`, checked against its CRC-32: borrowed when stored, inflated
    /// (to at most `limit` bytes) when deflated; `Ok(None)` when there is no such file.
    pub fn extract(&self, name: &str, limit: u64) -> Result<Option<Cow<'a, [u8]>>, PackageError> {
        let at = || std::format!("{AT}: {name}");
        match self.archive.extract(self.file, name, limit).map_err(|p| p.at(at()))? {
            None => Ok(None),
            Some(Data::Inflated(bytes)) => Ok(Some(Cow::Owned(bytes))),
            Some(Data::Stored(range)) => match self.file.get(range) {
                Some(bytes) => Ok(Some(Cow::Borrowed(bytes))),
                None => Err(PackageError::new(super::PackageErrorKind::Zip, at(), "entry data past the file")),
            },
        }
    }
}
