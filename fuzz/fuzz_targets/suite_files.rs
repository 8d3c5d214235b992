//! The declarative suite loader (EVAL.yaml, a case.yaml, .jsonl and .yaml cases files) on
//! arbitrary files, then the trials made of the loaded cases.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::suite_files(data);
});
