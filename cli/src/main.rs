//! `flatmodel`: verify, inspect, scan, dump and extract model files. The command line is the
//! library's (`flatmodel_cli`, `command_line.rs`); this binary only runs it.

fn main() -> std::process::ExitCode {
    flatmodel_cli::run_command_line()
}
