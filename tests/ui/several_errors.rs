use skillgym::prelude::*;

// Every problem is reported, not just the first.
#[skillgym::case(promt = "hi", repeat = -1, retry_failed = 1, retry_failed = 2)]
fn many_mistakes<T>(_report: &mut SessionReport) {}

fn main() {}
