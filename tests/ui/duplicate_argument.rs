use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", repeat = 2, repeat = 3)]
fn twice(_report: &SessionReport) {}

fn main() {}
