//! Views exist only over verified bytes: outside code cannot build one. Each attempt in
//! `tests/sealed/*.rs` must fail to compile with the error its `.stderr` records (regenerate
//! with `TRYBUILD=overwrite cargo test --test sealed` after a compiler upgrade changes the
//! wording, and check the new errors still say why).

#[test]
fn outside_code_cannot_build_a_view_over_unverified_bytes() {
    trybuild::TestCases::new().compile_fail("tests/sealed/*.rs");
}
