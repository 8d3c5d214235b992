use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", id = "has space")]
fn spaced_id(_report: &SessionReport) {}

#[skillgym::case(prompt = "")]
fn empty_prompt(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", runners = ["claude", ""], workspace = 3)]
fn empty_runner(_report: &SessionReport) {}

fn main() {}
