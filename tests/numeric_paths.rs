//! `flatmodel path`: an error path in the numeric form a `numeric-paths` build prints
//! (`Model.#N[0]...`) comes back with the names the verifier gives it in a build with names.

mod support;

use flatmodel::tflite::{Model, SubGraph, Tensor};
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
    let mut bytes = std::fs::read("testdata/tflite/sine_float.tflite").unwrap();
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
    assert!(error.ends_with("(Model.subgraphs[0].tensors[1].name)"), "{error}");

    let numbered = error.replace(
        "Model.subgraphs[0].tensors[1].name",
        &format!(
            "Model.#{}[0].#{}[1].#{}",
            number::<Model>("subgraphs"),
            number::<SubGraph>("tensors"),
            number::<Tensor>("name")
        ),
    );
    assert_ne!(numbered, error);
    let r = run(["path", "tflite", numbered.as_str()]);
    r.expect_code(0);
    assert_eq!(r.stdout.trim_end(), error);

    // A number past the schema's fields, and an unknown format, are errors.
    run(["path", "tflite", "Model.#999999"]).expect_code(2);
    run(["path", "onnx", "Model.#1"]).expect_code(2);
}
