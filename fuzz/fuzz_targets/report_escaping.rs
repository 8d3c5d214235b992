//! Every reporter (console, HTML, JUnit, GitHub Actions, JSON) on a report whose ids,
//! messages, sources and times are arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::report_escaping(data);
});
