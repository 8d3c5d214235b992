//! Helpers shared by the integration tests.

// Each test crate that declares `mod support;` uses only part of it.
#![allow(dead_code)]

pub(crate) mod transcripts;
