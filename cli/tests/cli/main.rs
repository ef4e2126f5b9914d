//! The command line's tests, in one binary: each module runs the `flatmodel` binary as a user
//! does (`support::cli`) and checks what it prints against the library, the file bytes or the
//! independent tools' reference outputs, never against the tool's own earlier output (but the
//! reviewed golden files of `inspect_golden`).

#[path = "../../../tests/nnpackage_support/mod.rs"]
mod nnpackage_support;
#[path = "../../../tests/support/mod.rs"]
mod shared_support;

/// The library tests' helpers (`tests/support`), and running the binary (`support/cli.rs`).
mod support {
    pub use crate::shared_support::*;
    pub mod cli;
}

mod associated_files;
mod bench;
mod bundle;
mod circle_training;
mod cli;
mod cli_extract_tensor;
mod cli_habits;
mod cli_layers;
mod cli_schema;
mod cli_summary;
mod cvimodel;
mod inspect_golden;
mod inspect_schema;
mod litertlm;
mod metadata;
mod nnpackage_cli;
mod numeric_paths;
mod program_data;
mod scan;
mod tflm_agreement;
mod xnnpack;
