//! Opens arbitrary bytes as a zipped nnpackage held in memory and, when it opens, reads what it holds.
//! Built by `cargo fuzz run package_zip`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::package_zip(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    match flatmodel_fuzz::replay_args(flatmodel_fuzz::package_zip) {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
