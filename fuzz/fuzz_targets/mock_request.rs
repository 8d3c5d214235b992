//! The scripted model server on arbitrary bytes sent over one connection: HTTP framing,
//! routing, the four wires' request parsing, the script and the reply.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::mock_request(data);
});
