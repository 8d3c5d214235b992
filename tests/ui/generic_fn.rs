use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
fn generic<T: Default>(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
fn with_where(_report: &SessionReport)
where
    String: Clone,
{
}

fn main() {}
