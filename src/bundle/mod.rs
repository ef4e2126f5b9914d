//! Model bundles: zip archives of models that are not nnpackages, such as MediaPipe's `.task`
//! files (a hand landmarker's detector and landmark models; an LLM's prefill/decode and
//! embedder models beside its tokenizer and metadata) or a zip of `.tflite` files.
//!
//! A bundle is recognised by its content ([`is_bundle`]): the bytes start as a zip archive, no
//! model format claims them, and its central directory holds no `metadata/MANIFEST` (that is
//! an [`nnpackage`](crate::nnpackage)). File names play no part, in the archive's name or in
//! its members': each member's format is what [`crate::detect`] sees in its bytes.
//!
//! [`Bundle::read`] reads the archive with the nnpackage's zip reader, under its
//! [`Limits`]: at most `max_zip_entries` entries, every entry's name a path that stays inside
//! the archive, each entry checked against its CRC-32, and all the entries' declared sizes
//! together at most `max_zip_bytes` (a stored entry counts as a deflated one does). A stored
//! member is a view into the archive's bytes, never copied; a deflated one is inflated to at
//! most its declared size. Each member a format claims is then verified in full by that format
//! ([`crate::File::parse`]: structure and rules), its offsets counted from the member's first
//! byte, so a TFLite member's `Buffer.offset` data lies in the member. A member no format
//! claims is listed with its size, unverified; a member that fails its format's verification
//! fails the bundle, the error naming the member and the byte, in the member and in the
//! archive.

mod member;

pub use member::{Member, Storage};

use crate::nnpackage::zip::{Archive, Data, MAGIC};
use crate::nnpackage::{holds_package, Limits, PackageError, PackageErrorKind as Kind};
use crate::{Error, File, Format};
use std::borrow::Cow;
use std::format;
use std::string::String;
use std::vec::Vec;

/// The bytes an empty zip archive starts with (its end-of-central-directory record).
const EMPTY_MAGIC: [u8; 4] = [b'P', b'K', 5, 6];

/// Whether `bytes` are a model bundle: they start as a zip archive (`PK\x03\x04`, or
/// `PK\x05\x06` for an empty one), no model format claims them (a TFLite model with a zip of
/// associated files appended starts `TFL3`-identified and stays a TFLite model), and their
/// central directory, read under [`Limits::DEFAULT`], holds no `metadata/MANIFEST`. An archive
/// whose central directory does not read is no bundle: the nnpackage reader reports why.
pub fn is_bundle(bytes: &[u8]) -> bool {
    let zip = bytes.starts_with(&MAGIC) || bytes.starts_with(&EMPTY_MAGIC);
    zip && crate::detect(bytes).is_none()
        && Archive::read(bytes, Limits::DEFAULT.max_zip_entries).is_ok_and(|archive| !holds_package(&archive))
}

/// A model bundle whose every member was read and each model member verified.
#[derive(Clone, Debug)]
pub struct Bundle<'a> {
    archive: &'a [u8],
    members: Vec<Member<'a>>,
}

impl<'a> Bundle<'a> {
    /// Reads the zip archive `archive` as a bundle under `limits` and verifies each member a
    /// format claims. Errors: the zip reader's ([`Kind::Zip`], [`Kind::TooLarge`] past a
    /// limit, [`Kind::PathEscapes`]); [`Kind::NotABundle`] for an nnpackage's archive;
    /// [`Kind::Model`] for a member that fails verification, at the member's name, with its
    /// [`Error`] as [`PackageError::model`].
    pub fn read(archive: &'a [u8], limits: &Limits) -> Result<Bundle<'a>, PackageError> {
        let zip = Archive::read(archive, limits.max_zip_entries).map_err(|p| p.at(""))?;
        if holds_package(&zip) {
            return Err(PackageError::new(
                Kind::NotABundle,
                "",
                "an nnpackage (it holds metadata/MANIFEST), not a model bundle",
            ));
        }
        let mut budget = limits.max_zip_bytes;
        let mut members = Vec::new();
        for name in zip.names() {
            let member = read_member(archive, &zip, name, budget)?;
            budget = budget.saturating_sub(crate::wire::to_u64(member.size()));
            if let Some(format) = member.format {
                File::parse(member.bytes()).map_err(|e| invalid_member(&member, format, e))?;
            }
            members.push(member);
        }
        Ok(Bundle { archive, members })
    }

    /// The archive's bytes.
    pub fn archive(&self) -> &'a [u8] {
        self.archive
    }

    /// The members, in archive order.
    pub fn members(&self) -> &[Member<'a>] {
        &self.members
    }

    /// The verified view of member `index`, when a format claims it. [`Bundle::read`] verified
    /// it in full, so a TFLite or Circle member is not verified again; the other formats are
    /// parsed again (their views are not kept). `None` for an index past the members or a
    /// member no format claims.
    pub fn member_file(&self, index: usize) -> Option<Result<File<'_>, Error>> {
        let member = self.members.get(index)?;
        let format = member.format?;
        let bytes = member.bytes();
        Some(File::reread(bytes, format).map_or_else(|| File::parse(bytes), Ok))
    }
}

/// Entry `name` of `zip` (read from `archive`), its declared size at most `budget`, and the
/// format its bytes show.
fn read_member<'a>(archive: &'a [u8], zip: &Archive, name: &str, budget: u64) -> Result<Member<'a>, PackageError> {
    let missing = || PackageError::new(Kind::Zip, name, "listed in the central directory but not read");
    let (bytes, storage) = match zip.extract(archive, name, budget).map_err(|p| p.at(""))?.ok_or_else(missing)? {
        Data::Stored(range) => {
            let offset = crate::wire::to_u64(range.start);
            (Cow::Borrowed(archive.get(range).ok_or_else(missing)?), Storage::Stored { offset })
        }
        Data::Inflated(bytes) => {
            (Cow::Owned(bytes), Storage::Deflated { compressed: zip.compressed_size_of(name).unwrap_or(0) })
        }
    };
    let format = crate::detect(&bytes);
    Ok(Member { name: String::from(name), bytes, storage, format })
}

/// The error of `member`, which `format` claims and whose verification failed with `error`:
/// at the member's name, the byte in the member (the error's own) and in the archive.
#[cold]
fn invalid_member(member: &Member<'_>, format: Format, error: Error) -> PackageError {
    let place = match member.archive_offset(error.offset()) {
        Some(at) => format!("archive byte {at}"),
        None => String::from("in the member as inflated"),
    };
    let reason = format!("{}: {error}, {place}", label(format));
    PackageError::new(Kind::Model, member.name(), reason).caused_by(error)
}

/// The format's name as the bundle's errors print it.
fn label(format: Format) -> &'static str {
    match format {
        Format::Tflite => "TFLite",
        Format::Circle => "Circle",
        Format::VkGraph => "Vulkan blob",
        Format::Pte => "ExecuTorch program",
        Format::Cvimodel => "cvimodel",
        Format::Xnnpack => "XNNPACK blob",
        Format::Ptd => "ExecuTorch data",
        Format::LitertLm => "LiteRT-LM",
    }
}
