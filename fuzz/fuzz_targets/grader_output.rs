//! A code grader's stdout, stderr and exit status and a judge's answer on arbitrary text,
//! through the graders and the case's score.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::grader_output(data);
});
