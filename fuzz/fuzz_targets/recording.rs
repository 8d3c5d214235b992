//! A recorded run on arbitrary files: opened, each attempt replayed through today's adapter,
//! packed again (`--replay`, `cargo skillgym record`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::recording(data);
});
