//! The stages of one file, each timed alone over the same bytes (`docs/bench.md` §10.1): open
//! (read or mapped, as the command line opens it), structure, rules, walk and dump.

use super::cold::{self, Cold};
use super::timing::{self, Runs, Timing};
use super::Settings;
use crate::input::{Access, Input};
use crate::output::Counter;
use crate::report::scan::Located;
use crate::status::{Failure, Outcome};
use flatmodel::dump::dump_table;
use flatmodel::nnpackage;
use flatmodel::schema::{Walk, Walker};
use flatmodel::verify::Options;
use flatmodel::{ErrorKind, File};
use serde::Serialize;
use std::ffi::OsStr;
use std::path::Path;

/// The timings of a file's stages: `None` for a stage not run (not reached, or not applicable
/// to the file).
#[derive(Debug, Default, Serialize)]
pub struct Stages {
    /// Reading the file into memory (or mapping it and touching each page, with `--mmap`).
    pub open: Option<Timing>,
    /// `File::parse_structure_with`: the format recognised, the header and flatbuffer verified.
    pub structure: Option<Timing>,
    /// `File::check_rules` on the structure-verified file.
    pub rules: Option<Timing>,
    /// A walk of every field of every table the root reaches, through the typed accessors.
    pub walk: Option<Timing>,
    /// `File::dump_root` and the JSON dump into a sink that only counts bytes.
    pub dump: Option<Timing>,
}

/// What the bench found the file to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Structure and rules verified.
    Valid,
    /// A format flatmodel reads, failing verification (at `error.stage`).
    Invalid,
    /// Bytes of no format flatmodel reads.
    UnknownFormat,
    /// The file could not be read.
    Unreadable,
    /// A path bench does not time: an nnpackage, a zip archive (model bundle), a directory.
    Unsupported,
}

impl Verdict {
    /// The exit status the verdict asks for (as `verify`'s: 1 invalid, 2 unreadable).
    pub fn outcome(self) -> Outcome {
        match self {
            Verdict::Valid => Outcome::Ok,
            Verdict::Invalid | Verdict::UnknownFormat => Outcome::Invalid,
            Verdict::Unreadable | Verdict::Unsupported => Outcome::Unreadable,
        }
    }
}

/// Why a file is not valid, and in which stage that was found.
#[derive(Debug, Serialize)]
pub struct StageError {
    /// `structure` or `rules`; `null` when no stage ran (unreadable, unsupported).
    pub stage: Option<&'static str>,
    /// The error as `scan` locates it: `kind`, `offset`, `path`, `message`.
    #[serde(flatten)]
    pub error: Located,
}

/// One file's bench.
#[derive(Debug, Serialize)]
pub struct FileBench {
    /// The path as given.
    pub path: String,
    /// The format's short name (`Format::short_name`), when the bytes are of one.
    pub format: Option<&'static str>,
    /// The file's size.
    pub bytes: Option<u64>,
    /// What the file is.
    pub verdict: Verdict,
    /// Why it is not valid.
    pub error: Option<StageError>,
    /// With `--cold`, what eviction did (`evicted` or `unsupported`); `null` without.
    pub cold: Option<Cold>,
    /// Each stage's timing.
    pub stages: Stages,
    /// The tables, vectors and strings the walk visited.
    pub walk_objects: Option<u64>,
    /// The bytes of JSON the dump wrote.
    pub dump_bytes: Option<u64>,
    /// Why a stage after a valid structure has no timing (a walk or dump refused by the work
    /// budget, a format without a walk).
    pub notes: Vec<String>,
}

impl FileBench {
    fn new(path: String) -> Self {
        FileBench {
            path,
            format: None,
            bytes: None,
            verdict: Verdict::Valid,
            error: None,
            cold: None,
            stages: Stages::default(),
            walk_objects: None,
            dump_bytes: None,
            notes: Vec::new(),
        }
    }

    /// The bench ended by a message, with `verdict`.
    fn stopped(mut self, verdict: Verdict, message: String) -> Self {
        self.verdict = verdict;
        self.error = Some(StageError { stage: None, error: Located::message(message) });
        self
    }
}

/// Benches the file at `path` as `settings` say.
pub fn file(path: &OsStr, settings: &Settings) -> FileBench {
    let mut bench = FileBench::new(path.to_string_lossy().into_owned());
    let p = Path::new(path);
    if p.is_dir() || nnpackage::container_of(p).is_some() {
        return bench.stopped(
            Verdict::Unsupported,
            "an nnpackage or a model bundle (zip archive) holds several models: bench its model files (a \
             bundle's: extract FILE member:NAME -o M)"
                .into(),
        );
    }
    let runs = settings.runs.map_or(Runs::Auto, Runs::Exactly);
    let cold = settings.cold.then_some(Cold::Evicted);
    bench.cold = cold;
    let (timing, input) = timing::time(
        runs,
        cold.is_none(),
        || {
            if cold.is_some() && cold::evict(path) == Cold::Unsupported {
                bench.cold = Some(Cold::Unsupported);
            }
        },
        || open(path, settings.access),
    );
    let input = match input {
        Ok(input) => input,
        Err(Failure::Message(m) | Failure::Invalid(m)) => return bench.stopped(Verdict::Unreadable, m),
        Err(Failure::OutputClosed) => return bench.stopped(Verdict::Unreadable, "closed".into()),
    };
    bench.stages.open = Some(timing);
    let bytes = input.bytes();
    bench.bytes = Some(crate::convert::to_u64(bytes.len()));
    bench.format = flatmodel::detect(bytes).map(|f| f.short_name());
    stages(&mut bench, bytes, runs);
    bench
}

/// The stages after the open over `bytes`, each with `runs` runs after a warm-up.
fn stages(bench: &mut FileBench, bytes: &[u8], runs: Runs) {
    let options = Options::DEFAULT;
    let (timing, parsed) = timing::time(runs, true, || {}, || File::parse_structure_with(bytes, &options));
    bench.stages.structure = Some(timing);
    let file = match parsed {
        Ok(parsed) => parsed.value,
        Err(e) => {
            bench.verdict =
                if e.kind() == ErrorKind::UnknownFormat { Verdict::UnknownFormat } else { Verdict::Invalid };
            bench.error = Some(StageError { stage: Some("structure"), error: Located::of(bytes, &e) });
            return;
        }
    };
    let (timing, rules) = timing::time(runs, true, || {}, || file.check_rules(&options));
    bench.stages.rules = Some(timing);
    if let Err(e) = rules {
        bench.verdict = Verdict::Invalid;
        bench.error = Some(StageError { stage: Some("rules"), error: Located::of(bytes, &e) });
    }
    // The walk and the dump need the structure alone (as `flatmodel dump` does).
    let budget = options.apparent_size_budget(bytes.len());
    match walk(&file, budget) {
        None => bench.notes.push("walk: no walk for this format".into()),
        Some(w) if w.is_exhausted() => bench.notes.push(format!(
            "walk: stopped by the work budget at byte {} (tables shared by many offsets): not timed",
            w.stopped_at().unwrap_or_default()
        )),
        Some(w) => {
            bench.walk_objects = Some(w.objects());
            bench.stages.walk = Some(timing::time(runs, true, || {}, || walk(&file, budget)).0);
        }
    }
    match dump(&file, &options) {
        Err(reason) => bench.notes.push(format!("dump: {reason}: not timed")),
        Ok(written) => {
            bench.dump_bytes = Some(written);
            bench.stages.dump = Some(timing::time(runs, true, || {}, || dump(&file, &options)).0);
        }
    }
}

/// Opens `path` as the command line does (`Input::open`); a mapped file's pages are then
/// touched, one byte in each 4 KiB, so that the stage includes bringing them in and the later
/// stages time the parse, not page faults.
fn open(path: &OsStr, access: Access) -> Result<Input, Failure> {
    let input = Input::open(path, access)?;
    if access == Access::Map {
        let touched = input.bytes().iter().step_by(4096).fold(0u8, |a, b| a ^ b);
        std::hint::black_box(touched);
    }
    Ok(input)
}

/// A walk of every table `file`'s root reaches (the root `dump` prints), within `budget`
/// units; `None` for a format without one.
fn walk(file: &File<'_>, budget: u64) -> Option<Walker> {
    let mut w = Walker::with_budget(budget);
    match file {
        File::Tflite(m) => m.walk(&mut w),
        File::Circle(m) => m.walk(&mut w),
        File::VkGraph(b) => b.graph().walk(&mut w),
        File::Pte(p) => p.program().walk(&mut w),
        File::Cvimodel(c) => c.model().walk(&mut w),
        File::Xnnpack(b) => b.graph().walk(&mut w),
        File::Ptd(p) => p.flat_tensor().walk(&mut w),
        File::LitertLm(l) => l.metadata().walk(&mut w),
        _ => return None,
    }
    Some(w)
}

/// The dump `flatmodel dump` makes of `file`, into a sink that only counts: its bytes, or why
/// it was refused.
fn dump(file: &File<'_>, options: &Options) -> Result<u64, String> {
    let root = file.dump_root().map_err(|e| e.to_string())?;
    let mut sink = Counter::default();
    dump_table(&mut sink, root, options).map_err(|e| e.to_string())?;
    Ok(sink.bytes)
}
