//! The model rules and the runtimes' profiles: known attacks on peer readers, generated models
//! against the rules (proptest), and LiteRT's and TFLite Micro's load checks, with planus's reader
//! as the second opinion.
//!
//! One test binary of the library's, by concern; each module was a test file of its own.

#[path = "../support/counting_alloc.rs"]
mod counting_alloc;
#[path = "../planus_support/mod.rs"]
mod planus_support;

mod attacks;
mod large_graphs;
mod rules_property;
mod runtime_profiles;
