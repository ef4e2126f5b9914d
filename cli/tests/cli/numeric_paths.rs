//! `flatmodel path`: an error path in the numeric form a `numeric-paths` build prints
//! (`Model.#N[0]...`) comes back with the names the verifier gives it in a build with names.

use crate::support;

use flatmodel::tflite::{Model, Operator, SubGraph, Tensor};
use flatmodel::verify::VerifyTable;
use support::cli::run;

/// The number a `numeric-paths` build shows for field `name` of table `T`: its index in the
/// schema layout's field list (the table's first field plus its place in `FIELD_NAMES`).
fn number<T: VerifyTable>(name: &str) -> usize {
    let (_, first, _) = T::schema().table_fields(T::ID);
    let at = T::FIELD_NAMES.iter().position(|n| *n == name).unwrap_or_else(|| panic!("no field {name}"));
    first + at
}

#[test]
fn numbered_paths_read_back_as_the_verifiers_names() {
    let mut bytes = std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap();
    let name = Model::parse(&bytes)
        .unwrap()
        .subgraphs()
        .unwrap()
        .get(0)
        .unwrap()
        .tensors()
        .unwrap()
        .get(1)
        .unwrap()
        .name()
        .unwrap()
        .as_ptr() as usize;
    let at = name - bytes.as_ptr() as usize;
    bytes[at] = 0xff;
    let error = Model::parse_structure(&bytes).unwrap_err().to_string();
    let numbered_path = format!(
        "Model.#{}[0].#{}[1].#{}",
        number::<Model>("subgraphs"),
        number::<SubGraph>("tensors"),
        number::<Tensor>("name")
    );
    if cfg!(feature = "numeric-paths") {
        // This build prints the numbers (`flatmodel path` names them in a build with names).
        assert!(error.ends_with(&format!("({numbered_path})")), "{error}");
    } else {
        assert!(error.ends_with("(Model.subgraphs[0].tensors[1].name)"), "{error}");
        let numbered = error.replace("Model.subgraphs[0].tensors[1].name", &numbered_path);
        assert_ne!(numbered, error);
        let r = run(["path", "tflite", numbered.as_str()]);
        r.expect_code(0);
        assert_eq!(r.stdout.trim_end(), error);
    }

    // A number past the schema's fields, and an unknown format, are errors.
    run(["path", "tflite", "Model.#999999"]).expect_code(2);
    run(["path", "onnx", "Model.#1"]).expect_code(2);
}

#[test]
fn rule_errors_number_their_fields_like_the_verifier() {
    // Operator 0's first input made to name a tensor past the subgraph's: a model rule, not the
    // verifier, reports it, at the operator's own `inputs` (not the subgraph's).
    let mut bytes = std::fs::read(support::testdata().join("tflite/sine_float.tflite")).unwrap();
    let model = Model::parse(&bytes).unwrap();
    let sg = model.subgraphs().unwrap().get(0).unwrap();
    let input = sg.operators().unwrap().get(0).unwrap().inputs().unwrap().as_slice().as_ptr() as usize;
    let at = input - bytes.as_ptr() as usize;
    bytes[at..at + 4].copy_from_slice(&1000i32.to_le_bytes());
    let error = Model::parse(&bytes).unwrap_err();
    assert_eq!(error.kind(), flatmodel::ErrorKind::IndexOutOfRange);
    let numbered = format!(
        "Model.#{}[0].#{}[0].#{}[0]",
        number::<Model>("subgraphs"),
        number::<SubGraph>("operators"),
        number::<Operator>("inputs")
    );
    assert_ne!(number::<Operator>("inputs"), number::<SubGraph>("inputs"));
    let path = error.location().to_string();
    if cfg!(feature = "numeric-paths") {
        assert_eq!(path, numbered);
    } else {
        assert_eq!(path, "Model.subgraphs[0].operators[0].inputs[0]");
        let r = run(["path", "tflite", numbered.as_str()]);
        r.expect_code(0);
        assert_eq!(r.stdout.trim_end(), path);
    }
}
