//! Verifies arbitrary bytes as an ExecuTorch data file (.ptd: FT01 with its FH01 header) and, when they verify, walks every accessor.
//! Built by `cargo fuzz run ptd`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::ptd(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    match flatmodel_fuzz::replay_args(flatmodel_fuzz::ptd) {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
