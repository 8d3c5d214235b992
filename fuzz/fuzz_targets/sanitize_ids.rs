//! Case and runner ids turned into directory names, on arbitrary ids.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::sanitize_ids(data);
});
