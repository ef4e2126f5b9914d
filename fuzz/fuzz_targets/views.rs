//! Checks, for any bytes the structural verifier accepts as any format, that every accessor
//! and the dump succeed, that reading twice gives the same, that `parse` is the structure and
//! then the rules, and that the format's schema read at run time dumps what the compiled views
//! dump (`flatmodel_fuzz::views`).
//! Built by `cargo fuzz run views`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = flatmodel_fuzz::views::views(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    match flatmodel_fuzz::replay_args(flatmodel_fuzz::views::views) {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
