//! Functions `#[skillgym::case]` cannot be: each case below reports its own errors.

use skillgym::prelude::*;

// ctx_not_mut
#[skillgym::case(prompt = "hi")]
fn shared_ctx(_report: &SessionReport, _ctx: &CaseContext) {}

// generic_fn
#[skillgym::case(prompt = "hi")]
fn generic<T: Default>(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
fn with_where(_report: &SessionReport)
where
    String: Clone,
{
}

// self_fn
struct Suite;

impl Suite {
    #[skillgym::case(prompt = "hi")]
    fn method(&self, _report: &SessionReport) {}
}

// unsupported_fn
#[skillgym::case(prompt = "hi")]
const fn constant(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
unsafe fn not_safe(_report: &SessionReport) {}

#[skillgym::case(prompt = "hi")]
struct NotAFunction;

// wrong_param_count
#[skillgym::case(prompt = "hi")]
fn no_params() {}

#[skillgym::case(prompt = "hi")]
fn three_params(_report: &SessionReport, _ctx: &mut CaseContext, _extra: u32) {}

fn main() {}
