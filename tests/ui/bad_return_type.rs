use skillgym::prelude::*;

#[skillgym::case(prompt = "hi")]
fn returns_number(_report: &SessionReport) -> u32 {
    3
}

#[skillgym::case(prompt = "hi")]
async fn returns_option(_report: &SessionReport) -> Option<()> {
    None
}

fn main() {}
