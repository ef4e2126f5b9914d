//! The `views` target: the promise every view rests on. For any bytes the structural verifier
//! accepts, as whatever format they are:
//!
//! - every accessor succeeds (the walk reads each one; a read that fails on verified bytes
//!   fires flatmodel's debug assertion, `wire::broken`), and the full dump never fails but for
//!   its work budget;
//! - reading twice gives the same: two walks see the same objects, two dumps write the same
//!   text, two runs of the warnings give the same list;
//! - `parse` is the structure and then the rules: its verdict is `check_rules`'s;
//! - the format's own schema, read at run time (`flatmodel::reflect`), verifies the same
//!   flatbuffer and dumps it to the same text as the compiled views: one description of each
//!   schema drives both.

use std::sync::OnceLock;

use flatmodel::dump::{dump_table, DumpError, Dumpable};
use flatmodel::reflect::Schema;
use flatmodel::schema::{Walk, Walker};
use flatmodel::verify::Options;
use flatmodel::{File, Format};

/// What one input showed: whether it verified, and the dump's length when it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// The structural verifier accepted the bytes.
    pub verified: bool,
    /// The rules accepted them too.
    pub valid: bool,
    /// Bytes of the full dump (0 when it stopped at its budget).
    pub dumped: usize,
    /// The run-time schema's dump was compared with the compiled one.
    pub compared: bool,
}

/// Checks the views' promise on `data` (see the module's documentation); panics when it
/// breaks.
pub fn views(data: &[u8]) -> Seen {
    let Ok(file) = File::parse_structure(data) else { return Seen::default() };
    let rules = file.check_rules(&Options::DEFAULT);
    assert_eq!(File::parse(data).err(), rules.err(), "parse is the structure, then the rules");

    let walks = [walk(&file), walk(&file)];
    assert_eq!(walks[0], walks[1], "two walks of the same bytes see the same objects");

    let warnings = [file.warnings(), file.warnings()];
    assert_eq!(warnings[0], warnings[1], "the warnings are the same each time");

    let mut seen = Seen { verified: true, valid: rules.is_ok(), ..Seen::default() };
    let Ok(root) = file.dump_root() else { return seen };
    let first = dump(root);
    assert_eq!(first, dump(root), "two dumps of the same bytes write the same text");
    if let Some(text) = &first {
        seen.dumped = text.len();
        seen.compared = same_as_run_time_schema(&file, text);
    }
    seen
}

/// The walk of every accessor of `file`'s root (the default work budget for its length): what
/// it counted and the checksum of every value it read.
fn walk(file: &File<'_>) -> Walker {
    let mut walker = Walker::with_budget(Options::DEFAULT.apparent_size_budget(file.bytes().len()));
    match file {
        File::Tflite(m) => m.walk(&mut walker),
        File::Circle(m) => m.walk(&mut walker),
        File::VkGraph(b) => b.graph().walk(&mut walker),
        File::Pte(p) => p.program().walk(&mut walker),
        File::Cvimodel(c) => c.model().walk(&mut walker),
        File::Xnnpack(b) => b.graph().walk(&mut walker),
        File::Ptd(p) => p.flat_tensor().walk(&mut walker),
        File::LitertLm(l) => l.metadata().walk(&mut walker),
        _ => {}
    }
    walker
}

/// The whole dump of `root`, or `None` when it stopped at the work budget (the one way a dump
/// of verified bytes may stop: a writer into a `String` never fails).
fn dump(root: Dumpable<'_>) -> Option<String> {
    let mut text = String::new();
    match dump_table(&mut text, root, &Options::DEFAULT) {
        Ok(()) => Some(text),
        Err(DumpError::TooLarge) => None,
        Err(e) => panic!("the dump of verified bytes failed: {e}"),
    }
}

/// Verifies the flatbuffer `file`'s dump shows with the format's schema read at run time and
/// checks its dump is `compiled`. Returns whether there was such a schema to compare with (a
/// Circle file is dumped by its revision's names, so only a latest-revision one is compared).
fn same_as_run_time_schema(file: &File<'_>, compiled: &str) -> bool {
    let format = file.format();
    if matches!(file, File::Circle(m) if m.revision() == flatmodel::circle::Revision::Zero) {
        return false;
    }
    let (Some(schema), Ok(root)) = (run_time_schema(format), file.dump_root()) else { return false };
    let Some(root_type) = schema.root() else { return false };
    let table = schema.verify(root.buffer(), root_type, &Options::DEFAULT);
    let table = match table {
        Ok(table) => table,
        Err(e) => panic!("{format:?}: the compiled views accepted what the run-time schema refuses: {e}"),
    };
    let mut text = String::new();
    match schema.dump(&mut text, table, &Options::DEFAULT) {
        Ok(()) => assert_eq!(text, compiled, "{format:?}: the run-time schema dumps what the compiled views dump"),
        Err(e) => panic!("{format:?}: the run-time schema's dump stopped where the compiled one did not: {e}"),
    }
    true
}

/// The `.fbs` of each format whose dump root is its flatbuffer's root, with the files it
/// includes.
fn schema_files(format: Format) -> Option<&'static [(&'static str, &'static str)]> {
    macro_rules! fbs {
        ($dir:literal) => {
            include_str!(concat!("../../src/formats/", $dir, "/schema.fbs"))
        };
    }
    const SCALAR: (&str, &str) = ("scalar_type.fbs", include_str!("../../src/formats/pte/scalar_type.fbs"));
    const PTD_SCALAR: (&str, &str) = ("scalar_type.fbs", include_str!("../../src/formats/ptd/scalar_type.fbs"));
    Some(match format {
        Format::Tflite => &[("schema.fbs", fbs!("tflite"))],
        Format::Circle => &[("schema.fbs", fbs!("circle"))],
        Format::VkGraph => &[("schema.fbs", fbs!("vkgraph"))],
        Format::Xnnpack => &[("schema.fbs", fbs!("xnnpack"))],
        Format::Pte => &[("schema.fbs", fbs!("pte")), SCALAR],
        Format::Ptd => &[("schema.fbs", fbs!("ptd")), PTD_SCALAR],
        Format::LitertLm => &[("schema.fbs", fbs!("litertlm"))],
        Format::Cvimodel => &[("schema.fbs", fbs!("cvimodel"))],
        _ => return None,
    })
}

/// The format's schema read at run time, once per process.
fn run_time_schema(format: Format) -> Option<&'static Schema> {
    const FORMATS: [Format; 8] = [
        Format::Tflite,
        Format::Circle,
        Format::VkGraph,
        Format::Pte,
        Format::Cvimodel,
        Format::Xnnpack,
        Format::Ptd,
        Format::LitertLm,
    ];
    static SCHEMAS: OnceLock<Vec<(Format, Schema)>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        let mut schemas = Vec::new();
        for format in FORMATS {
            let Some(files) = schema_files(format) else { continue };
            let mut load = |name: &str| {
                let found = files.iter().find(|(file, _)| *file == name);
                found.map(|(_, text)| (*text).to_owned()).ok_or_else(|| format!("no file {name}"))
            };
            match Schema::from_fbs("schema.fbs", &mut load) {
                Ok(schema) => schemas.push((format, schema)),
                Err(e) => panic!("{format:?}: its schema.fbs does not load: {e}"),
            }
        }
        schemas
    });
    schemas.iter().find(|(f, _)| *f == format).map(|(_, schema)| schema)
}
