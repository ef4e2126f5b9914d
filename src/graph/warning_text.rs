//! How a [`Warning`] reads to a person: what is wrong, where, and which runtime cares.

use super::Warning;
use core::fmt;

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Warning::SentinelBufferNotEmpty => f.write_str(
                "Model.buffers[0]: holds data, but buffer 0 is the empty sentinel tensors without data point at \
                 (LiteRT only warns)",
            ),
            Warning::DuplicateMetadataName => f.write_str(
                "Model.metadata: two entries share a name; lookups by name (LiteRT, tflite-support) see only the \
                 first",
            ),
            Warning::UnproducedInput { subgraph, operator, input } => write!(
                f,
                "Model.subgraphs[{subgraph}].operators[{operator}].inputs[{input}]: reads a tensor that is no \
                 constant, variable or subgraph input and that no earlier operator produces (LiteRT's offline \
                 verifier rejects this; its interpreter loads it, and NPU compilers such as Vela use such tensors \
                 as scratch memory)"
            ),
            Warning::RuntimeRefuses { runtime, error, operator } => {
                write!(f, "{}: {runtime} refuses the model: {}", error.location(), error.kind())?;
                if let Some(name) = operator {
                    write!(f, ": {name}")?;
                }
                write!(f, " (byte {}; `flatmodel verify --runtime {}` fails on it)", error.offset(), runtime.key())
            }
        }
    }
}
