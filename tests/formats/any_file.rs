//! `flatmodel::File`: one entry point for any file. Its verdict on every testdata and corpus
//! file (and on truncated copies) is the verdict of the format's own `parse`, its format is the
//! one `detect` names, and `parse_structure` + `check_rules` give the same verdict as `parse`.

use crate::support;

use flatmodel::verify::Options;
use flatmodel::{circle, cvimodel, litertlm, ptd, pte, tflite, vkgraph, xnnpack, ErrorKind, File, Format};
use std::path::PathBuf;

/// Every model file of testdata and the corpus (LiteRT-LM files among them), and the corpus's
/// invalid TFLite files.
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
        Format::Xnnpack => xnnpack::Blob::parse(bytes).map(drop),
        Format::Ptd => ptd::PtdFile::parse(bytes).map(drop),
        Format::LitertLm => litertlm::LitertLmFile::parse(bytes).map(drop),
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

/// What a file's own format type says of it, read without `File`: its root dumped as JSON
/// (`None` for a file too large to dump twice here), and its warnings as text with the end of
/// the list.
type Own = (Option<Result<String, String>>, Vec<String>, Result<(), flatmodel::Error>);

/// The dump of `root`, or why it failed.
fn dump_of(root: Result<flatmodel::dump::Dumpable<'_>, flatmodel::Error>) -> Result<String, String> {
    let root = root.map_err(|e| e.to_string())?;
    let mut json = String::new();
    flatmodel::dump::dump_table(&mut json, root, &flatmodel::verify::Options::DEFAULT).map_err(|e| e.to_string())?;
    Ok(json)
}

/// [`Own`] for the structurally valid `bytes` of `format`, through the format's own type.
fn own_view(bytes: &[u8], format: Format) -> Own {
    use flatmodel::dump::Dumpable;
    let dumpable = bytes.len() <= 2 << 20;
    let mut texts = Vec::new();
    let (dump, end) = match format {
        Format::Tflite => {
            let m = tflite::Model::parse_structure(bytes).unwrap();
            (dump_of(Ok(Dumpable::new(m))), m.for_each_warning(|w| texts.push(w.to_string())))
        }
        Format::Circle => {
            let m = circle::Model::parse_structure(bytes).unwrap();
            (dump_of(m.dump_root()), m.for_each_warning(|w| texts.push(w.to_string())))
        }
        Format::VkGraph => (dump_of(Ok(Dumpable::new(vkgraph::Blob::parse_structure(bytes).unwrap().graph()))), Ok(())),
        Format::Pte => (dump_of(Ok(Dumpable::new(pte::PteFile::parse_structure(bytes).unwrap().program()))), Ok(())),
        Format::Cvimodel => {
            let c = cvimodel::CviModel::parse_structure(bytes).unwrap();
            (dump_of(Ok(Dumpable::new(c.model()))), c.for_each_warning(|w| texts.push(w.to_string())))
        }
        Format::Xnnpack => (dump_of(Ok(Dumpable::new(xnnpack::Blob::parse_structure(bytes).unwrap().graph()))), Ok(())),
        Format::Ptd => {
            (dump_of(Ok(Dumpable::new(ptd::PtdFile::parse_structure(bytes).unwrap().flat_tensor()))), Ok(()))
        }
        Format::LitertLm => {
            (dump_of(Ok(Dumpable::new(litertlm::LitertLmFile::parse_structure(bytes).unwrap().metadata()))), Ok(()))
        }
        other => panic!("no own view for {other:?}"),
    };
    (dumpable.then_some(dump), texts, end)
}

/// `File`'s accessors (the bytes, the format, the dump root, the warnings, `Debug`) agree with
/// what each format's own type gives, on every structurally valid testdata and corpus file.
#[test]
fn file_accessors_agree_with_each_formats_own_view() {
    let (mut checked, mut dumped) = (0, 0);
    let (mut formats, mut with_warnings) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(file) = File::parse_structure(&bytes) else { continue };
        let name = path.display();
        assert!(std::ptr::eq(file.bytes(), &bytes[..]), "{name}: bytes() is the whole input");
        let format = file.format();
        assert_eq!(Some(format), flatmodel::detect(&bytes), "{name}");
        let debug = format!("{file:?}");
        assert!(debug.starts_with(&format!("{format:?}(")), "{name}: {debug}");
        assert!(debug.len() < 1024, "{name}: Debug prints lengths, not bytes: {} characters", debug.len());

        let (own_dump, own_texts, own_end) = own_view(&bytes, format);
        if let Some(own_dump) = own_dump {
            assert_eq!(dump_of(file.dump_root()), own_dump, "{name}: dump_root");
            dumped += 1;
        }
        let mut texts = Vec::new();
        let end = file.for_each_warning(|w| texts.push(w.to_string()));
        assert_eq!((&texts, end), (&own_texts, own_end), "{name}: warnings");
        match file.warnings() {
            Ok(list) => assert_eq!(list.iter().map(ToString::to_string).collect::<Vec<_>>(), texts, "{name}"),
            Err(e) => assert_eq!(Err(e), end, "{name}"),
        }
        if !texts.is_empty() {
            with_warnings.insert(format!("{format:?}"));
        }
        checked += 1;
        formats.insert(format!("{format:?}"));
    }
    assert_eq!(formats.len(), 8, "every format among the files: {formats:?}");
    assert!(checked >= 25 && dumped >= 25, "{checked} files checked, {dumped} dumped");
    assert!(with_warnings.contains("Tflite"), "some TFLite file has warnings: {with_warnings:?}");
}

/// The warnings of structurally valid `bytes` of `format` through the format's own type,
/// charged to `options`: their text and the end of the list.
fn own_warnings_with(bytes: &[u8], format: Format, options: &Options) -> (Vec<String>, Result<(), flatmodel::Error>) {
    let mut texts = Vec::new();
    let end = match format {
        Format::Tflite => {
            tflite::Model::parse_structure(bytes).unwrap().for_each_warning_with(options, |w| texts.push(w.to_string()))
        }
        Format::Circle => {
            circle::Model::parse_structure(bytes).unwrap().for_each_warning_with(options, |w| texts.push(w.to_string()))
        }
        Format::Cvimodel => cvimodel::CviModel::parse_structure(bytes)
            .unwrap()
            .for_each_warning_with(options, |w| texts.push(w.to_string())),
        _ => Ok(()),
    };
    (texts, end)
}

/// `File::for_each_warning_with` charges the caller's budget as each format's own does: with no
/// work allowed, the TFLite, Circle and cvimodel walks stop with `ApparentSizeLimit`, where the
/// defaults pass.
#[test]
fn file_warnings_charge_the_callers_options() {
    let none = Options { apparent_size_per_byte: 0, max_apparent_size: 0, ..Options::DEFAULT };
    let mut stopped = std::collections::BTreeSet::new();
    for path in support::model_files(&support::testdata()) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(file) = File::parse(&bytes) else { continue };
        let name = path.display();
        for options in [&Options::DEFAULT, &none] {
            let mut texts = Vec::new();
            let end = file.for_each_warning_with(options, |w| texts.push(w.to_string()));
            assert_eq!((texts, end), own_warnings_with(&bytes, file.format(), options), "{name}");
            if options == &none && end.is_err() {
                assert_eq!(end.map_err(|e| e.kind()), Err(ErrorKind::ApparentSizeLimit), "{name}");
                stopped.insert(format!("{:?}", file.format()));
            } else {
                assert_eq!(end, Ok(()), "{name}: a file File::parse accepted never runs out with the defaults");
            }
        }
    }
    assert_eq!(stopped.into_iter().collect::<Vec<_>>(), ["Circle", "Cvimodel", "Tflite"]);
}

/// A cvimodel's warnings come through `File` as the format reports them: a testdata model whose
/// header MD5 is zeroed gives one warning, naming both digests.
#[test]
fn a_cvimodels_warnings_come_through_file() {
    let path = support::testdata().join("cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel");
    let mut bytes = std::fs::read(path).unwrap();
    let md5 = 14..30; // after the magic, the body size, the major and the minor version
    let stored: String = bytes[md5.clone()].iter().map(|b| format!("{b:02x}")).collect();
    bytes[md5].fill(0);
    let file = File::parse(&bytes).unwrap();
    let warnings = file.warnings().unwrap();
    assert!(matches!(warnings[..], [flatmodel::FileWarning::Cvimodel(cvimodel::Warning::Md5Mismatch { .. })]));
    let zeros = "0".repeat(32);
    let want = format!("header md5 {zeros} is not the md5 of the file after the header ({stored})");
    assert_eq!(warnings[0].to_string(), want);
}

/// The views that hold a model's data (a buffer's, a section's payload) print its length as
/// `Debug`, not its bytes.
#[test]
fn data_views_print_their_length_not_their_bytes() {
    use flatmodel::graph::ModelView;
    let bytes = std::fs::read(support::testdata().join("tflite/tf_convnet_int8_full.tflite")).unwrap();
    let model = tflite::Model::parse(&bytes).unwrap();
    let count = model.buffer_count().unwrap();
    let buffer = (0..count).filter_map(|i| model.buffer_ref(i)).find(|b| b.data.is_some_and(|d| d.len() > 64)).unwrap();
    let text = format!("{buffer:?}");
    assert!(text.contains(&format!("data_len: Some({})", buffer.data.unwrap().len())), "{text}");
    assert!(text.len() < 100, "{text}");

    let bytes = std::fs::read(support::testdata().join("cvimodel/tpumlir_tinycnn_int8_cv181x.cvimodel")).unwrap();
    let file = cvimodel::CviModel::parse(&bytes).unwrap();
    let section = file.sections().map(Result::unwrap).max_by_key(|s| s.payload.len()).unwrap();
    let text = format!("{section:?}");
    assert!(text.contains(&format!("payload_len: {}", section.payload.len())), "{text}");
    assert!(text.len() < 200 && section.payload.len() > 200, "{text}");
}

/// `parse_into` (each format's and `File`'s) writes the error `parse_with` returns, and leaves
/// the caller's error untouched on valid bytes.
#[test]
fn parse_into_writes_the_error_parse_with_returns() {
    use flatmodel::Error;
    static UNTOUCHED: &str = "untouched";
    let o = &Options::DEFAULT;
    let untouched = || Error::header(ErrorKind::NotFound, 7, &UNTOUCHED);
    fn into<T>(f: impl FnOnce(&mut Error) -> Option<T>, start: Error) -> Result<(), Error> {
        let mut error = start;
        match f(&mut error) {
            Some(_) => {
                assert_eq!(error, start, "a valid file leaves the error as it was");
                Ok(())
            }
            None => Err(error),
        }
    }
    let (mut valid, mut invalid) = (0, 0);
    for path in files() {
        let whole = std::fs::read(&path).unwrap();
        for bytes in [&whole[..], &whole[..whole.len() / 2]] {
            let name = path.display();
            let own = File::parse_with(bytes, o).map(drop);
            assert_eq!(into(|e| File::parse_into(bytes, o, e), untouched()), own, "File: {name}");
            let pairs = [
                (
                    into(|e| tflite::Model::parse_into(bytes, o, e), untouched()),
                    tflite::Model::parse_with(bytes, o).map(drop),
                ),
                (
                    into(|e| circle::Model::parse_into(bytes, o, e), untouched()),
                    circle::Model::parse_with(bytes, o).map(drop),
                ),
                (
                    into(|e| vkgraph::Blob::parse_into(bytes, o, e), untouched()),
                    vkgraph::Blob::parse_with(bytes, o).map(drop),
                ),
                (
                    into(|e| pte::PteFile::parse_into(bytes, o, e), untouched()),
                    pte::PteFile::parse_with(bytes, o).map(drop),
                ),
                (
                    into(|e| cvimodel::CviModel::parse_into(bytes, o, e), untouched()),
                    cvimodel::CviModel::parse_with(bytes, o).map(drop),
                ),
            ];
            for (i, (written, returned)) in pairs.into_iter().enumerate() {
                assert_eq!(written, returned, "format {i}: {name}");
            }
            match own {
                Ok(()) => valid += 1,
                Err(_) => invalid += 1,
            }
        }
    }
    assert!(valid >= 25 && invalid >= 25, "{valid} valid, {invalid} invalid");
}
