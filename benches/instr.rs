//! The Rust side of the instruction counts (`benches/instructions.py`): calls one reader on one
//! TFLite model a few times, under `valgrind --tool=callgrind --toggle-collect=instr_measured`, so
//! that callgrind counts exactly the instructions spent inside [`instr_measured`].
//!
//! ```text
//! cargo build --profile bench -p flatmodel-benches --example instr
//! valgrind --tool=callgrind --toggle-collect=instr_measured --callgrind-out-file=out \
//!     target/release/examples/instr READER MODEL.tflite CALLS
//! ```
//!
//! `READER` is one of [`READERS`]. Before the measured calls, the reader runs once outside
//! `instr_measured` (a warm-up that pays any first-call cost, such as resolving a dynamic symbol,
//! which a long-running program pays once), and the run-time schema is compiled outside it. Every
//! reader goes through the same `instr_measured` and the same dispatch, so the `empty` reader's
//! count, subtracted from each, removes the same call overhead from every figure, as the C++ side
//! (`benches/cpp/instr.cpp`) does with its own `empty`. Prints `ok` or `rejected`.

use std::hint::black_box;

use flatmodel::reflect::{Schema, TableId};
use flatmodel::tflite::Model;
use flatmodel::verify::Options;

#[rustfmt::skip]
#[path = "peers/schema_generated.rs"]
#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery, unsafe_op_in_unsafe_fn)]
mod fb_generated;

use fb_generated::tflite as fbt;

/// The readers, by the name the driver passes.
const READERS: [&str; 5] = ["empty", "structure", "parse", "reflect", "crate"];

/// One reader, ready to call.
enum Reader {
    /// Nothing: the call overhead every other figure has subtracted.
    Empty,
    /// `Model::parse_structure`: the structure check.
    Structure,
    /// `Model::parse`: the structure check and the model rules.
    Parse,
    /// The TFLite schema read from `schema.fbs` at run time, verifying with default options.
    Reflect(Box<Schema>, TableId),
    /// The `flatbuffers` crate's `root_as_model` (flatc-generated, default options).
    Crate,
}

/// The measured call: the only function callgrind counts.
#[no_mangle]
#[inline(never)]
fn instr_measured(reader: &Reader, bytes: &[u8]) -> bool {
    let bytes = black_box(bytes);
    match reader {
        Reader::Empty => black_box(true),
        Reader::Structure => Model::parse_structure(bytes).is_ok(),
        Reader::Parse => Model::parse(bytes).is_ok(),
        Reader::Reflect(schema, root) => schema.verify(bytes, *root, &Options::DEFAULT).is_ok(),
        Reader::Crate => fbt::root_as_model(bytes).is_ok(),
    }
}

/// The warm-up call: the same work, not counted.
#[inline(never)]
fn warm_up(reader: &Reader, bytes: &[u8]) -> bool {
    match reader {
        Reader::Empty => black_box(true),
        Reader::Structure => Model::parse_structure(black_box(bytes)).is_ok(),
        Reader::Parse => Model::parse(black_box(bytes)).is_ok(),
        Reader::Reflect(schema, root) => schema.verify(black_box(bytes), *root, &Options::DEFAULT).is_ok(),
        Reader::Crate => fbt::root_as_model(black_box(bytes)).is_ok(),
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, path, calls] = args.as_slice() else {
        return Err(format!("usage: instr {{{}}} MODEL.tflite CALLS", READERS.join("|")));
    };
    let calls: u32 = calls.parse().map_err(|e| format!("CALLS: {e}"))?;
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let reader = match name.as_str() {
        "empty" => Reader::Empty,
        "structure" => Reader::Structure,
        "parse" => Reader::Parse,
        "reflect" => {
            let fbs = concat!(env!("CARGO_MANIFEST_DIR"), "/../src/formats/tflite/schema.fbs");
            let text = std::fs::read_to_string(fbs).map_err(|e| format!("{fbs}: {e}"))?;
            let schema = Schema::from_fbs_text(&text).map_err(|e| format!("{fbs}: {e}"))?;
            let root = schema.root().ok_or("schema.fbs has no root_type")?;
            Reader::Reflect(Box::new(schema), root)
        }
        "crate" => Reader::Crate,
        other => return Err(format!("unknown reader {other:?}; one of {}", READERS.join(", "))),
    };
    let first = warm_up(&reader, &bytes);
    let mut all = true;
    for _ in 0..calls {
        all &= instr_measured(black_box(&reader), &bytes);
    }
    println!("{}", if first && all { "ok" } else { "rejected" });
    Ok(())
}
