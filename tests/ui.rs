//! Compile-time diagnostics of `#[skillgym::case]` (trybuild). Regenerate the expected output
//! with `TRYBUILD=overwrite cargo test -p skillgym-e2e --test ui`; it depends on the rustc
//! version.
//!
//! Each file is one rustc invocation, so misuses the macro reports by itself are grouped, one
//! case each: `arguments.rs` (the attribute's arguments) and `signatures.rs` (functions a case
//! cannot be). Misuses that end in type errors keep a file of their own. The cases need only
//! `skillgym`: the package's other dev-dependencies are `cfg(not(trybuild))` (see Cargo.toml),
//! so trybuild does not build the harness for them.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
