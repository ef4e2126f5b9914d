//! Any model file this crate reads: the format recognised from the bytes ([`super::detect`])
//! and verified, in one call, for tools that take whatever file they are given. The common
//! jobs (the bytes, the format, the root to dump, the warnings) need no match on the format.

use super::{circle, cvimodel, detect, litertlm, ptd, pte, tflite, vkgraph, xnnpack, Format};
use crate::container::Parsed;
use crate::dump::Dumpable;
use crate::error::{Error, ErrorKind, Location};
use crate::graph::ModelView;
use crate::verify::Options;
use core::fmt;

static FILE: &str = "file";

/// A verified file of one of the formats, as its format's own view.
///
/// What every format has is a method here: [`File::bytes`], [`File::format`],
/// [`File::dump_root`], [`File::for_each_warning`], [`File::check_rules`]. Match on the
/// variants for what only one format has (a TFLite model's tensors, a cvimodel's sections).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tflite/sine_float.tflite"))?;
/// let file = flatmodel::File::parse(&bytes)?;
/// assert_eq!(file.format(), flatmodel::Format::Tflite);
/// assert_eq!(file.bytes().len(), bytes.len());
/// file.for_each_warning(|w| println!("warning: {w}"))?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
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
    /// An XNNPACK delegate blob (`XH00`) or a bare XNNGraph (`XN01`).
    Xnnpack(xnnpack::Blob<'a>),
    /// An ExecuTorch data file (`.ptd`).
    Ptd(ptd::PtdFile<'a>),
    /// A LiteRT-LM file (`.litertlm`).
    LitertLm(litertlm::LitertLmFile<'a>),
}

impl<'a> File<'a> {
    /// Recognises `bytes` and verifies them completely as their format: structure, then rules.
    /// Bytes of no format this crate reads are an [`ErrorKind::UnknownFormat`] error at byte 0.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let file = Self::parse_structure(bytes)?;
        file.check_rules(&Options::DEFAULT)?;
        Ok(file)
    }

    /// [`File::parse`] with explicit limits (for the structure and the rules), also returning
    /// the verifier's counts: the same verdict as the format's own `parse_with`.
    pub fn parse_with(bytes: &'a [u8], options: &Options) -> Result<Parsed<Self>, Error> {
        let parsed = Self::parse_structure_with(bytes, options)?;
        parsed.value.check_rules(options)?;
        Ok(parsed)
    }

    /// [`File::parse_with`], writing a failure's error into `error` (and returning `None`) rather
    /// than returning it, as each format's `parse_into` does; `error` is left as it was when the
    /// bytes are valid.
    pub fn parse_into(bytes: &'a [u8], options: &Options, error: &mut Error) -> Option<Parsed<Self>> {
        fn wrap<'a, T>(parsed: Option<Parsed<T>>, variant: fn(T) -> File<'a>) -> Option<Parsed<File<'a>>> {
            parsed.map(|p| Parsed { value: variant(p.value), stats: p.stats })
        }
        match detect(bytes) {
            Some(Format::Tflite) => wrap(tflite::Model::parse_into(bytes, options, error), File::Tflite),
            Some(Format::Circle) => wrap(circle::Model::parse_into(bytes, options, error), File::Circle),
            Some(Format::VkGraph) => wrap(vkgraph::Blob::parse_into(bytes, options, error), File::VkGraph),
            Some(Format::Pte) => wrap(pte::PteFile::parse_into(bytes, options, error), File::Pte),
            Some(Format::Cvimodel) => wrap(cvimodel::CviModel::parse_into(bytes, options, error), File::Cvimodel),
            Some(Format::Xnnpack) => wrap(xnnpack::Blob::parse_into(bytes, options, error), File::Xnnpack),
            Some(Format::Ptd) => wrap(ptd::PtdFile::parse_into(bytes, options, error), File::Ptd),
            Some(Format::LitertLm) => wrap(litertlm::LitertLmFile::parse_into(bytes, options, error), File::LitertLm),
            None => {
                error.copy_from(&Error::new(ErrorKind::UnknownFormat, 0, Location::at(&FILE)));
                None
            }
        }
    }

    /// Recognises `bytes` and verifies their structure only (each format's `parse_structure`),
    /// for tools that show a file whose rules fail; [`File::check_rules`] gives the rest.
    pub fn parse_structure(bytes: &'a [u8]) -> Result<Self, Error> {
        Self::parse_structure_with(bytes, &Options::DEFAULT).map(|p| p.value)
    }

    /// [`File::parse_structure`] with explicit limits, also returning the verifier's counts.
    pub fn parse_structure_with(bytes: &'a [u8], options: &Options) -> Result<Parsed<Self>, Error> {
        fn wrap<'a, T>(parsed: Parsed<T>, variant: fn(T) -> File<'a>) -> Parsed<File<'a>> {
            Parsed { value: variant(parsed.value), stats: parsed.stats }
        }
        Ok(match detect(bytes) {
            Some(Format::Tflite) => wrap(tflite::Model::parse_structure_with(bytes, options)?, File::Tflite),
            Some(Format::Circle) => wrap(circle::Model::parse_structure_with(bytes, options)?, File::Circle),
            Some(Format::VkGraph) => wrap(vkgraph::Blob::parse_structure_with(bytes, options)?, File::VkGraph),
            Some(Format::Pte) => wrap(pte::PteFile::parse_structure_with(bytes, options)?, File::Pte),
            Some(Format::Cvimodel) => wrap(cvimodel::CviModel::parse_structure_with(bytes, options)?, File::Cvimodel),
            Some(Format::Xnnpack) => wrap(xnnpack::Blob::parse_structure_with(bytes, options)?, File::Xnnpack),
            Some(Format::Ptd) => wrap(ptd::PtdFile::parse_structure_with(bytes, options)?, File::Ptd),
            Some(Format::LitertLm) => {
                wrap(litertlm::LitertLmFile::parse_structure_with(bytes, options)?, File::LitertLm)
            }
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
            File::Xnnpack(b) => b.check_rules(options),
            File::Ptd(p) => p.check_rules(options),
            File::LitertLm(l) => l.check_rules(options),
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
            File::Xnnpack(_) => Format::Xnnpack,
            File::Ptd(_) => Format::Ptd,
            File::LitertLm(_) => Format::LitertLm,
        }
    }

    /// The whole input the file was parsed from, header and trailing data included (what was
    /// given to [`File::parse`]).
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tflite/sine_float.tflite")).unwrap();
    /// let file = flatmodel::File::parse_structure(&bytes)?;
    /// assert!(core::ptr::eq(file.bytes(), &bytes[..]));
    /// # Ok::<(), flatmodel::Error>(())
    /// ```
    pub fn bytes(&self) -> &'a [u8] {
        match self {
            File::Tflite(m) => ModelView::file(m),
            File::Circle(m) => ModelView::file(m),
            File::VkGraph(b) => b.bytes(),
            File::Pte(p) => p.bytes(),
            File::Cvimodel(c) => c.file(),
            File::Xnnpack(b) => b.bytes(),
            File::Ptd(p) => p.bytes(),
            File::LitertLm(l) => l.bytes(),
        }
    }

    /// The root table [`crate::dump::dump_table`] prints for the file: the model of a TFLite
    /// or Circle file, the program of a `.pte`, the VkGraph of a Vulkan blob, the XNNGraph of
    /// an XNNPACK blob, the FlatTensor of a `.ptd`, the metadata of a `.litertlm`, the body of a
    /// cvimodel.
    ///
    /// A Circle model is dumped by the names of the schema revision its content shows
    /// ([`circle::Model::dump_root`]); that dump of a revision-0 file verifies the bytes again
    /// against revision 0's layout, and this is the one error this method can return.
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tflite/sine_float.tflite")).unwrap();
    /// let file = flatmodel::File::parse_structure(&bytes)?;
    /// let mut json = String::new();
    /// flatmodel::dump::dump_table(&mut json, file.dump_root()?, &Default::default()).unwrap();
    /// assert!(json.starts_with('{'));
    /// # Ok::<(), flatmodel::Error>(())
    /// ```
    pub fn dump_root(&self) -> Result<Dumpable<'a>, Error> {
        match self {
            File::Tflite(m) => Ok(Dumpable::new(*m)),
            File::Circle(m) => m.dump_root(),
            File::VkGraph(b) => Ok(Dumpable::new(b.graph())),
            File::Pte(p) => Ok(Dumpable::new(p.program())),
            File::Cvimodel(c) => Ok(Dumpable::new(c.model())),
            File::Xnnpack(b) => Ok(Dumpable::new(b.graph())),
            File::Ptd(p) => Ok(Dumpable::new(p.flat_tensor())),
            File::LitertLm(l) => Ok(Dumpable::new(l.metadata())),
        }
    }

    /// Calls `f` for each advisory finding of the file's format: [`File::for_each_warning_with`]
    /// with the default limits. Each [`FileWarning`] displays as a sentence.
    ///
    /// ```
    /// # let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tflite/sine_float.tflite")).unwrap();
    /// let file = flatmodel::File::parse(&bytes)?;
    /// let mut count = 0;
    /// file.for_each_warning(|w| {
    ///     eprintln!("{w}");
    ///     count += 1;
    /// })?;
    /// # Ok::<(), flatmodel::Error>(())
    /// ```
    pub fn for_each_warning(&self, f: impl FnMut(FileWarning)) -> Result<(), Error> {
        self.for_each_warning_with(&Options::DEFAULT, f)
    }

    /// Calls `f` for each advisory finding of the file's format: a TFLite or Circle model's
    /// ([`tflite::Model::for_each_warning_with`]), a cvimodel's
    /// ([`cvimodel::CviModel::for_each_warning_with`]); `.pte` programs, `.ptd` data files,
    /// `.litertlm` files, Vulkan and XNNPACK blobs have none.
    ///
    /// The walk is charged to the apparent-size budget of `options`. On a file
    /// [`File::check_rules`] accepted with the same `options` it never runs out; after
    /// [`File::parse_structure`] alone it may stop with [`ErrorKind::ApparentSizeLimit`], the
    /// findings before it reported.
    pub fn for_each_warning_with(&self, options: &Options, mut f: impl FnMut(FileWarning)) -> Result<(), Error> {
        match self {
            File::Tflite(m) => m.for_each_warning_with(options, |w| f(FileWarning::Model(w))),
            File::Circle(m) => m.for_each_warning_with(options, |w| f(FileWarning::Model(w))),
            File::Cvimodel(c) => c.for_each_warning_with(options, |w| f(FileWarning::Cvimodel(w))),
            File::VkGraph(_) | File::Pte(_) | File::Xnnpack(_) | File::Ptd(_) | File::LitertLm(_) => Ok(()),
        }
    }

    /// The file's warnings ([`File::for_each_warning`]) in a vector, or the error that ended
    /// the list (never on a file [`File::parse`] accepted).
    #[cfg(feature = "alloc")]
    pub fn warnings(&self) -> Result<alloc::vec::Vec<FileWarning>, Error> {
        let mut warnings = alloc::vec::Vec::new();
        self.for_each_warning(|w| warnings.push(w))?;
        Ok(warnings)
    }
}

/// An advisory finding in a [`File`], as its format reports it: something a runtime tolerates
/// but a careful writer would not produce. It displays as a sentence naming where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileWarning {
    /// A TFLite or Circle model's ([`crate::graph::Warning`]).
    Model(crate::graph::Warning),
    /// A cvimodel's ([`cvimodel::Warning`]).
    Cvimodel(cvimodel::Warning),
}

impl fmt::Display for FileWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileWarning::Model(w) => w.fmt(f),
            FileWarning::Cvimodel(w) => w.fmt(f),
        }
    }
}
