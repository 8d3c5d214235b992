use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
fn no_params() {}

#[skillgym::case(prompt = "hi")]
fn three_params(_report: &SessionReport, _ctx: &mut CaseContext, _extra: u32) {}

fn main() {}
