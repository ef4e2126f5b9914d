//! Verifies arbitrary bytes as TFLite and, when they verify, walks every accessor.
//! Built by `cargo fuzz run tflite`; on stable it builds as a replayer of the files it is given,
//! or writes its seeds with `--seeds DIR` (`flatmodel_fuzz::seeds`).
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::tflite(data);
});

// Half the mutations edit the flatbuffer structurally (`flatmodel_fuzz::mutator`), half are
// libFuzzer's own byte-level ones.
#[cfg(fuzzing)]
libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    flatmodel_fuzz::mutator::mutate_or::<flatmodel::tflite::Model<'_>>(
        data,
        size,
        max_size,
        seed,
        libfuzzer_sys::fuzzer_mutate,
    )
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    let ok = flatmodel_fuzz::seeds::write_seeds_if_asked(flatmodel_fuzz::seeds::tflite_seeds)
        .unwrap_or_else(|| flatmodel_fuzz::replay_args(flatmodel_fuzz::tflite));
    match ok {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
