//! One module per command: each gets its arguments parsed (by `command_line`), opens its input
//! through [`crate::open`] and prints; `inspect` and `scan` print [`crate::report`]'s reports.

pub mod bench;
pub mod dump;
pub mod extract;
pub mod inspect;
pub mod path;
pub mod scan;
pub mod tflm_resolver;
pub mod verify;
pub mod verify_data;
