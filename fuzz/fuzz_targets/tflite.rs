//! Verifies arbitrary bytes as TFLite and, when they verify, walks every accessor.
//! Built by `cargo fuzz run tflite`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| flatmodel::fuzzing::tflite(data));

#[cfg(not(fuzzing))]
fn main() {
    flatmodel::fuzzing::replay_args(flatmodel::fuzzing::tflite);
}
