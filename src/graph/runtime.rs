//! The runtimes whose own load-time checks a model can be held to, beyond the rules every reader
//! needs for safe reads. A runtime profile answers "would this runtime refuse the file?", not
//! "is the file safe to read": [`crate::tflite::Model::parse`] already answers that.

use core::fmt;

/// A runtime whose load-time checks a TFLite model can be held to
/// ([`crate::tflite::Model::check_runtime`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Runtime {
    /// Google's LiteRT (formerly TensorFlow Lite) interpreter, as of LiteRT 2.3: what its
    /// `InterpreterBuilder` refuses while building the interpreter.
    LiteRt,
    /// TensorFlow Lite for Microcontrollers: what `MicroInterpreter` refuses while allocating
    /// tensors, with the builtin kernels of its full operator resolver.
    Tflm,
}

impl Runtime {
    /// Every runtime with a profile, in the order warnings list them.
    pub const ALL: [Runtime; 2] = [Runtime::LiteRt, Runtime::Tflm];

    /// The short name the command line takes: `litert` or `tflm`.
    pub const fn key(self) -> &'static str {
        match self {
            Runtime::LiteRt => "litert",
            Runtime::Tflm => "tflm",
        }
    }

    /// The runtime whose [`Runtime::key`] is `key`.
    pub fn from_key(key: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.key() == key)
    }
}

/// Where a runtime walk reports each refusal: `None` to stop at the first (the walk's error),
/// else a callback taking the error and the name of the operator it is about, if any.
pub(crate) type Refusals<'e> = Option<&'e mut dyn FnMut(crate::Error, Option<&'static str>)>;

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Runtime::LiteRt => "LiteRT",
            Runtime::Tflm => "TFLite Micro",
        })
    }
}
