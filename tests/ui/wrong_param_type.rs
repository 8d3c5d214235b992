use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
fn wrong_referent(report: &u32) {
    let _ = report;
}

#[skillgym::case(prompt = "hi")]
fn by_value(report: SessionReport) {
    let _ = report;
}

fn main() {}
