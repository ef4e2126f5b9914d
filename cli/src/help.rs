//! The help texts: the general usage and each command's own page, with an example.

use crate::output::Out;
use crate::status::{Failure, Outcome};
use std::io::Write;

/// The general usage, printed by `flatmodel --help`, `flatmodel help` and after usage errors.
pub const USAGE: &str = "\
usage:
  flatmodel verify [--runtime R] FILE...
                                      check files (structure and model rules), one line each
  flatmodel verify P.pte --data W.ptd...
                                      check an ExecuTorch program with its data files together
  flatmodel inspect FILE [--json] [--tensors] [--tflm-resolver]
                                      what a model takes, holds and needs
  flatmodel scan FILE...              for upload scanners: a JSON line per file, its verdict and
                                      findings (custom operators, delegates, data outside the
                                      flatbuffer, appended bytes, nested flatbuffers, refusals)
  flatmodel dump FILE [metadata:NAME] [--circle-revision 0|0.10]
                                      the model's flatbuffer, or one nested in its metadata, as JSON
                                      (flatc's conventions)
  flatmodel verify|inspect|dump --schema S.fbs|S.bfbs [--root-type NAME] FILE...
                                      the same for any flatbuffer, read by a schema given at run time
  flatmodel extract FILE WHAT -o OUT  write the bytes WHAT names (OUT '-' is standard output)
  flatmodel bench FILE... [--runs N] [--cold] [--json]
                                      time each stage of reading each file (open, structure,
                                      rules, walk, dump): the fastest and the median run
  flatmodel path FORMAT TEXT          name the field numbers (#N) in an error path of a
                                      numeric-paths build
  flatmodel help [COMMAND]            a command's options and an example

Formats, detected from the bytes: TFLite (TFL3), Circle (CIR0), nnpackage directories and zips,
ExecuTorch programs (.pte, ET12), Vulkan delegate blobs (VH00) and bare VkGraphs (VK00), XNNPACK
delegate blobs (XH00) and bare XNNGraphs (XN01), ExecuTorch data files (.ptd, FT01), Sophgo
cvimodels (CviModel), LiteRT-LM files (.litertlm, LITERTLM), and model bundles: zip archives of
models that are no nnpackage (MediaPipe's .task), each member by its own bytes.
Files are read into memory, as one snapshot: one written meanwhile is read again, then refused.
--mmap (verify, inspect, scan, dump, extract, bench) maps them instead, for files too large to hold: nothing
may then truncate or rewrite a file while flatmodel runs (a truncated one ends it with SIGBUS).
Exit codes: 0 ok, 1 invalid model (scan: or a finding), 2 usage or I/O error.";

struct Page {
    name: &'static str,
    usage: &'static str,
    text: &'static str,
}

const PAGES: &[Page] = &[
    Page {
        name: "verify",
        usage: "usage: flatmodel verify [-q|--quiet] [--runtime litert|tflm] FILE...
       flatmodel verify [-q|--quiet] P.pte --data W.ptd [--data W2.ptd ...]
       flatmodel verify [-q|--quiet] --schema S.fbs|S.bfbs [--root-type NAME] FILE...",
        text: "\
Checks each FILE or nnpackage completely: the flatbuffer structure, the format's model rules
(indices, data ranges, quantization, dataflow, control-flow cycles) and what surrounds the
flatbuffer (headers, segments, sections). Every FILE gets one line, `ok (...)`, `invalid: REASON`
(the byte offset and schema path of the fault) or `error: ...` when it cannot be read, followed
by one line per warning (what a runtime may object to). --quiet leaves out the ok lines.

A TFLite model that one runtime refuses and another runs is valid; the refusal is a warning
naming the runtime and the check. --runtime litert (LiteRT's interpreter) or --runtime tflm
(TensorFlow Lite Micro) applies that runtime's own load-time checks: a model it would refuse is
invalid. Custom operators and each kernel's own checks are out of their scope.

An ExecuTorch program (.pte) may read weights from named data outside it: program tensors
stored EXTERNAL (by fully qualified name) and delegates' named constants (XNNPACK's and
Vulkan's, by SHA-256 key). `verify P.pte` adds a line per reader that needs keys its own named
data lacks: `needs external data: N key(s) (B bytes) for READER: KEY, ...`. --data W.ptd (may
repeat) checks the program with those ExecuTorch data files: every key must be in the program's
named data or a .ptd, with the bytes its reader needs (a program tensor's from a datum with a
tensor layout). `ok` is followed by `data: N key(s) resolved (...)`; otherwise `invalid:` names
the first key missing or short, who needs it and the bytes needed and found. --data on a file
that is no .pte, or naming a file that is no .ptd, is a usage error.

--schema verifies each FILE instead as a flatbuffer of that schema: a .fbs file (its includes
read relative to it) or flatc's binary schema (.bfbs, `flatc -b --schema`). The root is a table
of type --root-type NAME (with or without its namespace), else the schema's root_type; the
schema's file_identifier is required when the root is its root_type. `ok (ROOT, ...)` counts
the tables, vectors and strings verified; `invalid:` names the fault's byte and field path
(Monster.weapons[1].name). A schema that does not load is a usage error (file:line:column).

A model bundle (a zip archive without metadata/MANIFEST, such as MediaPipe's .task) gets
`ok (model bundle, N member(s): M model(s), K other)`, then a line per member: the verdict of
its format for a member whose bytes a format claims, `other, N bytes, not verified` for the
rest (a tokenizer, metadata). A member that fails its format makes the bundle invalid, naming
the member, the byte in it and the byte in the archive.

Exit status: 2 if any FILE could not be read, else 1 if any is invalid, else 0.

example:
  flatmodel verify models/*.tflite
  flatmodel verify --runtime tflm person_detect.tflite
  flatmodel verify model.pte --data model.ptd
  flatmodel verify --schema monster.fbs --root-type Monster saves/*.bin",
    },
    Page {
        name: "inspect",
        usage: "usage: flatmodel inspect FILE [--json] [--tensors] [--tflm-resolver]
       flatmodel inspect --schema S.fbs|S.bfbs [--root-type NAME] FILE [--json]",
        text: "\
Summarises a model: format and version, the model rules' verdict and warnings; what it takes and
gives (each signature's inputs and outputs, else the primary subgraph's: dtype, shape with -1 for
a dynamic dimension, quantization); its size (weights inside and outside the flatbuffer,
parameters, weight bytes by type and by the operator that reads them); each subgraph with the
subgraphs its control-flow operators call and its activation arena (the sum of its non-constant
tensors, and a greedy plan by tensor lifetime in the manner of TensorFlow Lite Micro's planner);
operators by name and version; signatures, metadata and buffers. --tensors adds one row per
tensor (type, stored shape with dynamic dimensions marked, bytes, buffer, quantization), or for
a .pte or Vulkan graph per value (type, shape, bytes, where its data is). An XNNPACK blob (and
each XNNPACK delegate of a .pte) shows its XH00 header and regions, nodes by type, values by
kind, dtype and quantization, and its constants by dtype and by the node type reading them, each
with where its bytes live (the blob's constant region, or named data under a key); the text lists
the first 10 constants, --tensors every one and every value. A .ptd shows its FH01 header,
segments and named data (segment, bytes, tensor layout). A .litertlm file shows its version,
system metadata and sections (type, byte range, size, items), each TFLite section with the
summary of its model, indented; only those bytes are read (with --mmap, a file of many GiB costs
the pages of its metadata and TFLite sections). --json
prints the same as JSON, numbers at full precision, in the layout cli/src/inspect.schema.json
describes for every format (its format_version key names the layout's version). --tflm-resolver prints instead, for a TFLite
model, the C++ lines that register its operators with TensorFlow Lite Micro (the set TFLM's
generate_micro_mutable_op_resolver_from_model.py derives). A file whose summary would be
disproportionate to its size (tables shared by many offsets) is refused with exit status 1.
A model bundle lists its members (format, size, stored at which byte or deflated), then each
model member's own summary.

--schema reads FILE instead as a flatbuffer of that schema (.fbs or .bfbs; the root as
--root-type NAME, else the schema's root_type, as verify --schema does) and prints its root
type, its file identifier (found at bytes 4..8, and the schema's), the tables, vectors and
strings the verifier visited, and its size and apparent size (the verifier's units of work);
--json prints the same as JSON (format `flatbuffer`).

example:
  flatmodel inspect model.tflite --tensors | less
  flatmodel inspect --tflm-resolver person_detect.tflite >> resolver.inc",
    },
    Page {
        name: "scan",
        usage: "usage: flatmodel scan [--mmap] FILE...",
        text: "\
For upload scanners: prints one JSON object per FILE, nnpackage or model bundle (format
`bundle`, each finding naming its `member`), on one line, in the order
given: {\"path\", \"verdict\", \"format\", \"error\", \"findings\", \"findings_count\"}. The verdict
is valid (verified completely, as verify does), invalid (a format flatmodel reads, failing
verification: error holds its kind, byte offset, schema path and message), unknown-format
(bytes of no format flatmodel reads) or unreadable. Each finding of a valid file has a stable
id, a message, the name it concerns and the byte range (offset, length) and schema path it
concerns: custom-operator, flex-operator, delegate, data-outside-flatbuffer, external-data,
appended-data, nested-flatbuffer, runtime-refusal (LiteRT's and TensorFlow Lite Micro's own
load checks) and warning. docs/scan.md lists what each means.

Exit status: 2 if any FILE could not be read, else 1 if any is invalid, of no known format or
has a finding, else 0.

example:
  flatmodel scan uploads/*
  flatmodel scan model.tflite | jq -r '.findings[].id'",
    },
    Page {
        name: "dump",
        usage: "usage: flatmodel dump FILE [metadata:NAME|section:N] [--circle-revision 0|0.10]
       flatmodel dump --schema S.fbs|S.bfbs [--root-type NAME] FILE",
        text: "\
Prints the file's flatbuffer as JSON with flatc's conventions (`flatc --json --strict-json
--defaults-json`): the TFLite or Circle Model, the .pte Program, a blob's VkGraph, a
cvimodel's Model or a .litertlm file's LiteRTLMMetaData. metadata:NAME prints instead the
flatbuffer nested in the model's metadata entry NAME, verified first: TFLITE_METADATA
(tflite-support's ModelMetadata, M001) or CONVERSION_METADATA (the converter's record) in a
TFLite model, CIRCLE_TRAINING (the training parameters, CTR0 or CTR1) in a Circle model.
section:N prints a .litertlm file's TFLite section N as the model it holds (as dump prints that
model in a file of its own); a section of another type is a usage error. The output streams; a
dump disproportionate to the file (tables shared by many offsets) is refused with exit status 1
before anything is printed.

A Circle file is printed with the field names of the schema revision its content shows
(revision 0 for operator codes in slot 0 alone or a stored data_format, otherwise 0.10, the
names of ONE's circle_schema.fbs of each); --circle-revision 0 or 0.10 chooses the names.

--schema prints any flatbuffer as that schema reads it (.fbs or .bfbs; the root as --root-type
NAME, else the schema's root_type, as verify --schema does): flatc's JSON of the same schema,
streamed and refused when disproportionate as above; an invalid FILE is reported with its
fault's byte and field path (exit status 1).

example:
  flatmodel dump model.tflite > model.json
  flatmodel dump model.tflite metadata:TFLITE_METADATA
  flatmodel dump model.litertlm section:2
  flatmodel dump model.circle --circle-revision 0.10
  flatmodel dump --schema monster.fbs save.bin > save.json",
    },
    Page {
        name: "extract",
        usage: "usage: flatmodel extract FILE WHAT -o OUT [--raw]",
        text: "\
Writes what WHAT names to OUT ('-' for standard output):
  tensor:INDEX, tensor:NAME        a TFLite or Circle tensor's constant data as a NumPy .npy file
                                   (dtype, shape, little-endian data; int4, uint4 and int2 unpacked
                                   to a byte each); --raw writes the bytes as stored. INDEX counts
                                   in the primary subgraph; NAME finds the first tensor so named.
                                   Sparse tensors and types NumPy lacks (bfloat16, float8) need --raw.
  buffer:N, metadata:NAME          TFLite and Circle buffers and metadata entries, as stored
  delegate:N, segment:N, named:KEY a .pte's delegate blobs, segments and named data, as stored;
                                   N counts the delegates of every execution plan, plan by plan
                                   (as inspect lists them)
  delegate:N/constant:M            constant M of the .pte's XNNPACK delegate N, found inline in its
                                   blob or, for a named constant, in the program's named data
  constant:N                       a VH00 blob's constant, as stored; an XH00 blob's (or bare
                                   XNNGraph's) inline constant (a named one lives in a .pte's or a
                                   .ptd's named data: the error names its key)
  named:KEY                        a .ptd's named datum
                                   XNNPACK constants and .ptd named data are written as .npy with
                                   the dtype and shape of the value (the tensor layout) holding
                                   them where NumPy has the dtype (fp32, fp16, int8, uint8, int32,
                                   bool, ...); packed int4, bfloat16 (groupwise scales), data with
                                   no layout or not in C order are written as stored, with a note
                                   on standard error. --raw always writes them as stored.
  section:NAME                     a cvimodel section as stored
  section-data:NAME                ... inflated when LZ4-compressed
  weight:NAME                      a cvimodel weight
  section:N                        a .litertlm file's section N (from 0), byte for byte
  member:NAME                      a model bundle's member (MediaPipe .task), inflated if deflated

example:
  flatmodel extract model.tflite tensor:conv2d/Kernel -o kernel.npy
  flatmodel extract model.tflite metadata:min_runtime_version -o -
  flatmodel extract model.pte delegate:0 -o delegate0.xh00
  flatmodel extract model.pte delegate:0/constant:1 -o weight.npy
  flatmodel extract weights.ptd named:fc1.weight -o fc1_weight.npy
  flatmodel extract model.litertlm section:2 -o section2.tflite",
    },
    Page {
        name: "bench",
        usage: "usage: flatmodel bench [--runs N] [--cold] [--json] [--mmap] FILE...",
        text: "\
Times, for each FILE, each stage of reading it, as the command line and the library do it,
each stage alone over the same bytes:
  open       reading the file into memory as every command does (with --mmap: mapping it and
             touching each page)
  structure  recognising the format and verifying the header and flatbuffer (parse_structure)
  rules      the format's rules over the structure-verified file (check_rules)
  walk       a walk of every field of every table the root reaches, through the typed views
  dump       the JSON dump flatmodel dump prints, into a sink that only counts its bytes
A stage is timed over repeated runs, after one untimed warm-up run, and reported as its
fastest and its median run, with the file's megabytes per second at the fastest. --runs N
makes exactly N runs of each stage (1 to 1000000); by default each stage gets as many as fill
about 0.3 s, judged by its warm-up run, from 5 to 10000. The figures include the clock's own
cost (tens of nanoseconds).

--cold asks the operating system to drop the file's pages from its page cache before each run
of the open stage (Linux: posix_fadvise DONTNEED), which is then timed without a warm-up: it
reads from the device. The later stages work on the bytes in memory either way. Where the
system offers no eviction, the output says so (`cold requested but unsupported here`, JSON
\"cold\": \"unsupported\") and the runs read what the cache holds.

A stage without a timing shows `—` (null in JSON): the stages after a failing structure
verification, a walk or dump the work budget refuses (tables shared by many offsets). A file
whose rules fail is still walked and dumped (both need the structure alone). --json prints one
document: {format_version, access, runs, cold, files: [{path, format, bytes, verdict, error,
cold, stages: {open, structure, rules, walk, dump}, walk_objects, dump_bytes, notes}]}, each
stage {runs, min_ns, median_ns} or null (docs/bench.md). nnpackages and model bundles (zip
archives) are not timed: bench their model files.

Exit status: 2 if any FILE could not be read or is not timed, else 1 if any is invalid, else 0.

example:
  flatmodel bench model.tflite
  flatmodel bench --runs 50 --json models/*.tflite > bench.json
  flatmodel bench --cold --mmap large.pte",
    },
    Page {
        name: "path",
        usage: "usage: flatmodel path FORMAT TEXT",
        text: "\
Names the fields in an error path printed by a build with the `numeric-paths` feature (which
leaves field names out of flash and shows each field by its number in the schema's layout, as
#N). FORMAT is tflite, circle, vkgraph, pte, cvimodel or litertlm; TEXT is the path or the
whole error line, printed back with every #N replaced by the field's name.

example:
  flatmodel path tflite 'string is not valid UTF-8 at byte 912 (Model.#3[0].#41[12].#52)'",
    },
    Page {
        name: "help",
        usage: "usage: flatmodel help [COMMAND]",
        text: "\
Prints the general usage, or COMMAND's own page.

example:
  flatmodel help inspect",
    },
];

/// The canonical name of `name` if it is a command.
pub fn command(name: &str) -> Option<&'static str> {
    PAGES.iter().find(|p| p.name == name).map(|p| p.name)
}

/// Every command's name.
pub fn commands() -> impl Iterator<Item = &'static str> {
    PAGES.iter().map(|p| p.name)
}

/// The one-line usage of `command`.
pub fn usage_of(command: &str) -> &'static str {
    PAGES.iter().find(|p| p.name == command).map_or(USAGE, |p| p.usage)
}

/// Prints `command`'s page, or the general usage.
pub fn print(out: &mut Out, command: Option<&str>) -> Result<Outcome, Failure> {
    match command.and_then(|c| PAGES.iter().find(|p| p.name == c)) {
        Some(page) => writeln!(out, "{}\n\n{}", page.usage, page.text)?,
        None => writeln!(out, "{USAGE}")?,
    }
    Ok(Outcome::Ok)
}
