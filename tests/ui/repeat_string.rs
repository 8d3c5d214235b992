use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", repeat = "3")]
fn quoted_number(_report: &SessionReport) {}

fn main() {}
