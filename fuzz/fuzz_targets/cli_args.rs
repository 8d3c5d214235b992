//! A benchmark binary's argv and SKILLGYM_* variables on arbitrary words.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::cli_args(data);
});
