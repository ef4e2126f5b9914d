//! The formats: detection from the bytes, and one module per format.

pub mod circle;
pub mod circle_training;
pub mod conversion_metadata;
pub mod cvimodel;
mod file;
pub mod litertlm;
pub mod ptd;
pub mod pte;
pub mod tflite;
pub mod tflite_metadata;
pub mod vkgraph;
pub mod xnnpack;

pub use file::{File, FileWarning};

/// A format recognised from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// TFLite: identifier `TFL3`.
    Tflite,
    /// Circle: identifier `CIR0`.
    Circle,
    /// A Vulkan delegate blob: `VH00` header, or a bare VkGraph with identifier `VK00`.
    VkGraph,
    /// An ExecuTorch program (`.pte`): identifier `ET12`.
    Pte,
    /// A Sophgo cvimodel: magic `CviModel` at byte 0.
    Cvimodel,
    /// An XNNPACK delegate blob: `XH00` header, or a bare XNNGraph with identifier `XN01`.
    Xnnpack,
    /// An ExecuTorch data file (`.ptd`): identifier `FT01`.
    Ptd,
    /// A LiteRT-LM file (`.litertlm`): magic `LITERTLM` at byte 0.
    LitertLm,
}

impl Format {
    /// The format's short name, as the command line's `scan` and a bundle's members, and
    /// Python's `verify(...).format`, give it: `tflite`, `circle`, `vkgraph`, `pte`,
    /// `cvimodel`, `xnnpack`, `ptd` or `litertlm`.
    pub const fn short_name(self) -> &'static str {
        match self {
            Format::Tflite => "tflite",
            Format::Circle => "circle",
            Format::VkGraph => "vkgraph",
            Format::Pte => "pte",
            Format::Cvimodel => "cvimodel",
            Format::Xnnpack => "xnnpack",
            Format::Ptd => "ptd",
            Format::LitertLm => "litertlm",
        }
    }
}

/// Recognises the format of `bytes` from their content, not a file name.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if cvimodel::is_cvimodel(bytes) {
        return Some(Format::Cvimodel);
    }
    if litertlm::is_litertlm(bytes) {
        return Some(Format::LitertLm);
    }
    if crate::wire::has_identifier(bytes, tflite::IDENTIFIER) {
        return Some(Format::Tflite);
    }
    if crate::wire::has_identifier(bytes, circle::IDENTIFIER) {
        return Some(Format::Circle);
    }
    if crate::wire::has_identifier(bytes, vkgraph::HEADER_MAGIC)
        || crate::wire::has_identifier(bytes, vkgraph::IDENTIFIER)
    {
        return Some(Format::VkGraph);
    }
    if crate::wire::has_identifier(bytes, xnnpack::HEADER_MAGIC)
        || crate::wire::has_identifier(bytes, xnnpack::IDENTIFIER)
    {
        return Some(Format::Xnnpack);
    }
    if crate::wire::has_identifier(bytes, ptd::IDENTIFIER) {
        return Some(Format::Ptd);
    }
    if crate::wire::has_identifier(bytes, pte::IDENTIFIER) {
        return Some(Format::Pte);
    }
    None
}
