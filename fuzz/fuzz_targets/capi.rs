//! Calls flatmodel's C ABI on arbitrary bytes as C code calls it (`fm_verify`, the per-format
//! functions, `fm_check_runtime`, the report's message and path) and checks that C gets what
//! Rust gets (`flatmodel_fuzz::capi`).
//! Built by `cargo fuzz run capi`; on stable it builds as a replayer of the files it is given.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = flatmodel_fuzz::capi::capi(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    match flatmodel_fuzz::replay_args(flatmodel_fuzz::capi::capi) {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
