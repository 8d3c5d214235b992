use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", timeout = "90")]
fn no_unit(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = "2d")]
fn unknown_unit(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = "0s")]
fn zero(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", timeout = 90)]
fn not_a_string(_report: &SessionReport) {}

fn main() {}
