//! The formats: detection from the bytes, and one module per format.

pub mod circle;
pub mod tflite;

/// A format recognised from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// TFLite: identifier `TFL3`.
    Tflite,
    /// Circle: identifier `CIR0`.
    Circle,
}

/// Recognises the format of `bytes` from their content, not a file name.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if crate::wire::has_identifier(bytes, tflite::IDENTIFIER) {
        return Some(Format::Tflite);
    }
    if crate::wire::has_identifier(bytes, circle::IDENTIFIER) {
        return Some(Format::Circle);
    }
    None
}
