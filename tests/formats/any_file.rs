//! `flatmodel::File`: one entry point for any file. Its verdict on every testdata and corpus
//! file (and on truncated copies) is the verdict of the format's own `parse`, its format is the
//! one `detect` names, and `parse_structure` + `check_rules` give the same verdict as `parse`.

use crate::support;

use flatmodel::{circle, cvimodel, pte, tflite, vkgraph, ErrorKind, File, Format};
use std::path::PathBuf;

/// Every model file of testdata and the corpus, and the corpus's invalid TFLite files.
fn files() -> Vec<PathBuf> {
    let mut all = support::model_files(&support::testdata());
    if let Some(corpus) = support::corpus() {
        all.extend(support::model_files(&corpus));
        all.extend(support::files_with_suffix(&corpus.join("tflite/invalid"), ".tflite"));
    }
    all
}

/// The format's own `parse` of `bytes`: ok or the error.
fn own_parse(bytes: &[u8]) -> Option<Result<(), flatmodel::Error>> {
    Some(match flatmodel::detect(bytes)? {
        Format::Tflite => tflite::Model::parse(bytes).map(drop),
        Format::Circle => circle::Model::parse(bytes).map(drop),
        Format::VkGraph => vkgraph::Blob::parse(bytes).map(drop),
        Format::Pte => pte::PteFile::parse(bytes).map(drop),
        Format::Cvimodel => cvimodel::CviModel::parse(bytes).map(drop),
        _ => return None,
    })
}

#[test]
fn file_gives_each_formats_own_verdict() {
    let (mut valid, mut invalid) = (0, 0);
    for path in files() {
        let whole = std::fs::read(&path).unwrap();
        for bytes in [&whole[..], &whole[..whole.len() / 2]] {
            let any = File::parse(bytes);
            let Some(own) = own_parse(bytes) else {
                assert_eq!(any.err().map(|e| e.kind()), Some(ErrorKind::UnknownFormat), "{}", path.display());
                continue;
            };
            assert_eq!(any.as_ref().err(), own.as_ref().err(), "{}", path.display());
            if let Ok(file) = any {
                assert_eq!(Some(file.format()), flatmodel::detect(bytes));
                valid += 1;
            } else {
                invalid += 1;
            }
            let split = File::parse_structure(bytes).and_then(|f| f.check_rules(&flatmodel::verify::Options::DEFAULT));
            assert_eq!(split.err(), own.err(), "{}: parse_structure then check_rules", path.display());
        }
    }
    assert!(valid >= 25 && invalid >= 25, "{valid} valid, {invalid} invalid");
    let unknown = File::parse(b"not a model at all").err().map(|e| e.kind());
    assert_eq!(unknown, Some(ErrorKind::UnknownFormat));
}
