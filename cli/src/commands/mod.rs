//! One module per command: each gets its arguments parsed (by `main`), opens its input through
//! [`crate::open`] and prints; `inspect` prints [`crate::summary`]'s summaries.

pub mod dump;
pub mod extract;
pub mod inspect;
pub mod path;
pub mod tflm_resolver;
pub mod verify;
