//! Reads arbitrary bytes as flatc's binary schema (`.bfbs`): verifies them as reflection's
//! `Schema` through a run-time schema, then loads them and, when they load, verifies, dumps and
//! walks an empty table and the bytes themselves through the dynamic views.
//! Built by `cargo fuzz run schema_bfbs`; on stable it builds as a replayer of the files it is
//! given, or writes its seeds with `--seeds DIR`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::schema::bfbs(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    let ok = flatmodel_fuzz::seeds::write_seeds_if_asked(flatmodel_fuzz::schema::bfbs_seeds)
        .unwrap_or_else(|| flatmodel_fuzz::replay_args(flatmodel_fuzz::schema::bfbs));
    match ok {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
