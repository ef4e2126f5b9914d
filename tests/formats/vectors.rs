//! Vectors as Rust iterables, on real models: `for x in v` and `for x in &v` read what
//! `v.iter()` reads, for vectors of tables and of scalars and a sparse tensor's index values
//! (`tests/schema_kinds.rs` covers the vectors of strings, structs and unions, and the empty
//! default vectors).

use crate::support;

use flatmodel::graph::{DimensionView, ModelView, SubGraphView, TensorView};
use flatmodel::tflite;

#[test]
fn model_vectors_iterate_by_value_and_by_reference_as_iter_does() {
    let (mut models, mut shapes, mut index_vectors) = (0, 0, 0);
    for path in support::files_with_suffix(&support::testdata().join("tflite"), ".tflite") {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(model) = tflite::Model::parse(&bytes) else { continue };
        let name = path.display();
        let subgraphs = model.subgraph_list().unwrap();
        let by_iter: Vec<_> = subgraphs.iter().map(|s| s.position()).collect();
        assert_eq!(subgraphs.into_iter().map(|s| s.position()).collect::<Vec<_>>(), by_iter, "{name}");
        assert_eq!((&subgraphs).into_iter().map(|s| s.position()).collect::<Vec<_>>(), by_iter, "{name}");
        assert_eq!(by_iter.len(), subgraphs.len(), "{name}");
        for sg in subgraphs {
            let tensors = sg.tensors().unwrap_or_default();
            let names: Vec<_> = tensors.iter().map(|t| t.name()).collect();
            assert_eq!((&tensors).into_iter().map(|t| t.name()).collect::<Vec<_>>(), names, "{name}");
            assert_eq!(names.len(), sg.tensors().map_or(0, |t| t.len()), "{name}");
            for t in tensors {
                let dims = TensorView::sparsity(&t).and_then(|s| s.dim_metadata()).unwrap_or_default();
                let index_values = |d| [DimensionView::array_segments(&d), DimensionView::array_indices(&d)];
                for values in dims.into_iter().flat_map(index_values).flatten() {
                    let by_get: Vec<i32> = (0..values.len()).map(|i| values.get(i)).collect();
                    assert_eq!(values.into_iter().collect::<Vec<_>>(), by_get, "{name}");
                    assert_eq!(values.iter().len(), values.len(), "{name}");
                    index_vectors += 1;
                }
                let Some(shape) = t.shape() else { continue };
                let dims: Vec<i32> = shape.iter().collect();
                assert_eq!(shape.into_iter().collect::<Vec<_>>(), dims, "{name}");
                assert_eq!(
                    (&shape).into_iter().rev().collect::<Vec<_>>(),
                    dims.iter().rev().copied().collect::<Vec<_>>()
                );
                assert_eq!(shape.into_iter().len(), shape.len(), "{name}");
                shapes += 1;
            }
        }
        models += 1;
    }
    assert!(models >= 5 && shapes >= 100, "{models} models, {shapes} shapes");
    assert!(index_vectors >= 2, "a sparse model's index vectors: {index_vectors}");
}

/// An absent sparse index vector reads as the empty default: no value, nothing iterated.
#[test]
fn index_values_default_to_empty() {
    let empty = flatmodel::graph::IndexValues::default();
    assert_eq!((empty.len(), empty.is_empty(), empty.get(0)), (0, true, 0));
    assert_eq!((empty.iter().len(), empty.into_iter().count()), (0, 0));
}
