use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", timeout = "90")]
fn no_unit(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = "2d")]
fn unknown_unit(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = "0s")]
fn zero(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = 90)]
fn not_a_string(_report: &SessionReport) {}

// The grammar YAML uses: largest unit first, each once.
#[skillgym::case(prompt = "hi", timeout = "30s1m")]
fn out_of_order(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = "1m 30s")]
fn inner_space(_report: &SessionReport) {}

fn main() {}
