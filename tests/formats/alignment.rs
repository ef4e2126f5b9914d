//! `Options::check_alignment` and 8-byte vector elements: writers align `long`, `ulong` and
//! `double` element data to 8 bytes; the verifier checks it (one check per vector) unless the
//! option is off, and real files pass.

use crate::support;

use flatmodel::graph::{ModelView, SubGraphView, TensorView};
use flatmodel::tflite::Model;
use flatmodel::verify::Options;
use flatmodel::vkgraph::{Blob, GraphTypes};
use flatmodel::ErrorKind;
use support::{vkgraph_list, zero_point_model};

const LAX: Options = Options { check_alignment: false, ..Options::DEFAULT };

fn zero_points(model: &Model<'_>) -> Vec<i64> {
    let tensor = model.subgraph(0).unwrap().tensors().unwrap().get(0).unwrap();
    TensorView::quantization(&tensor).unwrap().zero_point.unwrap().iter().collect()
}

#[test]
fn int64_vectors_must_be_8_aligned() {
    let values = [-3, 1 << 40, i64::MIN];
    let (aligned, _) = zero_point_model(&values, 0);
    let model = Model::parse_structure(&aligned).unwrap();
    assert_eq!(zero_points(&model), values);

    let (skewed, at) = zero_point_model(&values, 4);
    assert_eq!((at + 4) % 8, 4, "the crafted element data is misaligned");
    let err = Model::parse_structure(&skewed).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned);
    assert_eq!(err.location().to_string(), "Model.subgraphs[0].tensors[0].quantization.zero_point");
    assert_eq!(err.offset(), at as u64 + 4, "the offset is where the elements start");
    // Without the alignment check the same bytes verify and read the same values.
    let model = Model::parse_structure_with(&skewed, &LAX).unwrap().value;
    assert_eq!(zero_points(&model), values);
}

#[test]
fn an_empty_int64_vector_is_checked_too() {
    // Writers align the (absent) element data of an empty vector as well.
    let (skewed, _) = zero_point_model(&[], 4);
    assert_eq!(Model::parse_structure(&skewed).map(|_| ()).unwrap_err().kind(), ErrorKind::Misaligned);
    assert!(Model::parse_structure(&zero_point_model(&[], 0).0).is_ok());
}

fn double_items(blob: &Blob<'_>) -> Vec<f64> {
    match blob.graph().values().unwrap().get(0).unwrap().value() {
        GraphTypes::DoubleList(list) => list.items().unwrap().iter().collect(),
        _ => panic!("not a DoubleList"),
    }
}

#[test]
fn double_and_long_lists_must_be_8_aligned() {
    let values = [1.5f64, -0.25, f64::MAX];
    let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
    let (aligned, _) = vkgraph_list(7, &bits, 0);
    assert_eq!(double_items(&Blob::parse_structure(&aligned).unwrap()), values);

    let (skewed, at) = vkgraph_list(7, &bits, 4);
    let err = Blob::parse_structure(&skewed).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned);
    assert_eq!(err.location().to_string(), "VkGraph.values[0].value.items");
    assert_eq!(err.offset(), at as u64 + 4);
    let blob = Blob::parse_structure_with(&skewed, &LAX).unwrap().value;
    assert_eq!(double_items(&blob), values);

    // IntList's [long] the same way.
    assert!(Blob::parse_structure(&vkgraph_list(6, &[7, 8], 0).0).is_ok());
    let err = Blob::parse_structure(&vkgraph_list(6, &[7, 8], 4).0).map(|_| ()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Misaligned);
}

#[test]
fn real_int64_vectors_are_aligned_and_checked() {
    // The check is exercised by the shipped models (their int64 zero points) and passes.
    let mut checked = 0;
    for path in support::files_with_suffix(&support::testdata().join("tflite"), ".tflite") {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for sg in model.subgraphs().unwrap().iter() {
            for t in SubGraphView::tensors(&sg).unwrap_or_default() {
                let Some(zp) = TensorView::quantization(&t).and_then(|q| q.zero_point) else { continue };
                let start = zp.as_slice().as_ptr() as usize - bytes.as_ptr() as usize;
                assert_eq!(start % 8, 0, "{}: zero_point data at {start}", path.display());
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} int64 vectors in testdata");
}
