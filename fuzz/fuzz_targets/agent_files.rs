//! The files agents leave after a session (session files, Copilot's usage output, stderr
//! logs), collected by each adapter after its parser read arbitrary stdout.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::agent_files(data);
});
