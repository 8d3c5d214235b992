use skillgym::prelude::*;

fn classify(message: &str) -> Option<FailureClass> {
    message.contains("x").then(|| FailureClass::id("x"))
}

fn classify_bool(_failure: &skillgym::Failure) -> bool {
    true
}

#[skillgym::case(prompt = "hi", classify_failure = classify)]
fn wrong_input(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", classify_failure = classify_bool)]
fn wrong_output(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi", classify_failure = "classify")]
fn quoted_path(_report: &SessionReport) {}

fn main() {}
