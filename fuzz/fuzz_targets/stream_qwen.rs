//! The QwenCode adapter's stream parser on arbitrary stdout bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillgym_harness::config::AgentKind;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::parse_stream(AgentKind::QwenCode, data);
});
