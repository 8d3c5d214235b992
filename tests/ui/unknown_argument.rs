use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", tagz = ["smoke"])]
fn misspelled(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", flavor = "multi_thread")]
fn not_an_argument(_report: &SessionReport) {}

fn main() {}
