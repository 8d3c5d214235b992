use skillgym::prelude::*;

#[skillgym::case(prompt = "hi", skills = "skills/find-skills")]
fn not_an_array(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", skill = ["skills/find-skills"])]
fn misspelled(_report: &SessionReport) {}

fn main() {}
