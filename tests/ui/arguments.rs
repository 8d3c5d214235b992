//! Misuses of `#[skillgym::case]`'s arguments: each case below reports its own errors.

use skillgym::prelude::*;

// bad_strings
#[skillgym::case(prompt = "hi", id = "has space")]
fn spaced_id(_report: &SessionReport) {}

#[skillgym::case(prompt = "")]
fn empty_prompt(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", runners = ["claude", ""], workspace = 3)]
fn empty_runner(_report: &SessionReport) {}

// both_prompts
#[skillgym::case(prompt = "hi", prompt_file = "prompts/hi.md")]
fn two_prompts(_report: &SessionReport) {}

// duplicate_argument
#[skillgym::case(prompt = "hi", repeat = 2, repeat = 3)]
fn twice(_report: &SessionReport) {}

// expected_fail_value
#[skillgym::case(prompt = "hi", expected_fail = true)]
fn flag_with_value(_report: &SessionReport) {}

// missing_prompt
#[skillgym::case(tags = ["smoke"])]
fn no_prompt(_report: &SessionReport) {}

#[skillgym::case]
fn no_arguments(_report: &SessionReport) {}

// repeat_string
#[skillgym::case(prompt = "hi", repeat = "3")]
fn quoted_number(_report: &SessionReport) {}

// repeat_zero
#[skillgym::case(prompt = "hi", repeat = 0)]
fn never(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", max_steps = 0)]
fn no_steps(_report: &SessionReport) {}

// skills_not_array
#[skillgym::case(prompt = "hi", skills = "skills/find-skills")]
fn not_an_array(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", skill = ["skills/find-skills"])]
fn misspelled_skills(_report: &SessionReport) {}

// tags_bare_ident
#[skillgym::case(prompt = "hi", tags = [smoke])]
fn unquoted_tag(_report: &SessionReport) {}

// tags_not_array
#[skillgym::case(prompt = "hi", tags = "smoke")]
fn single_string(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", tags = ["smoke", "skills", "smoke"])]
fn duplicate_tag(_report: &SessionReport) {}

// unknown_argument
#[skillgym::case(prompt = "hi", tagz = ["smoke"])]
fn misspelled(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", flavor = "multi_thread")]
fn not_an_argument(_report: &SessionReport) {}

// samples_with_repeat
#[skillgym::case(prompt = "hi", repeat = 2, samples = 20)]
fn sampled_and_repeated(_report: &SessionReport) {}

fn main() {}
