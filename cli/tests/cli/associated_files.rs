//! The associated files tflite-support appends to a TFLite model (a zip archive after the
//! model, offsets from the file's start): `inspect` lists them, `extract associated:NAME`
//! writes one byte-exact, and a corrupt archive is a warning on the still-valid model and an
//! error for `extract`.

use crate::nnpackage_support;
use crate::support;

use nnpackage_support::{zip_after, ZipEntry};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LABELS: &[u8] = b"background\nface\n";

fn model() -> Vec<u8> {
    std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap()
}

/// `sine_float` with labels stored and a vocabulary deflated after it.
fn with_files() -> Vec<u8> {
    zip_after(&model(), &[ZipEntry::stored("labels.txt", LABELS), ZipEntry::deflated("vocab.txt", &vocab())])
}

/// 2,000 lines, `word0` to `word1999`.
fn vocab() -> Vec<u8> {
    (0..2000).flat_map(|i| format!("word{i}\n").into_bytes()).collect()
}

fn write(test: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flatmodel-associated-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.tflite");
    std::fs::write(&path, bytes).unwrap();
    path
}

fn flatmodel(args: &[&str], file: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flatmodel"));
    command.args(args.iter().take(1)).arg(file).args(args.iter().skip(1));
    command.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn inspect_lists_them_and_extract_writes_each_byte_exact() {
    let path = write("list", &with_files());
    let verify = flatmodel(&["verify"], &path);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    assert!(!stdout(&verify).contains("associated files"), "no warning: {}", stdout(&verify));
    let inspect = flatmodel(&["inspect"], &path);
    let listed =
        format!("associated files:    labels.txt ({} bytes), vocab.txt ({} bytes)", LABELS.len(), vocab().len());
    assert!(stdout(&inspect).contains(&listed), "{}", stdout(&inspect));
    let out = path.with_file_name("labels.txt");
    let o = flatmodel(&["extract", "associated:labels.txt", "-o", out.to_str().unwrap()], &path);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), LABELS);
    let o = flatmodel(&["extract", "associated:vocab.txt", "-o", "-"], &path);
    assert_eq!(o.stdout, vocab(), "inflated byte-exact");
    let missing = flatmodel(&["extract", "associated:nope.txt", "-o", "-"], &path);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("labels.txt, vocab.txt"), "names the files it has");
}

#[test]
fn a_corrupt_archive_warns_on_the_valid_model_and_fails_extract() {
    let mut bytes = with_files();
    // The end record's central-directory offset, past the end of the file.
    let at = bytes.len() - 6;
    bytes[at..at + 4].copy_from_slice(&u32::MAX.wrapping_sub(7).to_le_bytes());
    let path = write("corrupt", &bytes);
    assert!(flatmodel::tflite::Model::parse(&bytes).is_ok(), "the model itself is valid");
    let verify = flatmodel(&["verify"], &path);
    assert_eq!(verify.status.code(), Some(0));
    assert!(stdout(&verify).contains("warning: associated files: zip archive"), "{}", stdout(&verify));
    let extract = flatmodel(&["extract", "associated:labels.txt", "-o", "-"], &path);
    assert_eq!(extract.status.code(), Some(1), "{}", stdout(&extract));
    assert!(stdout(&extract).contains("invalid: associated files: zip archive"), "{}", stdout(&extract));
}

#[test]
fn a_wrong_checksum_fails_extract_of_that_file_only() {
    let mut labels = ZipEntry::stored("labels.txt", LABELS);
    labels.crc = Some(0x1234_5678);
    let bytes = zip_after(&model(), &[labels, ZipEntry::stored("other.txt", b"fine")]);
    let path = write("crc", &bytes);
    let bad = flatmodel(&["extract", "associated:labels.txt", "-o", "-"], &path);
    assert_eq!(bad.status.code(), Some(1), "{}", stdout(&bad));
    let good = flatmodel(&["extract", "associated:other.txt", "-o", "-"], &path);
    assert_eq!(good.stdout, b"fine");
}

#[test]
fn a_model_without_an_archive_has_none() {
    let path = write("none", &model());
    assert!(!stdout(&flatmodel(&["inspect"], &path)).contains("associated files"));
    let o = flatmodel(&["extract", "associated:labels.txt", "-o", "-"], &path);
    assert_eq!(o.status.code(), Some(2));
}
