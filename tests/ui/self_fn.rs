use skillgym::prelude::*;

struct Suite;

impl Suite {
    #[skillgym::case(prompt = "hi")]
    fn method(&self, _report: &SessionReport) {}
}

fn main() {
    let _ = Suite;
}
