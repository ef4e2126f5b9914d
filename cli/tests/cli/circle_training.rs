//! Circle's training parameters (`CIRCLE_TRAINING`, ONE's `circle_traininfo.fbs`): read alone and
//! nested in a Circle model, with both identifiers (`CTR0`, the older `CTR1`), against flatc's
//! own reading of files flatc wrote (`testdata/circle_training/`, from `training.json`).

use crate::support;

use flatmodel::circle;
use flatmodel::circle_training::{LossFn, LossFnOptions, ModelTraining, Optimizer, OptimizerOptions};
use flatmodel::dump::{dump_table, Dumpable};
use flatmodel::verify::Options;
use flatmodel::ErrorKind;
use serde_json::Value;

fn testdata(name: &str) -> Vec<u8> {
    std::fs::read(support::testdata().join("circle_training").join(name)).unwrap()
}

fn dump(root: Dumpable<'_>) -> Value {
    let mut text = String::new();
    dump_table(&mut text, root, &Options::DEFAULT).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `ours` equals flatc's `theirs`, floats within flatc's six printed decimals.
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && b.iter().all(|(k, v)| a.get(k).is_some_and(|x| same(x, v)))
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Value::Number(a), Value::Number(b)) => (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() <= 5e-7,
        (a, b) => a == b,
    }
}

#[test]
fn both_identifiers_read_as_flatc_reads_them() {
    for id in ["CTR0", "CTR1"] {
        let bytes = testdata(&format!("training.{id}.circletr"));
        let t = ModelTraining::parse(&bytes).unwrap_or_else(|e| panic!("{id}: {e}"));
        let theirs = support::read_json(&support::testdata().join(format!("circle_training/training.{id}.flatc.json")));
        assert!(same(&dump(Dumpable::new(t)), &theirs), "{id}: {} vs {theirs}", dump(Dumpable::new(t)));
        assert_eq!(
            (t.optimizer(), t.lossfn(), t.epochs(), t.batch_size()),
            (Optimizer::ADAM, LossFn::CATEGORICAL_CROSSENTROPY, 5, 32)
        );
        assert!(matches!(t.optimizer_opt(), OptimizerOptions::AdamOptions(o) if o.learning_rate() == 0.001));
        assert!(matches!(t.lossfn_opt(), LossFnOptions::CategoricalCrossentropyOptions(o) if o.from_logits()));
        assert_eq!(t.trainable_ops().unwrap().iter().collect::<Vec<_>>(), [0, 2]);
    }
    let mut other = testdata("training.CTR0.circletr");
    other[4..8].copy_from_slice(b"CTR2");
    assert_eq!(ModelTraining::parse(&other).unwrap_err().kind(), ErrorKind::WrongIdentifier);
}

#[test]
fn nested_in_a_circle_model_it_is_verified_and_located_through_the_model() {
    let training = testdata("training.CTR1.circletr");
    let bytes = support::circle_with_metadata(Some(b"next.circle"), &[(b"CIRCLE_TRAINING", &training)]);
    let model = circle::Model::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let t = model.training().unwrap().unwrap();
    let theirs = support::read_json(&support::testdata().join("circle_training/training.CTR1.flatc.json"));
    assert!(same(&dump(Dumpable::new(t)), &theirs));
    // Where the nested bytes start in the file.
    let base = bytes.windows(training.len()).position(|w| w == training.as_slice()).unwrap();

    // A trainable_ops vector claiming more elements than the bytes hold (the nested view's
    // positions count from the nested bytes' start).
    let ops = base + t.raw().field(10).unwrap();
    let vector = ops + u32::from_le_bytes(bytes[ops..ops + 4].try_into().unwrap()) as usize;
    let mut broken = bytes.clone();
    broken[vector..vector + 4].copy_from_slice(&1000u32.to_le_bytes());
    let e = circle::Model::parse(&broken).unwrap_err();
    assert_eq!(e.location().to_string(), "Model.metadata[0](CIRCLE_TRAINING).trainable_ops", "{e}");
    assert!(e.offset() as usize >= base && (e.offset() as usize) < base + training.len(), "{e}");
    // The structure alone does not look inside; reading it reports the same error.
    let m = circle::Model::parse_structure(&broken).unwrap();
    assert_eq!(m.training().unwrap().unwrap_err().to_string(), e.to_string());

    // An identifier of neither revision.
    let mut broken = bytes.clone();
    broken[base + 4..base + 8].copy_from_slice(b"XXXX");
    let e = circle::Model::parse(&broken).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongIdentifier);
    assert_eq!(e.location().to_string(), "Model.metadata[0](CIRCLE_TRAINING)", "{e}");
    assert_eq!(e.offset() as usize, base + 4);
}

#[test]
fn the_command_line_dumps_and_summarises_it() {
    let dir = support::cli::Scratch::new("circle-training");
    let training = testdata("training.CTR0.circletr");
    let file = dir.write("m.circle", &support::circle_with_metadata(None, &[(b"CIRCLE_TRAINING", &training)]));
    let r = support::cli::run(["dump", file.to_str().unwrap(), "metadata:CIRCLE_TRAINING"]);
    r.expect_code(0);
    let theirs = support::read_json(&support::testdata().join("circle_training/training.CTR0.flatc.json"));
    assert!(same(&serde_json::from_str(&r.stdout).unwrap(), &theirs), "{}", r.stdout);
    let r = support::cli::run(["inspect", file.to_str().unwrap()]);
    r.expect_code(0);
    let line = "training:            ADAM (learning rate 0.001), loss CATEGORICAL_CROSSENTROPY (Sum, from \
                logits), 5 epochs, batch size 32, 2 trainable operators";
    assert!(r.stdout.contains(line), "{}", r.stdout);
}
