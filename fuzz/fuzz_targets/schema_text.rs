//! Reads arbitrary bytes as `.fbs` schema files and a buffer (`flatmodel_fuzz::schema`: the
//! files split at 0x01, the buffer after the first NUL) and, when the schema loads, verifies,
//! dumps and walks the buffer through the dynamic views.
//! Built by `cargo fuzz run schema_text`; on stable it builds as a replayer of the files it is
//! given, or writes its seeds with `--seeds DIR`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Invalid inputs stay in the corpus: a partly valid input is a stepping stone.
    let _ = flatmodel_fuzz::schema::text(data);
});

#[cfg(not(fuzzing))]
fn main() -> std::process::ExitCode {
    let ok = flatmodel_fuzz::seeds::write_seeds_if_asked(flatmodel_fuzz::schema::text_seeds)
        .unwrap_or_else(|| flatmodel_fuzz::replay_args(flatmodel_fuzz::schema::text));
    match ok {
        true => std::process::ExitCode::SUCCESS,
        false => std::process::ExitCode::from(2),
    }
}
