use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", repeat = 0)]
fn never(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", max_steps = 0)]
fn no_steps(_report: &SessionReport) {}

fn main() {}
