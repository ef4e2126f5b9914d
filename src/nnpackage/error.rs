//! The package error: which file or manifest key is at fault, and why.

use std::string::String;

/// What kind of problem a [`PackageError`] reports.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackageErrorKind {
    /// Reading a file failed (permissions, a directory where a file belongs, ...).
    Io,
    /// A file the package needs is not there.
    NotFound,
    /// A path leaves the package: `..`, an absolute or drive path, a backslash, or a symlink
    /// resolving outside the package directory.
    PathEscapes,
    /// A file or a zip entry is larger than [`Limits`](super::Limits) allows.
    TooLarge,
    /// The MANIFEST is not JSON, or nests deeper than the limit.
    InvalidJson,
    /// A MANIFEST key is missing or holds the wrong kind of value.
    Manifest,
    /// The package version is not one this reader knows (1.0 to 1.3).
    UnsupportedVersion,
    /// A line of the config file is not `key=value`.
    Config,
    /// The zip archive is malformed, uses an unsupported feature, or fails its CRC.
    Zip,
    /// A model's bytes are not a valid model.
    Model,
    /// A model's format is not one this crate reads (yet).
    UnsupportedModel,
    /// A model's bytes are not the type its `model-types` entry or extension says.
    TypeMismatch,
    /// An `"m:s:i"` string does not split into three numbers.
    BadIoRef,
    /// An `"m:s:i"` names a model, subgraph, input or output that does not exist.
    OutOfRange,
    /// Tensors joined by `model-connect` disagree in element type or shape.
    ConnectMismatch,
    /// The path is neither a package directory nor a zip archive.
    NotAPackage,
    /// The zip archive given as a model bundle ([`crate::bundle`]) holds an nnpackage
    /// (`metadata/MANIFEST`): it is read as a package.
    NotABundle,
}

/// An error opening or checking an nnpackage or a model bundle ([`crate::bundle`], which shares
/// the package's zip reader and limits): the file or key at fault and the reason.
///
/// Displays as `AT: REASON`, for example
/// `metadata/MANIFEST: "models"[1]: file "x.tflite" not found`. When a model of the package
/// failed verification, [`std::error::Error::source`] is the model's own [`crate::Error`] (its
/// kind, byte offset and schema path), as the model's `parse` returned it; [`PackageError::model`]
/// gives it too.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}{}{reason}", if .at.is_empty() { "" } else { ": " })]
pub struct PackageError {
    kind: PackageErrorKind,
    at: String,
    reason: String,
    /// The model's error, when a model failed verification.
    #[source]
    model: Option<crate::Error>,
}

impl PackageError {
    /// An error of `kind` about `at` (a file, or a file and a key), for `reason`.
    #[cold]
    pub fn new(kind: PackageErrorKind, at: impl Into<String>, reason: impl Into<String>) -> Self {
        PackageError { kind, at: at.into(), reason: reason.into(), model: None }
    }

    /// This error with `model`, the error a model's verification returned, as its source.
    #[cold]
    pub(crate) fn caused_by(self, model: crate::Error) -> Self {
        PackageError { model: Some(model), ..self }
    }

    /// What kind of problem it is.
    pub fn kind(&self) -> PackageErrorKind {
        self.kind
    }

    /// The file (relative to the package) or the file and key at fault.
    pub fn at(&self) -> &str {
        &self.at
    }

    /// Why.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The error of the model (or bundle member) that failed verification, its offset counted
    /// from the start of that model's bytes; `None` for any other problem.
    pub fn model(&self) -> Option<&crate::Error> {
        self.model.as_ref()
    }
}

/// A problem found before the file or key it concerns is known: the reader attaches that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) kind: PackageErrorKind,
    pub(crate) reason: String,
}

impl Problem {
    #[cold]
    pub(crate) fn new(kind: PackageErrorKind, reason: impl Into<String>) -> Self {
        Problem { kind, reason: reason.into() }
    }

    /// The problem as an error about `at`.
    #[cold]
    pub(crate) fn at(self, at: impl Into<String>) -> PackageError {
        PackageError::new(self.kind, at, self.reason)
    }
}
