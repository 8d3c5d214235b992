use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
fn shared_ctx(_report: &SessionReport, _ctx: &CaseContext) {}

fn main() {}
