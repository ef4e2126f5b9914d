//! Opening what a path names, in one place for every command: an nnpackage (a directory or a
//! zip archive, checked by the library), a model bundle (a zip archive that is no nnpackage,
//! such as MediaPipe's `.task`: its bytes, read by [`flatmodel::bundle::Bundle`]) or a model file (read into memory, or mapped with
//! `--mmap`: [`Access`]; its format recognised and its structure verified once, as a
//! [`flatmodel::File`]); with `--schema`, the schema read at run time and the flatbuffer files
//! it reads.

use crate::convert::to_u64;
use crate::input::{Access, Input};
use crate::output::Out;
use crate::status::{Failure, Outcome};
use flatmodel::bundle::Bundle;
use flatmodel::nnpackage::{self, Package, PackageErrorKind, SharedBytes};
use flatmodel::reflect::{DynTable, Schema, TableId};
use flatmodel::verify::{Options, Stats};
use flatmodel::{ErrorKind, File};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

/// What a path names.
#[derive(Debug)]
pub enum Opened {
    /// A checked nnpackage.
    Package(Box<Package>),
    /// A model file's bytes; [`file()`] verifies them.
    File(Input),
    /// A model bundle's bytes; [`bundle()`] reads and verifies them.
    Bundle(Input),
}

/// Opens `path`, its files read as `access` says: [`Failure::Invalid`] when it is no model or
/// an invalid package, [`Failure::Message`] when it cannot be read at all.
pub fn open(path: &OsStr, access: Access) -> Result<Opened, Failure> {
    let p = Path::new(path);
    if p.is_dir() && !p.join("metadata").join("MANIFEST").exists() {
        return Err(Failure::Invalid("not a model file or nnpackage directory (no metadata/MANIFEST)".into()));
    }
    match nnpackage::container_of(p) {
        Some(nnpackage::Container::Zip) => {
            // A zip archive is a package when it holds metadata/MANIFEST, else a model bundle.
            let input = Input::open(path, access)?;
            if flatmodel::bundle::is_bundle(input.bytes()) {
                return Ok(Opened::Bundle(input));
            }
        }
        Some(nnpackage::Container::Directory) => {}
        None => return Input::open(path, access).map(Opened::File),
    }
    package(path, access).map(|p| Opened::Package(Box::new(p)))
}

/// The model bundle in `bytes`, read and each member verified, or why it is invalid
/// ([`Failure::Invalid`]: the member at fault and its error).
pub fn bundle(bytes: &[u8]) -> Result<Bundle<'_>, Failure> {
    Bundle::read(bytes, &nnpackage::Limits::DEFAULT).map_err(|e| Failure::Invalid(e.to_string()))
}

/// Opens `path` for a command that reads one model file (`dump`, `extract`, `inspect
/// --tflm-resolver`): its bytes, or [`Failure::Invalid`] for a package.
pub fn model_file(path: &OsStr, command: &str, access: Access) -> Result<Input, Failure> {
    match open(path, access)? {
        Opened::File(input) => Ok(input),
        Opened::Package(_) => {
            Err(Failure::Invalid(format!("an nnpackage holds several models: {command} one of its model files")))
        }
        Opened::Bundle(_) => Err(Failure::Invalid(format!(
            "a model bundle holds several members: {command} one of them (extract FILE member:NAME -o OUT)"
        ))),
    }
}

/// The file in `bytes`, its format recognised and its structure verified (its rules are each
/// command's to check), or why it is no model ([`Failure::Invalid`]).
pub fn file(bytes: &[u8]) -> Result<File<'_>, Failure> {
    File::parse_structure(bytes).map_err(|e| Failure::Invalid(reason(bytes, &e)))
}

/// Why `bytes` are no model, as every command words it: `error`'s text, or for bytes of no
/// format flatmodel reads, what they start with ([`unknown_format`]).
pub fn reason(bytes: &[u8], error: &flatmodel::Error) -> String {
    match error.kind() {
        ErrorKind::UnknownFormat => unknown_format(bytes),
        _ => error.to_string(),
    }
}

/// The largest schema file read (`.fbs` or `.bfbs`); real ones are kilobytes.
const MAX_SCHEMA_BYTES: u64 = 64 << 20;

/// The schema in `path` (`--schema`) and the table type its buffers' root is verified as:
/// `root_type`'s, else the schema's own `root_type`. A binary schema (`.bfbs`, or `BFBS` at
/// bytes 4..8) is read by [`Schema::from_bfbs`], any other file as `.fbs` text with its includes
/// read from disk. Every failure is a usage error (a schema error says `file:line:column:`).
pub fn schema(path: &OsStr, root_type: Option<&str>) -> Result<(Schema, TableId), Failure> {
    let shown = path.to_string_lossy();
    let Some(name) = path.to_str() else {
        return Err(Failure::new(format!("{shown}: a schema's path must be UTF-8 (includes are named by it)")));
    };
    let bytes = read_schema_file(name).map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let binary = Path::new(name).extension().is_some_and(|e| e.eq_ignore_ascii_case("bfbs"))
        || bytes.get(4..8) == Some(b"BFBS".as_slice());
    let schema = if binary {
        Schema::from_bfbs(&bytes).map_err(|mut e| {
            e.file = name.to_string();
            e
        })
    } else {
        let mut main = Some(String::from_utf8(bytes).map_err(|_| {
            Failure::new(format!("{name}: neither .fbs text (it is not UTF-8) nor a binary schema (BFBS at byte 4)"))
        })?);
        // The main file is the loader's first request (already read); includes come from disk.
        Schema::from_fbs(name, &mut |p: &str| match main.take() {
            Some(text) => Ok(text),
            None => read_schema_file(p).and_then(|b| String::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())),
        })
    }
    .map_err(|e| Failure::new(e.to_string()))?;
    let root = match root_type {
        Some(wanted) => schema.table(wanted).ok_or_else(|| unknown_table(&schema, wanted, name))?,
        None => schema.root().ok_or_else(|| {
            Failure::new(format!(
                "{name} declares no root_type: name the root table with --root-type (one of {})",
                table_list(&schema)
            ))
        })?,
    };
    Ok((schema, root))
}

/// A schema file's bytes, at most [`MAX_SCHEMA_BYTES`].
fn read_schema_file(path: &str) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_SCHEMA_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if to_u64(bytes.len()) > MAX_SCHEMA_BYTES {
        return Err(format!("larger than {} MiB: not a schema", MAX_SCHEMA_BYTES >> 20));
    }
    Ok(bytes)
}

/// The usage error of `--root-type NAME` naming no table of the schema: a close name, an
/// ambiguous short name's candidates, or (for a small schema) every table.
fn unknown_table(schema: &Schema, wanted: &str, path: &str) -> Failure {
    let full: Vec<&str> = schema.tables().map(|t| schema.table_name(t)).collect();
    let same_short: Vec<&str> = full.iter().copied().filter(|n| n.rsplit('.').next() == Some(wanted)).collect();
    if same_short.len() > 1 {
        return Failure::new(format!(
            "--root-type {wanted} is ambiguous in {path}: name one of {}",
            same_short.join(", ")
        ));
    }
    let short = full.iter().map(|n| n.rsplit('.').next().unwrap_or(n));
    let hint = crate::suggest::hint(wanted, full.iter().copied().chain(short));
    Failure::new(format!("{path} has no table named '{wanted}'{hint}; its tables: {}", table_list(schema)))
}

/// The schema's table names, the first few of a long list.
fn table_list(schema: &Schema) -> String {
    const SHOWN: usize = 12;
    let names: Vec<&str> = schema.tables().map(|t| schema.table_name(t)).collect();
    match names.len() {
        0 => "none".into(),
        n if n <= SHOWN => names.join(", "),
        n => format!("{}, ... ({n} in all)", names[..SHOWN].join(", ")),
    }
}

/// Opens `path` as the bytes of one flatbuffer (`--schema`: no format recognised, no
/// package): [`Failure::Invalid`] when it names a directory, [`Failure::Message`] when it
/// cannot be read.
pub fn flatbuffer(path: &OsStr, access: Access) -> Result<Input, Failure> {
    if Path::new(path).is_dir() {
        return Err(Failure::Invalid("a directory, not a flatbuffer file".into()));
    }
    Input::open(path, access)
}

/// The identifier `bytes` must carry to be read as `schema`'s `root` table: the schema's
/// `file_identifier` when `root` is its `root_type` (as [`Schema::verify`] requires it).
pub fn identifier_of(schema: &Schema, root: TableId) -> Option<[u8; 4]> {
    schema.file_identifier().filter(|_| schema.root() == Some(root))
}

/// `bytes` verified as `schema`'s `root` table, with what the verifier saw, or the error
/// located by field names (`... at byte N (Monster.weapons[1].name)`) as [`Failure::Invalid`].
pub fn verify_as<'s, 'b>(
    schema: &'s Schema,
    root: TableId,
    bytes: &'b [u8],
) -> Result<(DynTable<'s, 'b>, Stats), Failure> {
    schema
        .verify_with_stats(bytes, root, identifier_of(schema, root), &Options::DEFAULT)
        .map_err(|e| Failure::Invalid(schema.error_text(&e, root).to_string()))
}

/// A mapped file as the bytes the package library asks its loader for.
struct Mapped(Input);

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// The package's loader with `--mmap`: model files and zip archives are mapped, not copied.
fn map_file(file: std::fs::File) -> std::io::Result<SharedBytes> {
    Ok(Arc::new(Mapped(Input::of(&file, "package file", Access::Map)?)))
}

/// The checked package at `path`, its files read as `access` says (by default with the
/// library's loader, which reads each as a consistent snapshot); [`Failure::Invalid`] when it
/// is not a valid package, [`Failure::Message`] when the path itself cannot be read.
fn package(path: &OsStr, access: Access) -> Result<Package, Failure> {
    let loader = match access {
        Access::Read => nnpackage::read_file,
        Access::Map => map_file,
    };
    let options = nnpackage::Options { loader, ..nnpackage::Options::default() };
    Package::open_with(Path::new(path), &options).map_err(|e| {
        if e.at().is_empty() && matches!(e.kind(), PackageErrorKind::Io | PackageErrorKind::NotFound) {
            Failure::new(format!("{}: {e}", path.to_string_lossy()))
        } else {
            Failure::Invalid(e.to_string())
        }
    })
}

/// Runs `command` on the input `name`, an invalid input ([`Failure::Invalid`]) reported as
/// `NAME: invalid: REASON`: the one place an invalid input is printed.
pub fn reporting(
    out: &mut Out,
    name: &str,
    command: impl FnOnce(&mut Out) -> Result<Outcome, Failure>,
) -> Result<Outcome, Failure> {
    match command(out) {
        Err(Failure::Invalid(reason)) => {
            writeln!(out, "{name}: invalid: {reason}")?;
            Ok(Outcome::Invalid)
        }
        other => other,
    }
}

/// Why `bytes` are not a model of a known format, in one line naming what was found.
pub fn unknown_format(bytes: &[u8]) -> String {
    const KNOWN: &str = "TFLite (TFL3 at byte 4), Circle (CIR0), ExecuTorch .pte (ET12), Vulkan blob (VH00) or \
                         VkGraph (VK00), XNNPACK blob (XH00) or XNNGraph (XN01), ExecuTorch data (.ptd, FT01), \
                         cvimodel (CviModel at byte 0), LiteRT-LM (LITERTLM at byte 0), or an nnpackage \
                         directory or zip";
    if bytes.is_empty() {
        return format!("not a model: the file is empty; flatmodel reads {KNOWN}");
    }
    let head = bytes.get(..8).unwrap_or(bytes);
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    let text: String = head.iter().map(|&b| if b.is_ascii_graphic() { char::from(b) } else { '.' }).collect();
    format!("not a model flatmodel reads: it starts with {} (\"{text}\"); flatmodel reads {KNOWN}", hex.join(" "))
}
