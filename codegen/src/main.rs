//! `flatmodel-codegen [--check]`: writes every stale `generated.rs` of the workspace, or with
//! `--check` lists them and fails. Run it as `cargo xtask codegen [--check]`, which builds it
//! so that it runs when the library's generated code does not build (see the crate docs).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => false,
        ["--check"] => true,
        _ => {
            eprintln!("usage: flatmodel-codegen [--check] (cargo xtask codegen [--check])");
            return ExitCode::from(2);
        }
    };
    let root = flatmodel_codegen::workspace_root();
    if check {
        match flatmodel_codegen::stale(&root) {
            Ok(stale) if stale.is_empty() => ExitCode::SUCCESS,
            Ok(stale) => {
                for s in stale {
                    eprintln!("{s}");
                }
                eprintln!("run `cargo xtask codegen` to regenerate");
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("codegen: {e}");
                ExitCode::FAILURE
            }
        }
    } else {
        match flatmodel_codegen::write(&root) {
            Ok(written) => {
                for target in &written {
                    println!("wrote {target}");
                }
                println!("codegen: {} of {} files written", written.len(), flatmodel_codegen::SCHEMAS.len());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("codegen: {e}");
                ExitCode::FAILURE
            }
        }
    }
}
