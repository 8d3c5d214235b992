//! Tests of the assertion groups over reports built from real agent transcripts and by hand.
//!
//! Failures are captured through soft mode (`CaseContext::soft`), which records exactly what a
//! hard check would raise; hard mode is covered in `hard.rs`.

#[path = "../support/mod.rs"]
mod support;

mod common;

mod commands;
mod file_reads;
mod hard;
mod output;
mod skills;
mod soft;
mod tool_calls;
