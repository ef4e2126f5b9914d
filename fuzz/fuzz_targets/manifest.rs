//! Parses arbitrary bytes as an nnpackage MANIFEST.
//! Built by `cargo fuzz run manifest`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::manifest(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    match flatmodel_fuzz::replay_args(flatmodel_fuzz::manifest) {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
