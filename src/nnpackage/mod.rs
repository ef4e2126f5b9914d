//! Samsung ONE's nnpackage: a directory (or a zip archive of one) holding `metadata/MANIFEST`,
//! an optional config file and one or more models.
//!
//! [`Package::open`] reads the MANIFEST (every key, versions 1.0 to 1.3), the first config
//! file, and each model with its type (from `model-types`, else the file extension); it verifies
//! each flatbuffer model fully and checks `pkg-inputs`, `pkg-outputs` and `model-connect`
//! against the models they name, and that each Circle `RUN_MODEL` operator names a file inside
//! the package. Errors name the file and the MANIFEST key at fault:
//! `metadata/MANIFEST: "models"[1]: file "x.tflite" not found`.
//!
//! Untrusted packages are safe to open:
//! - paths are checked lexically (no `..`, absolute or drive paths, backslashes), and in a
//!   directory each file is opened beneath a handle on the package directory, following only
//!   relative symlinks that stay inside it, so a symlink swapped in while the package is read
//!   cannot lead outside;
//! - the MANIFEST and config are size-capped before they are read, and the MANIFEST's nesting
//!   is checked before the JSON parser runs;
//! - zip archives are read by a bounds-checked central-directory reader (stored and deflated
//!   entries, CRC-32 checked, no encryption or zip64), each entry inflated to at most its
//!   declared size and all of them within one budget ([`Limits`]).
//!
//! Model files are read by a [`Loader`]: [`read_file`] copies each into memory as one
//! consistent snapshot ([`crate::snapshot`]); the library forbids `unsafe` and so cannot map
//! them, and the `flatmodel` tool passes a loader that maps only with `--mmap`.

mod associated;
mod config;
mod connect;
mod error;
mod manifest;
mod models;
mod path;
mod run_model;
mod source;
pub(crate) mod zip;

pub use associated::AssociatedFiles;
pub use config::Config;
pub use error::{PackageError, PackageErrorKind};
pub use manifest::{Connection, IoRef, Manifest, ModelType, Version, MANIFEST};
pub use models::{model_io, ElementType, ModelIo, SubgraphIo, TensorIo};
pub use path::RelPath;
pub use source::{read_file, Container, FileBytes, Loader, SharedBytes};

use error::PackageErrorKind as Kind;
pub(crate) use source::holds_package;
use source::Source;
use std::format;
use std::io::Read;
use std::path::Path;
use std::string::String;
use std::vec::Vec;

/// The resource limits that keep an untrusted package from costing more than they allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest MANIFEST, in bytes (checked before it is read or parsed).
    pub max_manifest_bytes: u64,
    /// Largest config file, in bytes.
    pub max_config_bytes: u64,
    /// Deepest nesting of `[` and `{` in the MANIFEST (a valid one needs 3).
    pub max_json_depth: usize,
    /// Most models a MANIFEST may list.
    pub max_models: usize,
    /// Most entries a zip archive may hold.
    pub max_zip_entries: usize,
    /// Most bytes all the entries read from a zip archive may inflate to, together.
    pub max_zip_bytes: u64,
}

impl Limits {
    /// 1 MiB MANIFEST and config, nesting 32, 1024 models, 65 535 zip entries, 4 GiB inflated.
    pub const DEFAULT: Limits = Limits {
        max_manifest_bytes: 1 << 20,
        max_config_bytes: 1 << 20,
        max_json_depth: 32,
        max_models: 1024,
        max_zip_entries: 65_535,
        max_zip_bytes: 4 << 30,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How to open a package: the limits, and how model files (and zip archives) are read.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The resource limits.
    pub limits: Limits,
    /// Reads a model file or a zip archive, given the file opened (a directory's files
    /// beneath the package's directory handle).
    pub loader: Loader,
}

impl Default for Options {
    fn default() -> Self {
        Options { limits: Limits::DEFAULT, loader: read_file }
    }
}

/// One model of a package.
#[derive(Clone, Debug)]
pub struct PackageModel {
    /// Its path in the package, normalised (`/`-separated, no `.` components).
    pub path: String,
    /// Its type.
    pub model_type: ModelType,
    /// Whether the type came from the file extension (no `model-types` entry).
    pub type_from_extension: bool,
    /// The file's bytes.
    pub bytes: FileBytes,
    /// The subgraphs' inputs and outputs of a verified flatbuffer model; `None` for a
    /// backend's opaque binary (`bin`, `tvn`), which is not checked.
    pub io: Option<ModelIo>,
    /// Where the bytes that were verified lay (address, length), so that
    /// [`Package::model_file`] can tell they are still the ones it gives a view of.
    verified: Option<(usize, usize)>,
}

/// An opened, checked package.
#[derive(Clone, Debug)]
pub struct Package {
    container: Container,
    manifest: Manifest,
    config: Option<Config>,
    models: Vec<PackageModel>,
}

/// Which container `path` is: a directory, or a file whose bytes start as a zip archive
/// (`PK\x03\x04`, or `PK\x05\x06` for an empty one) and that no model format claims
/// ([`crate::detect`]: a model whose root offset spells the magic stays a model).
/// `None` for anything else, or when the path cannot be read. A directory counts whether or
/// not it holds `metadata/MANIFEST`: opening it says what is missing.
pub fn container_of(path: &Path) -> Option<Container> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some(Container::Directory);
    }
    let mut head = Vec::with_capacity(8);
    std::fs::File::open(path).ok()?.take(8).read_to_end(&mut head).ok()?;
    let magic = head.get(..4)?;
    // A model whose root offset happens to spell the magic is still a model: any format that
    // claims the first bytes wins, as in `bundle::is_bundle`, so a path and its bytes are read
    // alike.
    let zip = (magic == zip::MAGIC || magic == [b'P', b'K', 5, 6]) && crate::detect(&head).is_none();
    zip.then_some(Container::Zip)
}

fn manifest_key(key: &str) -> String {
    format!("{MANIFEST}: {key}")
}

/// The flatbuffer model type whose file identifier `bytes` carry (`TFL3`, `CIR0`).
fn identified(bytes: &[u8]) -> Option<ModelType> {
    if crate::wire::has_identifier(bytes, *b"TFL3") {
        Some(ModelType::Tflite)
    } else if crate::wire::has_identifier(bytes, *b"CIR0") {
        Some(ModelType::Circle)
    } else {
        None
    }
}

impl Package {
    /// Opens the package directory or zip archive at `path` with the default [`Options`].
    pub fn open(path: &Path) -> Result<Package, PackageError> {
        Package::open_with(path, &Options::default())
    }

    /// Opens the package directory or zip archive at `path`.
    pub fn open_with(path: &Path, options: &Options) -> Result<Package, PackageError> {
        let meta = std::fs::metadata(path).map_err(|e| {
            let kind = if e.kind() == std::io::ErrorKind::NotFound { Kind::NotFound } else { Kind::Io };
            PackageError::new(kind, "", format!("{e}"))
        })?;
        let source = match container_of(path) {
            Some(Container::Directory) => Source::dir(path, options.loader)?,
            Some(Container::Zip) => Source::zip(path, options.loader, &options.limits)?,
            None if meta.is_file() => {
                return Err(PackageError::new(
                    Kind::NotAPackage,
                    "",
                    "not an nnpackage: neither a directory nor a zip archive",
                ))
            }
            None => return Err(PackageError::new(Kind::NotAPackage, "", "not a directory or a regular file")),
        };
        Package::from_source(source, &options.limits)
    }

    /// Opens a zip archive of a package held in memory (an upload, say), with `limits`.
    pub fn from_zip_bytes(bytes: FileBytes, limits: &Limits) -> Result<Package, PackageError> {
        Package::from_source(Source::zip_bytes(bytes, limits)?, limits)
    }

    fn from_source(mut source: Source, limits: &Limits) -> Result<Package, PackageError> {
        let manifest_path = RelPath::parse(MANIFEST).map_err(|why| PackageError::new(Kind::Manifest, MANIFEST, why))?;
        let bytes = source.read(&manifest_path, Some(limits.max_manifest_bytes)).map_err(|p| match p.kind {
            Kind::NotFound => PackageError::new(Kind::NotFound, MANIFEST, "missing: every nnpackage has one"),
            _ => p.at(MANIFEST),
        })?;
        let manifest = Manifest::parse(bytes.as_bytes(), limits)?;
        let config = match manifest.config() {
            None => None,
            Some(name) => {
                let key = manifest_key("\"configs\"[0]");
                let rel =
                    RelPath::under("metadata", name).map_err(|why| PackageError::new(Kind::PathEscapes, &key, why))?;
                let bytes = source.read(&rel, Some(limits.max_config_bytes)).map_err(|p| p.at(&key))?;
                Some(Config::parse(rel.as_str(), bytes.as_bytes())?)
            }
        };
        let mut models = Vec::with_capacity(manifest.models.len());
        for (i, text) in manifest.models.iter().enumerate() {
            models.push(read_model(&mut source, &manifest, i, text)?);
        }
        connect::check(&manifest, &models)?;
        run_model::check(&source, &models)?;
        Ok(Package { container: source.container(), manifest, config, models })
    }

    /// Whether the package was a directory or a zip archive.
    pub fn container(&self) -> Container {
        self.container
    }

    /// The MANIFEST.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The package version.
    pub fn version(&self) -> Version {
        self.manifest.version
    }

    /// The first config file, when `configs` names one.
    pub fn config(&self) -> Option<&Config> {
        self.config.as_ref()
    }

    /// The models, in MANIFEST order (the first is the primary model).
    pub fn models(&self) -> &[PackageModel] {
        &self.models
    }

    /// The verified view of model `index`, when it is a flatbuffer model (TFLite or Circle).
    /// The package check verified it in full, so this verifies nothing again, unless the
    /// loader now gives other bytes than it verified (then they are verified anew). `None` for
    /// an index past the models or a backend's opaque binary.
    pub fn model_file(&self, index: usize) -> Option<Result<crate::File<'_>, crate::Error>> {
        let model = self.models.get(index)?;
        let format = model.io.as_ref()?.format;
        let bytes = model.bytes.as_bytes();
        let unchanged = model.verified == Some((bytes.as_ptr().addr(), bytes.len()));
        match unchanged.then(|| crate::File::reread(bytes, format)).flatten() {
            Some(file) => Some(Ok(file)),
            None => Some(crate::File::parse(bytes)),
        }
    }
}

/// Reads model `i` (`text` as the MANIFEST writes it), checks its type against its bytes and
/// verifies it.
fn read_model(source: &mut Source, manifest: &Manifest, i: usize, text: &str) -> Result<PackageModel, PackageError> {
    let key = manifest_key(&format!("\"models\"[{i}]"));
    let rel =
        RelPath::parse(text).map_err(|why| PackageError::new(Kind::PathEscapes, &key, format!("{text:?}: {why}")))?;
    let path = rel.as_str();
    let (model_type, type_from_extension) = match manifest.model_types.get(i) {
        Some(&t) => (t, false),
        None => {
            let ext = path.rsplit_once('.').map(|(_, e)| e).filter(|e| !e.contains('/'));
            let t = ext.and_then(ModelType::from_name).ok_or_else(|| {
                PackageError::new(
                    Kind::Manifest,
                    &key,
                    format!("{path:?}: no \"model-types\" entry, and its extension names no model type"),
                )
            })?;
            (t, true)
        }
    };
    let bytes = source.read(&rel, None).map_err(|p| p.at(&key))?;
    let io = if model_type.is_flatbuffer() {
        Some(check_model(bytes.as_bytes(), model_type, type_from_extension, i, path, &key)?)
    } else {
        None
    };
    let verified = io.as_ref().map(|_| (bytes.as_bytes().as_ptr().addr(), bytes.as_bytes().len()));
    Ok(PackageModel { path: path.into(), model_type, type_from_extension, bytes, io, verified })
}

fn check_model(
    bytes: &[u8],
    model_type: ModelType,
    type_from_extension: bool,
    i: usize,
    path: &str,
    key: &str,
) -> Result<ModelIo, PackageError> {
    let said = if type_from_extension {
        format!("is {} by its extension", model_type.name())
    } else {
        format!("is declared {}", model_type.name())
    };
    let type_key = if type_from_extension { String::from(key) } else { manifest_key(&format!("\"model-types\"[{i}]")) };
    match identified(bytes) {
        Some(found) if found == model_type => {}
        Some(found) => {
            let shown = if found == ModelType::Tflite { "TFLite (TFL3)" } else { "Circle (CIR0)" };
            return Err(PackageError::new(
                Kind::TypeMismatch,
                type_key,
                format!("model {i} {path:?} {said} but its bytes are {shown}"),
            ));
        }
        None => {
            let id = bytes
                .get(4..8)
                .map_or_else(|| String::from("missing"), |id| format!("{:?}", String::from_utf8_lossy(id)));
            return Err(PackageError::new(
                Kind::Model,
                key,
                format!("{path:?} {said} but is not one: its file identifier (bytes 4..8) is {id}"),
            ));
        }
    }
    models::model_io(bytes).map_err(|e| {
        if e.kind() == crate::ErrorKind::UnknownFormat {
            PackageError::new(
                Kind::UnsupportedModel,
                key,
                format!("{path:?}: {} models are not supported yet", model_type.name()),
            )
        } else {
            PackageError::new(Kind::Model, key, format!("{path:?}: invalid model: {e}")).caused_by(e)
        }
    })
}
