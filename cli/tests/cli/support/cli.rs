//! Running the `flatmodel` binary from tests: its exit code and output, scratch directories.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run of the binary did.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub what: String,
}

impl Run {
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// The process ended by itself (no signal) and did not panic.
    pub fn no_crash(&self) -> &Self {
        assert!(self.code.is_some(), "{}: ended by a signal\nstderr: {}", self.what, self.stderr);
        assert!(!self.stderr.contains("panicked"), "{}: panicked\nstderr: {}", self.what, self.stderr);
        assert!(!self.stderr.contains("RUST_BACKTRACE"), "{}: panicked\nstderr: {}", self.what, self.stderr);
        self
    }

    pub fn expect_code(&self, code: i32) -> &Self {
        self.no_crash();
        assert_eq!(
            self.code,
            Some(code),
            "{}: exit code\nstdout: {}\nstderr: {}",
            self.what,
            truncate(&self.stdout),
            self.stderr
        );
        self
    }
}

pub fn truncate(s: &str) -> &str {
    match s.char_indices().nth(2000) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

pub fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_os_string()).collect();
    let what = format!("flatmodel {}", args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" "));
    let out = Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(&args).output().expect("the binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        what,
    }
}

/// A fresh directory for one test's files, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Self {
        // Tests of one binary run at once in one process: a counter keeps their names apart.
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("flatmodel-cli-{}-{test}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        fs::write(&p, bytes).unwrap();
        p
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The name the tool shows for `path`: the argument as given.
pub fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// `n` with a comma every three digits from the right (`1,234`), as the text outputs write sizes.
pub fn grouped(n: impl ToString) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
