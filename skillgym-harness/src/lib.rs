//! The runner behind skillgym (placeholder: being written).
pub mod cli;
pub mod config;
pub mod process;
mod suggest;
