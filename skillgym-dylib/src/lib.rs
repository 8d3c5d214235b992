//! [`skillgym-harness`](https://docs.rs/skillgym-harness) as one shared library, for quick
//! rebuilds while you write cases.
//!
//! A benchmark binary links the harness and everything below it (tokio, serde, clap, regex,
//! the standard library): tens of megabytes, linked again after every edit of a case. Built as
//! a `dylib`, they are linked once into `libskillgym_dylib.so` (`.dylib` on macOS), and the
//! benchmark binary links only your cases against it.
//!
//! Swap it in under the harness's name, and nothing else changes:
//!
//! ```toml
//! [dev-dependencies]
//! skillgym = { path = "../skillgym-rs/skillgym" }
//! skillgym-harness = { package = "skillgym-dylib", path = "../skillgym-rs/skillgym-dylib" }
//! ```
//!
//! This crate re-exports all of `skillgym-harness`, so `skillgym_harness::main()`,
//! [`Harness`] and every module resolve as before, and it holds one copy of `skillgym` too, so
//! cases registered by `#[skillgym::case]` reach the harness that runs them.
//!
//! | | linked statically (`skillgym-harness`) | dynamically (`skillgym-dylib`) |
//! |---|---|---|
//! | relinking after an edit of a case | the whole harness | your cases only |
//! | running | the binary alone | the binary with `libskillgym_dylib` and the standard library's shared library on the library path: `cargo test`, `cargo run` and `cargo nextest` set it |
//! | first build | | one more link, of the shared library |
//!
//! Run the benchmarks through cargo (or nextest): started by hand, the binary does not find
//! its libraries. The figures are in the repository README, "Debug builds".

pub use skillgym_harness::*;
