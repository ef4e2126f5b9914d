//! A small, bounds-checked zip reader: the end-of-central-directory record, the central
//! directory, each entry's local header, stored (0) and deflated (8) data, CRC-32.
//!
//! Every offset and length comes from the archive, so each is checked against the bytes before
//! use. Entries are inflated one at a time, to their declared size at most (checked against a
//! budget before any allocation), so a zip bomb costs at most the budget.

use super::error::{PackageErrorKind as Kind, Problem};
use super::path::RelPath;
use std::collections::BTreeMap;
use std::format;
use std::ops::Range;
use std::string::String;
use std::vec::Vec;

const EOCD_SIG: u32 = 0x0605_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const LOCAL_SIG: u32 = 0x0403_4b50;
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;
const MAX_COMMENT: usize = 0xffff;

/// The bytes a zip archive starts with (a local file header).
pub const MAGIC: [u8; 4] = [b'P', b'K', 3, 4];

/// One entry of the central directory.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    raw_name: Range<usize>,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    local: usize,
}

/// An entry's data: a range of the archive (stored) or inflated bytes.
pub enum Data {
    /// Stored: this range of the archive's bytes.
    Stored(Range<usize>),
    /// Deflated: the inflated bytes.
    Inflated(Vec<u8>),
}

/// A checked central directory: entry names are unique paths inside the package.
pub struct Archive {
    entries: Vec<Entry>,
    by_name: BTreeMap<String, usize>,
    /// Where the central directory starts: every entry's data lies before it.
    data_end: usize,
}

fn zip_err(reason: String) -> Problem {
    Problem::new(Kind::Zip, reason)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let end = at.checked_add(2)?;
    let s: [u8; 2] = b.get(at..end)?.try_into().ok()?;
    Some(u16::from_le_bytes(s))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let s: [u8; 4] = b.get(at..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(s))
}

/// `base + offset` as a position, or `None` on overflow.
fn plus(base: usize, offset: usize) -> Option<usize> {
    base.checked_add(offset)
}

fn truncated(what: &str) -> Problem {
    zip_err(format!("zip archive: {what} runs past the end of the file"))
}

/// The end-of-central-directory record: the last one whose comment ends the file exactly.
fn find_eocd(b: &[u8]) -> Result<usize, Problem> {
    let last = b.len().checked_sub(EOCD_LEN).ok_or_else(|| {
        zip_err(format!("zip archive: {} bytes is too short for an end of central directory record", b.len()))
    })?;
    let first = last.saturating_sub(MAX_COMMENT);
    for at in (first..=last).rev() {
        if u32_at(b, at) != Some(EOCD_SIG) {
            continue;
        }
        let comment = usize::from(u16_at(b, plus(at, 20).unwrap_or(usize::MAX)).unwrap_or(u16::MAX));
        if plus(at, EOCD_LEN).and_then(|e| plus(e, comment)) == Some(b.len()) {
            return Ok(at);
        }
    }
    Err(zip_err("zip archive: no end of central directory record (truncated, or not a zip)".into()))
}

impl Archive {
    /// Reads and checks the central directory of `b`: at most `max_entries` entries, each
    /// named by a path that stays inside the package, no two with the same name.
    pub fn read(b: &[u8], max_entries: usize) -> Result<Archive, Problem> {
        Archive::read_at(b, find_eocd(b)?, max_entries)
    }

    /// [`Archive::read`] of an archive appended to other bytes (its offsets counted from the
    /// start of `b`): `Ok(None)` when `b` does not end with an end-of-central-directory record.
    pub fn read_appended(b: &[u8], max_entries: usize) -> Result<Option<Archive>, Problem> {
        match find_eocd(b) {
            Ok(eocd) => Archive::read_at(b, eocd, max_entries).map(Some),
            Err(_) => Ok(None),
        }
    }

    /// The archive whose end-of-central-directory record is at byte `eocd` of `b`.
    fn read_at(b: &[u8], eocd: usize, max_entries: usize) -> Result<Archive, Problem> {
        let field = |off: usize| u16_at(b, plus(eocd, off).unwrap_or(usize::MAX)).unwrap_or(0);
        let field32 = |off: usize| u32_at(b, plus(eocd, off).unwrap_or(usize::MAX)).unwrap_or(0);
        let (disk, cd_disk, on_disk, count) = (field(4), field(6), field(8), field(10));
        let (cd_size, cd_offset) = (field32(12), field32(16));
        if count == u16::MAX || cd_size == u32::MAX || cd_offset == u32::MAX {
            return Err(zip_err("zip archive: zip64 archives are not supported".into()));
        }
        if disk != 0 || cd_disk != 0 || on_disk != count {
            return Err(zip_err("zip archive: multi-disk archives are not supported".into()));
        }
        let count = usize::from(count);
        if count > max_entries {
            return Err(Problem::new(
                Kind::TooLarge,
                format!("zip archive: {count} entries, more than the limit of {max_entries}"),
            ));
        }
        let start = usize::try_from(cd_offset).map_err(|_| truncated("the central directory"))?;
        let size = usize::try_from(cd_size).map_err(|_| truncated("the central directory"))?;
        let end = plus(start, size).filter(|&e| e <= eocd).ok_or_else(|| truncated("the central directory"))?;
        let mut archive = Archive { entries: Vec::with_capacity(count), by_name: BTreeMap::new(), data_end: start };
        let mut at = start;
        for index in 0..count {
            let (entry, next) = read_central(b, at, end, index)?;
            if let Some(_previous) = archive.by_name.insert(entry.name.clone(), archive.entries.len()) {
                return Err(zip_err(format!("zip entry {:?}: appears twice", entry.name)));
            }
            archive.entries.push(entry);
            at = next;
        }
        Ok(archive)
    }

    /// The (normalised) names of the entries, in archive order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// Where the archive starts in the bytes it was read from: its first entry's local header,
    /// or its central directory when it has no entries.
    pub fn start(&self) -> usize {
        self.entries.iter().map(|e| e.local).min().unwrap_or(self.data_end).min(self.data_end)
    }

    /// Whether an entry is named `name` (a normalised path).
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The declared uncompressed size of entry `name`.
    pub fn size_of(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).and_then(|&i| self.entries.get(i)).map(|e| e.size)
    }

    /// The compressed size of entry `name` (its size in the archive).
    pub fn compressed_size_of(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).and_then(|&i| self.entries.get(i)).map(|e| e.compressed)
    }

    /// The data of entry `name` of `b` (the same bytes [`Archive::read`] read), checked
    /// against its CRC-32. Its declared size must be at most `limit`; the caller takes it
    /// from its budget. `Ok(None)` when there is no such entry.
    pub fn extract(&self, b: &[u8], name: &str, limit: u64) -> Result<Option<Data>, Problem> {
        let Some(entry) = self.by_name.get(name).and_then(|&i| self.entries.get(i)) else { return Ok(None) };
        let shown = &entry.name;
        if entry.flags & 0x41 != 0 {
            return Err(zip_err(format!("zip entry {shown:?}: encrypted entries are not supported")));
        }
        if entry.size > limit {
            return Err(Problem::new(
                Kind::TooLarge,
                format!("zip entry {shown:?}: declares {} bytes, more than the {limit} bytes allowed", entry.size),
            ));
        }
        let data = self.local_data(b, entry)?;
        let size = usize::try_from(entry.size)
            .map_err(|_| zip_err(format!("zip entry {shown:?}: too large for this platform")))?;
        let out = match entry.method {
            0 => {
                if entry.compressed != entry.size {
                    return Err(zip_err(format!(
                        "zip entry {shown:?}: stored, but its sizes differ ({} compressed, {} not)",
                        entry.compressed, entry.size
                    )));
                }
                Data::Stored(data)
            }
            8 => {
                let input = b.get(data).ok_or_else(|| truncated("entry data"))?;
                let inflated = miniz_oxide::inflate::decompress_to_vec_with_limit(input, size.saturating_add(1))
                    .map_err(|e| match e.status {
                        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => Problem::new(
                            Kind::TooLarge,
                            format!("zip entry {shown:?}: inflates to more than its declared {size} bytes"),
                        ),
                        status => zip_err(format!("zip entry {shown:?}: corrupt deflate data ({status:?})")),
                    })?;
                if inflated.len() != size {
                    return Err(zip_err(format!(
                        "zip entry {shown:?}: inflates to {} bytes, not its declared {size}",
                        inflated.len()
                    )));
                }
                Data::Inflated(inflated)
            }
            m => {
                return Err(zip_err(format!(
                    "zip entry {shown:?}: compression method {m} is not supported (only stored and deflated)"
                )))
            }
        };
        let bytes = match &out {
            Data::Stored(r) => b.get(r.clone()).unwrap_or(&[]),
            Data::Inflated(v) => v.as_slice(),
        };
        let crc = crc32(bytes);
        if crc != entry.crc {
            return Err(zip_err(format!(
                "zip entry {shown:?}: CRC-32 mismatch (computed {crc:08x}, declared {:08x})",
                entry.crc
            )));
        }
        Ok(Some(out))
    }

    /// The range of `entry`'s (compressed) data, after its local header.
    fn local_data(&self, b: &[u8], entry: &Entry) -> Result<Range<usize>, Problem> {
        let shown = &entry.name;
        let bad = |what: &str| zip_err(format!("zip entry {shown:?}: {what}"));
        if u32_at(b, entry.local) != Some(LOCAL_SIG) {
            return Err(bad("no local file header at its offset"));
        }
        let at = |off: usize| u16_at(b, plus(entry.local, off).unwrap_or(usize::MAX));
        let (Some(method), Some(name_len), Some(extra_len)) = (at(8), at(26), at(28)) else {
            return Err(bad("local header runs past the end of the file"));
        };
        if method != entry.method {
            return Err(bad("local header and central directory disagree on the compression method"));
        }
        let name_start = plus(entry.local, LOCAL_LEN).ok_or_else(|| bad("offset overflow"))?;
        let name_end = plus(name_start, usize::from(name_len)).ok_or_else(|| bad("offset overflow"))?;
        if b.get(name_start..name_end) != b.get(entry.raw_name.clone()) {
            return Err(bad("local header and central directory disagree on the name"));
        }
        let start = plus(name_end, usize::from(extra_len)).ok_or_else(|| bad("offset overflow"))?;
        let len = usize::try_from(entry.compressed).map_err(|_| bad("too large for this platform"))?;
        let end = plus(start, len)
            .filter(|&e| e <= self.data_end)
            .ok_or_else(|| bad("data runs past the start of the central directory"))?;
        Ok(start..end)
    }
}

/// Reads the central directory header at `at` (before `end`); returns it and where the next
/// one starts.
fn read_central(b: &[u8], at: usize, end: usize, index: usize) -> Result<(Entry, usize), Problem> {
    let header_end = plus(at, CENTRAL_LEN).filter(|&e| e <= end).ok_or_else(|| truncated("the central directory"))?;
    if u32_at(b, at) != Some(CENTRAL_SIG) {
        return Err(zip_err(format!("zip archive: central directory entry {index} has a bad signature")));
    }
    let f16 = |off: usize| u16_at(b, plus(at, off).unwrap_or(usize::MAX)).unwrap_or(0);
    let f32 = |off: usize| u32_at(b, plus(at, off).unwrap_or(usize::MAX)).unwrap_or(0);
    let (flags, method, crc) = (f16(8), f16(10), f32(16));
    let (compressed, size, local) = (f32(20), f32(24), f32(42));
    let (name_len, extra_len, comment_len) = (f16(28), f16(30), f16(32));
    let name_end = plus(header_end, usize::from(name_len)).ok_or_else(|| truncated("the central directory"))?;
    let next = plus(name_end, usize::from(extra_len))
        .and_then(|e| plus(e, usize::from(comment_len)))
        .filter(|&e| e <= end)
        .ok_or_else(|| truncated("the central directory"))?;
    let raw = b.get(header_end..name_end).ok_or_else(|| truncated("the central directory"))?;
    let text = core::str::from_utf8(raw).map_err(|_| {
        zip_err(format!(
            "zip archive: central directory entry {index}: name {:?} is not UTF-8",
            String::from_utf8_lossy(raw)
        ))
    })?;
    let name =
        RelPath::parse(text).map_err(|why| Problem::new(Kind::PathEscapes, format!("zip entry {text:?}: {why}")))?;
    if compressed == u32::MAX || size == u32::MAX || local == u32::MAX {
        return Err(zip_err(format!("zip entry {text:?}: zip64 entries are not supported")));
    }
    let local = usize::try_from(local).map_err(|_| truncated("an entry"))?;
    let entry = Entry {
        name: name.as_str().into(),
        raw_name: header_end..name_end,
        flags,
        method,
        crc,
        compressed: u64::from(compressed),
        size: u64::from(size),
        local,
    };
    Ok((entry, next))
}

/// The CRC-32 of `bytes`, as zip stores it.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_the_check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(super::crc32(b""), 0);
    }
}
