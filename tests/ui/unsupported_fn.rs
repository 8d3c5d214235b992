use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
const fn constant(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
unsafe fn not_safe(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
struct NotAFunction;

fn main() {}
