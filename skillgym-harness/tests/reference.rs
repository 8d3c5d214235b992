//! `docs/src/reference/flags.md` is a benchmark binary's `--help` as the harness renders it:
//! a flag added or changed without regenerating the page fails here.
//! `SKILLGYM_UPDATE_DOCS=1 cargo test -p skillgym-harness --test reference` rewrites it.

use std::path::Path;

#[test]
fn the_flags_reference_is_the_help_text() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference/flags.md");
    let page = format!(
        "# Flags of a benchmark binary\n\n\
         Generated from the harness's own `--help` (`cargo test --test benchmarks -- --help`) by\n\
         `skillgym-harness/tests/reference.rs`; `SKILLGYM_UPDATE_DOCS=1 cargo test -p\n\
         skillgym-harness --test reference` rewrites it. Every skillgym flag has its\n\
         `SKILLGYM_*` variable; a flag beats its variable, which beats `skillgym.yaml`.\n\n\
         ```text\n{}```\n",
        skillgym_harness::command_line_help().trim_end().to_owned() + "\n"
    );
    if std::env::var_os("SKILLGYM_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == page,
        "{} is not the harness's --help: regenerate it with `SKILLGYM_UPDATE_DOCS=1 cargo test -p skillgym-harness --test reference`",
        path.display()
    );
}
