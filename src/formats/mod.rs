//! The formats: detection from the bytes, and one module per format.

pub mod tflite;

/// A format recognised from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// TFLite: identifier `TFL3`.
    Tflite,
}

/// Recognises the format of `bytes` from their content, not a file name.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if crate::wire::has_identifier(bytes, *b"TFL3") {
        return Some(Format::Tflite);
    }
    None
}
