//! The `skillgym.yaml` loader (and the mock-script loader, which shares its YAML layer) on
//! arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        skillgym_harness::fuzzing::config_from_str(text);
    }
});
