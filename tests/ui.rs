//! Compile-time diagnostics of `#[skillgym::case]` (trybuild). Regenerate the expected output
//! with `TRYBUILD=overwrite cargo test -p skillgym-e2e --test ui`; it depends on the rustc
//! version.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
