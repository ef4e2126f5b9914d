//! Agreement with the LiteRT interpreter: for every TFLite file with a `.litert.json`, the
//! primary subgraph's tensors (names, shapes, shape signatures, types, quantization) and the
//! signatures match what LiteRT 2.3.0 reported; files LiteRT refused to load, flatmodel
//! rejects or its LiteRT profile refuses (with the same tensors), and files it loaded, flatmodel
//! accepts, LiteRT profile included.

use crate::support;

use flatmodel::graph::{ModelView, Runtime, Warning};
use flatmodel::tflite::{Model, TensorType};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// numpy's name for a tensor type, as LiteRT's Python API reports it.
fn numpy_dtype(t: TensorType) -> String {
    match t {
        TensorType::STRING => "bytes".into(),
        TensorType::RESOURCE | TensorType::VARIANT => "object".into(),
        TensorType::BFLOAT16 => "bfloat16".into(),
        // numpy has no 4-bit integers: LiteRT shows packed INT4 tensors as int8.
        TensorType::INT4 => "int8".into(),
        other => other.name().unwrap_or("?").to_ascii_lowercase(),
    }
}

fn ints(v: Option<flatmodel::wire::Vector<'_, i32>>) -> Vec<i64> {
    v.map(|v| v.iter().map(i64::from).collect()).unwrap_or_default()
}

fn json_ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn close(a: f64, b: f64) -> bool {
    // LiteRT reports float32 scales widened to double; ours are the same float32 values.
    (a - b).abs() <= 1e-12 + 1e-7 * b.abs()
}

fn check_file(model_path: &Path, reference: &Value) -> Result<(), String> {
    let bytes = std::fs::read(model_path).unwrap();
    let parsed = Model::parse(&bytes);
    if let Some(error) = reference.get("interpreter_error") {
        let error = error.as_str().unwrap_or("");
        return match parsed {
            Err(_) => Ok(()),
            Ok(model) => match model.check_runtime(Runtime::LiteRt) {
                Err(_) => same_refused_tensors(&model, error),
                Ok(()) => Err(format!("LiteRT refused it ({error}) but flatmodel --runtime litert accepts it")),
            },
        };
    }
    if reference.get("interpreter_crash").is_some() {
        return Ok(()); // LiteRT aborted: no reference to agree with.
    }
    let model = parsed.map_err(|e| format!("LiteRT loaded it but flatmodel rejects it: {e}"))?;
    if let Err(e) = model.check_runtime(Runtime::LiteRt) {
        return Err(format!("LiteRT loaded it but flatmodel --runtime litert refuses it: {e}"));
    }
    let sg = model.subgraph(0).ok_or("no primary subgraph")?;
    let tensors = sg.tensors().ok_or("no tensors")?;
    for detail in reference["tensor_details"].as_array().unwrap() {
        let index = detail["index"].as_u64().unwrap() as usize;
        let t = tensors.get(index).ok_or(format!("tensor {index} missing"))?;
        let here = format!("tensor {index}");
        if t.name().unwrap_or("") != detail["name"].as_str().unwrap() {
            return Err(format!("{here}: name {:?} vs {}", t.name(), detail["name"]));
        }
        if ints(t.shape()) != json_ints(&detail["shape"]) {
            return Err(format!("{here}: shape {:?} vs {}", ints(t.shape()), detail["shape"]));
        }
        let signature = ints(t.signature());
        if signature != json_ints(&detail["shape_signature"]) {
            return Err(format!("{here}: shape_signature {signature:?} vs {}", detail["shape_signature"]));
        }
        if numpy_dtype(t.type_()) != detail["dtype"].as_str().unwrap() {
            return Err(format!("{here}: type {:?} vs {}", t.type_(), detail["dtype"]));
        }
        let q = &detail["quantization_parameters"];
        let quant = model.quantization(&sg, &t).map_err(|e| format!("{here}: {e}"))?;
        let scales: Vec<f64> = quant.scales.iter().map(f64::from).collect();
        let theirs: Vec<f64> = q["scales"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        if scales.len() != theirs.len() || !scales.iter().zip(&theirs).all(|(a, b)| close(*a, *b)) {
            return Err(format!(
                "{here}: {} scales vs {} (first {:?} vs {:?})",
                scales.len(),
                theirs.len(),
                scales.first(),
                theirs.first()
            ));
        }
        let zero_points: Vec<i64> = quant.zero_points.iter().collect();
        if !theirs.is_empty() && zero_points != json_ints(&q["zero_points"]) {
            return Err(format!(
                "{here}: {} zero points vs {}",
                zero_points.len(),
                q["zero_points"].as_array().unwrap().len()
            ));
        }
        let dim = if theirs.is_empty() { 0 } else { quant.quantized_dimension };
        if i64::from(dim) != q["quantized_dimension"].as_i64().unwrap() {
            return Err(format!("{here}: quantized_dimension {dim} vs {}", q["quantized_dimension"]));
        }
        if i64::from(quant.block_size) != q["block_size"].as_i64().unwrap() {
            return Err(format!("{here}: block_size {} vs {}", quant.block_size, q["block_size"]));
        }
    }
    // Signatures: key -> input and output names.
    let mut ours: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for sig in model.signature_defs().unwrap_or_default() {
        let names = |m: Option<flatmodel::wire::TableVector<'_, flatmodel::tflite::TensorMap<'_>>>| {
            let mut v: Vec<String> = m.into_iter().flatten().map(|t| t.name().unwrap_or("").to_string()).collect();
            v.sort();
            v
        };
        ours.insert(sig.signature_key().unwrap_or("").to_string(), (names(sig.inputs()), names(sig.outputs())));
    }
    let mut theirs: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for (key, sig) in reference["signature_list"].as_object().unwrap() {
        let names = |k: &str| {
            let mut v: Vec<String> =
                sig[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
            v.sort();
            v
        };
        theirs.insert(key.clone(), (names("inputs"), names("outputs")));
    }
    if ours != theirs {
        return Err(format!("signatures {ours:?} vs {theirs:?}"));
    }
    Ok(())
}

/// The tensors LiteRT's `error` names ("Tensor N has invalid quantization parameters.") are
/// those whose LiteRT refusals the warnings list.
fn same_refused_tensors(model: &Model<'_>, error: &str) -> Result<(), String> {
    let named: BTreeSet<u64> =
        error.split("Tensor ").skip(1).filter_map(|rest| rest.split_once(" has invalid")?.0.parse().ok()).collect();
    let mut refused = BTreeSet::new();
    model
        .for_each_warning(|w| {
            if let Warning::RuntimeRefuses { runtime: Runtime::LiteRt, error, .. } = w {
                let at = error.location().to_string();
                let index = at.split("tensors[").nth(1).and_then(|r| r.split(']').next()?.parse::<u64>().ok());
                refused.extend(index);
            }
        })
        .map_err(|e| e.to_string())?;
    match named == refused {
        true => Ok(()),
        false => Err(format!("LiteRT names tensors {named:?}, flatmodel's LiteRT refusals {refused:?}")),
    }
}

fn check_dir(dir: &Path) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for model in support::files_with_suffix(dir, ".tflite") {
        let Some(reference) = support::reference(&model, "litert.json") else { continue };
        if let Err(e) = check_file(&model, &support::read_json(&reference)) {
            failures.push(format!("{}: {e}", model.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {checked} disagree with LiteRT:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn testdata_agrees_with_litert() {
    assert!(check_dir(&support::testdata().join("tflite")) >= 8);
}

#[test]
fn corpus_agrees_with_litert() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    assert!(check_dir(&corpus.join("tflite")) >= 30);
}
