use skillgym::prelude::*;

#[skillgym::case(tags = ["smoke"])]
fn no_prompt(_report: &SessionReport) {}

#[skillgym::case]
fn no_arguments(_report: &SessionReport) {}

fn main() {}
