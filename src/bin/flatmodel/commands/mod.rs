//! One module per command: each parses nothing (`main` does), opens its input through
//! [`crate::open`] and prints.

pub mod dump;
pub mod extract;
pub mod inspect;
pub mod path;
pub mod tflm_resolver;
pub mod verify;
