//! Any model file this crate reads: the format recognised from the bytes ([`super::detect`])
//! and verified, in one call, for tools that take whatever file they are given.

use super::{circle, cvimodel, detect, pte, tflite, vkgraph, Format};
use crate::error::{Error, ErrorKind, Location};
use crate::verify::Options;

static FILE: &str = "file";

/// A verified file of one of the formats, as its format's own view.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum File<'a> {
    /// A TFLite model.
    Tflite(tflite::Model<'a>),
    /// A Circle model.
    Circle(circle::Model<'a>),
    /// A Vulkan delegate blob (`VH00`) or a bare VkGraph (`VK00`).
    VkGraph(vkgraph::Blob<'a>),
    /// An ExecuTorch program (`.pte`).
    Pte(pte::PteFile<'a>),
    /// A Sophgo cvimodel.
    Cvimodel(cvimodel::CviModel<'a>),
}

impl<'a> File<'a> {
    /// Recognises `bytes` and verifies them completely as their format: structure, then rules.
    /// Bytes of no format this crate reads are an [`ErrorKind::UnknownFormat`] error at byte 0.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let file = Self::parse_structure(bytes)?;
        file.check_rules(&Options::DEFAULT)?;
        Ok(file)
    }

    /// Recognises `bytes` and verifies their structure only (each format's `parse_structure`),
    /// for tools that show a file whose rules fail; [`File::check_rules`] gives the rest.
    pub fn parse_structure(bytes: &'a [u8]) -> Result<Self, Error> {
        Ok(match detect(bytes) {
            Some(Format::Tflite) => File::Tflite(tflite::Model::parse_structure(bytes)?),
            Some(Format::Circle) => File::Circle(circle::Model::parse_structure(bytes)?),
            Some(Format::VkGraph) => File::VkGraph(vkgraph::Blob::parse_structure(bytes)?),
            Some(Format::Pte) => File::Pte(pte::PteFile::parse_structure(bytes)?),
            Some(Format::Cvimodel) => File::Cvimodel(cvimodel::CviModel::parse_structure(bytes)?),
            None => return Err(Error::new(ErrorKind::UnknownFormat, 0, Location::at(&FILE))),
        })
    }

    /// The format's rules over a file [`File::parse_structure`] accepted.
    pub fn check_rules(&self, options: &Options) -> Result<(), Error> {
        match self {
            File::Tflite(m) => m.check_rules(options),
            File::Circle(m) => m.check_rules(options),
            File::VkGraph(b) => b.check_rules(options),
            File::Pte(p) => p.check_rules(options),
            File::Cvimodel(c) => c.check_rules(options),
        }
    }

    /// The TFLite or Circle model in `bytes`, which [`File::parse`] accepted earlier as
    /// `format`, without verifying it again (the bytes must not have changed since: a
    /// package keeps its model files' bytes and checks that they did not move). `None` for
    /// the other formats.
    #[cfg(feature = "nnpackage")]
    pub(crate) fn reread(bytes: &'a [u8], format: Format) -> Option<Self> {
        match format {
            Format::Tflite => crate::container::reread_root(bytes).map(File::Tflite),
            Format::Circle => crate::container::reread_root(bytes).map(File::Circle),
            _ => None,
        }
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        match self {
            File::Tflite(_) => Format::Tflite,
            File::Circle(_) => Format::Circle,
            File::VkGraph(_) => Format::VkGraph,
            File::Pte(_) => Format::Pte,
            File::Cvimodel(_) => Format::Cvimodel,
        }
    }
}
