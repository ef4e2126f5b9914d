//! Verification, the full walk and the model rules run without touching the heap: a counting
//! global allocator, armed only on this test's thread, sees no allocation.

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
mod support;

use counting_alloc::allocations;

use flatmodel::schema::{Walk, Walker};
use flatmodel::tflite::Model;

#[test]
fn counting_allocator_sees_allocations() {
    let (_, n) = allocations(|| vec![1u8; 10]);
    assert!(n >= 1, "the counter must work for the other test to mean anything");
}

#[test]
fn verify_walk_and_rules_do_not_allocate() {
    let mut models = support::files_with_suffix(&support::testdata().join("tflite"), ".tflite");
    if let Some(corpus) = support::corpus() {
        models.extend(support::files_with_suffix(&corpus.join("tflite"), ".tflite"));
    }
    assert!(models.len() >= 8);
    for path in models {
        let bytes = std::fs::read(&path).unwrap();
        let (walked, n) = allocations(|| {
            let model = Model::parse_structure(&bytes).ok()?;
            let mut w = Walker::default();
            model.walk(&mut w);
            let bounded = flatmodel::schema::walk_bounded(&model, bytes.len(), &flatmodel::verify::Options::DEFAULT);
            assert!(bounded.is_ok_and(|b| b.tables == w.tables));
            let valid = Model::parse(&bytes).is_ok();
            let warned = model.for_each_warning(|_| {});
            assert!(!valid || warned.is_ok(), "a valid model's warnings fit the budget");
            Some(w.objects())
        });
        assert_eq!(n, 0, "{}: {n} allocations", path.display());
        if path.starts_with(support::testdata()) {
            assert!(walked.unwrap_or(0) > 0, "{}", path.display());
        }
    }
}

#[test]
fn other_formats_parse_without_allocating() {
    let dir = support::testdata();
    let mut checked = 0;
    let dirs = [
        ("circle", ".circle"),
        ("vkgraph", ".pte"),
        ("vkgraph", ".vh00"),
        ("cvimodel", ".cvimodel"),
        ("litertlm", ".litertlm"),
    ];
    for (sub, suffix) in dirs {
        for path in support::files_with_suffix(&dir.join(sub), suffix) {
            let bytes = std::fs::read(&path).unwrap();
            let (ok, n) = allocations(|| match suffix {
                ".circle" => flatmodel::circle::Model::parse(&bytes).is_ok(),
                ".pte" => flatmodel::pte::PteFile::parse(&bytes).is_ok(),
                ".vh00" => flatmodel::vkgraph::Blob::parse(&bytes).is_ok(),
                ".litertlm" => flatmodel::litertlm::LitertLmFile::parse(&bytes).is_ok(),
                _ => flatmodel::cvimodel::CviModel::parse(&bytes).is_ok(),
            });
            assert!(ok, "{}", path.display());
            assert_eq!(n, 0, "{}: {n} allocations", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 13, "checked {checked}");
}

#[test]
fn a_program_is_checked_with_its_data_without_allocating() {
    use flatmodel::ptd::PtdFile;
    use flatmodel::pte::{DataError, PteFile};
    use flatmodel::verify::Options;
    let dir = support::testdata().join("ptd");
    let mut checked = 0;
    for path in support::files_with_suffix(&dir, ".pte") {
        let (pte, ptd) = (std::fs::read(&path).unwrap(), std::fs::read(path.with_extension("ptd")).unwrap());
        let (program, data) = (PteFile::parse(&pte).unwrap(), PtdFile::parse(&ptd).unwrap());
        let ((with, without, keys), n) = allocations(|| {
            let mut keys = 0;
            program.data_keys(&Options::DEFAULT, |_| keys += 1).unwrap();
            (program.check_data(&[data], &Options::DEFAULT), program.check_data(&[], &Options::DEFAULT), keys)
        });
        assert_eq!(n, 0, "{}: {n} allocations", path.display());
        assert_eq!(with, Ok(()), "{}", path.display());
        assert!(matches!(without, Err(DataError::Unresolved(_))), "{}", path.display());
        assert_eq!(keys, 4, "{}: the README's four weights", path.display());
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn a_cvimodel_lz4_section_is_verified_without_inflating_it() {
    use support::cvimodel::{lz4_file, lz4_zeros};
    // 16 MiB of zeros stored in 64 KiB: verification walks the block and allocates nothing.
    let size = 16 << 20;
    let bytes = lz4_file(&lz4_zeros(size), size as u32);
    let (parsed, n) = allocations(|| {
        let file = flatmodel::cvimodel::CviModel::parse(&bytes).ok()?;
        file.for_each_warning(|_| {}).unwrap();
        Some(file.model().sections()?.get(1)?.decompressed_size())
    });
    assert_eq!(parsed, Some(size as u32));
    assert_eq!(n, 0, "{n} allocations");
    // The same file with a claim one byte short is refused, still without allocating.
    let bad = lz4_file(&lz4_zeros(size), size as u32 - 1);
    let (parsed, n) = allocations(|| flatmodel::cvimodel::CviModel::parse(&bad).is_ok());
    assert!(!parsed);
    assert_eq!(n, 0, "{n} allocations");
}
