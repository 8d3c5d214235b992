use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", tags = "smoke")]
fn single_string(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", tags = ["smoke", "skills", "smoke"])]
fn duplicate_tag(_report: &SessionReport) {}

fn main() {}
