//! A skill's SKILL.md frontmatter on arbitrary text: the strict loader and the lenient
//! lookup skill detection uses.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    skillgym_harness::fuzzing::skill_manifest(data);
});
