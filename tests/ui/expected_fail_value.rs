use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", expected_fail = true)]
fn flag_with_value(_report: &SessionReport) {}

fn main() {}
