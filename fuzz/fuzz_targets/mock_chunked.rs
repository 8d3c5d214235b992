//! The scripted model server's HTTP reader on arbitrary bytes after a chunked request's head:
//! chunk sizes, extensions, data, trailers, then further pipelined requests.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::mock_chunked(data);
});
