//! The run directory's files read back (result.json and report.json by `cargo skillgym
//! report` and every reporter, run.json, explain.json and explanations.json, the snapshots
//! file) on arbitrary content.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::result_files(data);
});
