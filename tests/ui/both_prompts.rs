use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", prompt_file = "prompts/hi.md")]
fn two_prompts(_report: &SessionReport) {}

fn main() {}
