use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", tags = [smoke])]
fn unquoted_tag(_report: &SessionReport) {}

fn main() {}
