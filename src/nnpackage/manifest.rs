//! `metadata/MANIFEST`: the JSON that names a package's version, configs, models and their
//! types, and (since 1.3) the package's inputs and outputs and how its models connect.

use super::error::{PackageError, PackageErrorKind as Kind};
use super::path::RelPath;
use super::Limits;
use crate::wire::to_u64;
use serde_json::{Map, Value};
use std::borrow::ToOwned;
use std::fmt;
use std::format;
use std::string::String;
use std::vec::Vec;

/// Where the MANIFEST lies in a package.
pub const MANIFEST: &str = "metadata/MANIFEST";

/// The package version, from `major-version`, `minor-version` and `patch-version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    /// `major-version`.
    pub major: u32,
    /// `minor-version`.
    pub minor: u32,
    /// `patch-version`.
    pub patch: u32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A model's type, from `model-types` or the file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    /// `tflite`: a TFLite flatbuffer (`TFL3`).
    Tflite,
    /// `circle`: a Circle flatbuffer (`CIR0`).
    Circle,
    /// `bin`: a backend-dependent binary, opaque to this reader.
    Bin,
    /// `tvn` (since 1.2): a backend-dependent (TRIX NPU) binary, opaque to this reader.
    Tvn,
}

impl ModelType {
    /// The type a `model-types` entry (case-sensitive) or an extension names.
    pub fn from_name(name: &str) -> Option<ModelType> {
        Some(match name {
            "tflite" => ModelType::Tflite,
            "circle" => ModelType::Circle,
            "bin" => ModelType::Bin,
            "tvn" => ModelType::Tvn,
            _ => return None,
        })
    }

    /// The name as the MANIFEST writes it.
    pub fn name(self) -> &'static str {
        match self {
            ModelType::Tflite => "tflite",
            ModelType::Circle => "circle",
            ModelType::Bin => "bin",
            ModelType::Tvn => "tvn",
        }
    }

    /// Whether the type is a flatbuffer model this crate checks (tflite, circle), rather than
    /// a backend's opaque binary.
    pub fn is_flatbuffer(self) -> bool {
        matches!(self, ModelType::Tflite | ModelType::Circle)
    }
}

/// `"m:s:i"`: input or output `index` of subgraph `subgraph` of model `model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IoRef {
    /// The model's position in `models`.
    pub model: u32,
    /// The subgraph of that model.
    pub subgraph: u32,
    /// The position in that subgraph's inputs or outputs.
    pub index: u32,
}

impl IoRef {
    /// Parses `"m:s:i"`: exactly three decimal numbers separated by `:`.
    pub fn parse(text: &str) -> Option<IoRef> {
        let mut parts = text.split(':').map(|p| {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse::<u32>().ok()
        });
        let (Some(Some(model)), Some(Some(subgraph)), Some(Some(index)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        Some(IoRef { model, subgraph, index })
    }
}

impl fmt::Display for IoRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.model, self.subgraph, self.index)
    }
}

/// One `model-connect` entry: output `from` feeds each input in `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    /// The output that feeds.
    pub from: IoRef,
    /// The inputs it feeds.
    pub to: Vec<IoRef>,
}

/// What `metadata/MANIFEST` says, checked for shape: each key present with the right kind of
/// value, each path inside the package, each `"m:s:i"` three numbers. Whether the models and
/// tensors it names exist is checked when the package is opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// `major-version`, `minor-version`, `patch-version`.
    pub version: Version,
    /// `configs`: file names in `metadata/` (only the first is used); empty when absent.
    pub configs: Vec<String>,
    /// `models`: paths relative to the package root, as written; the first is the primary.
    pub models: Vec<String>,
    /// `model-types`, as written (possibly shorter than `models`, or empty).
    pub model_types: Vec<ModelType>,
    /// `pkg-inputs` (1.3).
    pub pkg_inputs: Vec<IoRef>,
    /// `pkg-outputs` (1.3).
    pub pkg_outputs: Vec<IoRef>,
    /// `model-connect` (1.3).
    pub model_connect: Vec<Connection>,
}

fn manifest_error(kind: Kind, key: &str, reason: impl Into<String>) -> PackageError {
    let at = if key.is_empty() { MANIFEST.to_owned() } else { format!("{MANIFEST}: {key}") };
    PackageError::new(kind, at, reason)
}

fn bad(key: &str, reason: impl Into<String>) -> PackageError {
    manifest_error(Kind::Manifest, key, reason)
}

/// A short description of a JSON value's kind, for messages.
fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How deeply `bytes` nest `[` and `{` (outside strings); stops counting past `max`.
fn nesting_exceeds(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth = depth.saturating_add(1);
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

impl Manifest {
    /// Parses and checks the MANIFEST's bytes. The size and nesting limits of `limits` are
    /// checked before the JSON parser runs.
    pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Manifest, PackageError> {
        let len = to_u64(bytes.len());
        if len > limits.max_manifest_bytes {
            return Err(manifest_error(
                Kind::TooLarge,
                "",
                format!("{len} bytes, more than the limit of {}", limits.max_manifest_bytes),
            ));
        }
        if nesting_exceeds(bytes, limits.max_json_depth) {
            return Err(manifest_error(
                Kind::InvalidJson,
                "",
                format!("JSON nests deeper than {} levels", limits.max_json_depth),
            ));
        }
        let root: Value = serde_json::from_slice(bytes)
            .map_err(|e| manifest_error(Kind::InvalidJson, "", format!("invalid JSON: {e}")))?;
        let Value::Object(root) = root else {
            return Err(manifest_error(
                Kind::Manifest,
                "",
                format!("expected a JSON object, found {}", kind_of(&root)),
            ));
        };
        let version = Version {
            major: version_part(&root, "major-version")?,
            minor: version_part(&root, "minor-version")?,
            patch: version_part(&root, "patch-version")?,
        };
        if version.major != 1 || version.minor > 3 {
            let key = if version.major != 1 { "\"major-version\"" } else { "\"minor-version\"" };
            return Err(manifest_error(
                Kind::UnsupportedVersion,
                key,
                format!(
                    "nnpackage {}.{} is not a version this reader knows (1.0 to 1.3)",
                    version.major, version.minor
                ),
            ));
        }
        let configs = strings(&root, "configs")?;
        for (i, name) in configs.iter().enumerate() {
            RelPath::under("metadata", name).map_err(|why| {
                manifest_error(Kind::PathEscapes, &format!("\"configs\"[{i}]"), format!("{name:?}: {why}"))
            })?;
        }
        let models = strings(&root, "models")?;
        if models.is_empty() {
            return Err(bad("\"models\"", "must name at least one model"));
        }
        if models.len() > limits.max_models {
            return Err(manifest_error(
                Kind::TooLarge,
                "\"models\"",
                format!("{} models, more than the limit of {}", models.len(), limits.max_models),
            ));
        }
        for (i, path) in models.iter().enumerate() {
            RelPath::parse(path).map_err(|why| {
                manifest_error(Kind::PathEscapes, &format!("\"models\"[{i}]"), format!("{path:?}: {why}"))
            })?;
        }
        let mut model_types = Vec::new();
        for (i, name) in strings(&root, "model-types")?.iter().enumerate() {
            let t = ModelType::from_name(name).ok_or_else(|| {
                bad(
                    &format!("\"model-types\"[{i}]"),
                    format!("unknown model type {name:?} (tflite, circle, bin or tvn)"),
                )
            })?;
            model_types.push(t);
        }
        if model_types.len() > models.len() {
            return Err(bad(
                "\"model-types\"",
                format!("{} entries, but \"models\" has {}", model_types.len(), models.len()),
            ));
        }
        let pkg_inputs = io_refs(&root, "pkg-inputs")?;
        let pkg_outputs = io_refs(&root, "pkg-outputs")?;
        let model_connect = connections(&root)?;
        Ok(Manifest { version, configs, models, model_types, pkg_inputs, pkg_outputs, model_connect })
    }

    /// The first config file, the one the runtime uses.
    pub fn config(&self) -> Option<&str> {
        self.configs.first().map(String::as_str)
    }
}

/// A version key: a string of digits (as the specification writes it) or a JSON integer.
fn version_part(root: &Map<String, Value>, key: &str) -> Result<u32, PackageError> {
    let shown = format!("\"{key}\"");
    match root.get(key) {
        None => Err(bad(&shown, "missing")),
        Some(Value::String(s)) => {
            let digits = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            digits
                .then(|| s.parse().ok())
                .flatten()
                .ok_or_else(|| bad(&shown, format!("{s:?} is not a version number")))
        }
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(&shown, format!("{n} is not a version number"))),
        Some(other) => Err(bad(&shown, format!("expected a string, found {}", kind_of(other)))),
    }
}

/// An array of strings under `key`; empty when the key is absent.
fn strings(root: &Map<String, Value>, key: &str) -> Result<Vec<String>, PackageError> {
    let Some(value) = root.get(key) else { return Ok(Vec::new()) };
    string_array(value, &format!("\"{key}\""))
}

fn string_array(value: &Value, shown: &str) -> Result<Vec<String>, PackageError> {
    let Value::Array(items) = value else {
        return Err(bad(shown, format!("expected an array, found {}", kind_of(value))));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(bad(&format!("{shown}[{i}]"), format!("expected a string, found {}", kind_of(other)))),
        })
        .collect()
}

fn io_ref(text: &str, shown: &str) -> Result<IoRef, PackageError> {
    IoRef::parse(text).ok_or_else(|| {
        manifest_error(Kind::BadIoRef, shown, format!("{text:?} does not split into m:s:i (three numbers)"))
    })
}

fn io_refs(root: &Map<String, Value>, key: &str) -> Result<Vec<IoRef>, PackageError> {
    strings(root, key)?.iter().enumerate().map(|(i, s)| io_ref(s, &format!("\"{key}\"[{i}]"))).collect()
}

fn connections(root: &Map<String, Value>) -> Result<Vec<Connection>, PackageError> {
    let Some(value) = root.get("model-connect") else { return Ok(Vec::new()) };
    let Value::Array(items) = value else {
        return Err(bad("\"model-connect\"", format!("expected an array, found {}", kind_of(value))));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let shown = format!("\"model-connect\"[{i}]");
        let Value::Object(fields) = item else {
            return Err(bad(&shown, format!("expected an object, found {}", kind_of(item))));
        };
        let from = match fields.get("from") {
            Some(Value::String(s)) => io_ref(s, &format!("{shown}.from"))?,
            Some(other) => {
                return Err(bad(&format!("{shown}.from"), format!("expected a string, found {}", kind_of(other))))
            }
            None => return Err(bad(&format!("{shown}.from"), "missing")),
        };
        let to_shown = format!("{shown}.to");
        let texts = match fields.get("to") {
            Some(v) => string_array(v, &to_shown)?,
            None => return Err(bad(&to_shown, "missing")),
        };
        if texts.is_empty() {
            return Err(bad(&to_shown, "names no input"));
        }
        let to =
            texts.iter().enumerate().map(|(j, s)| io_ref(s, &format!("{to_shown}[{j}]"))).collect::<Result<_, _>>()?;
        out.push(Connection { from, to });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is a failure
mod tests {
    use super::*;

    #[test]
    fn io_refs_need_three_numbers() {
        assert_eq!(IoRef::parse("1:0:2"), Some(IoRef { model: 1, subgraph: 0, index: 2 }));
        for bad in ["", "0:1", "0:1:2:3", "a:0:0", "0::0", "-1:0:0", "+1:0:0", " 1:0:0", "0:0:99999999999"] {
            assert_eq!(IoRef::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn nesting_is_counted_outside_strings() {
        assert!(!nesting_exceeds(br#"{"a": "[[[[[[[[", "b": [1]}"#, 2));
        assert!(nesting_exceeds(b"[[[", 2));
        assert!(!nesting_exceeds(br#"{"a\"[[[": 1}"#, 1));
    }
}
