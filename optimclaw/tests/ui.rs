//! Compile-time validation of `#[tool]`: every misuse in `ui/` is a compile
//! error whose text is committed beside it; everything in `pass/` compiles.
//! The `.stderr` files belong to the toolchain in `rust-toolchain.toml`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
