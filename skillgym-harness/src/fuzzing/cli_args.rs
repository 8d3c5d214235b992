//! A benchmark binary's command line and `SKILLGYM_*` variables on arbitrary words: clap's
//! parse of libtest's flags and skillgym's, the variables parsed as their flags, flags over
//! variables, then the settings of a run resolved from them.
//!
//! | input (NUL-separated words, bytes as they come) | what it is |
//! |---|---|
//! | words before an empty word | argv after the program name |
//! | words after it | variables, `NAME=value`; a bare `NAME` of a flag becomes `SKILLGYM_<NAME>` |

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt as _;
use std::path::Path;

use crate::cli::{self, Invocation};
use crate::config::Config;
use crate::harness::settings::resolve;

/// Parses the argv and variables `bytes` make (see the module) as a benchmark binary does and
/// resolves a run's settings from them; checks that every error names its flag or variable
/// and that lists hold each value once. For fuzz targets; not a stable API.
pub fn cli_args(bytes: &[u8]) {
    let mut words = bytes.split(|&byte| byte == 0);
    let argv: Vec<OsString> = std::iter::once(OsString::from("benchmarks"))
        .chain(
            words
                .by_ref()
                .take_while(|word| !word.is_empty())
                .map(|word| OsString::from_vec(word.to_vec())),
        )
        .collect();
    let env: Vec<(String, String)> = words
        .map(|word| {
            let word = String::from_utf8_lossy(word);
            match word.split_once('=') {
                Some((name, value)) => (name.to_owned(), value.to_owned()),
                None => (
                    format!("SKILLGYM_{}", word.to_ascii_uppercase().replace('-', "_")),
                    String::new(),
                ),
            }
        })
        .collect();
    let flags = match cli::parse(argv) {
        Ok(Invocation::Run(_, flags)) => Some(*flags),
        Ok(Invocation::Help(text)) => {
            assert!(!text.is_empty(), "an empty help text");
            None
        }
        Err(error) => {
            assert!(
                !error.subject().is_empty(),
                "a usage error naming nothing: {error}"
            );
            assert!(!error.message().is_empty(), "a usage error saying nothing");
            None
        }
    };
    let lookup = |name: &str| {
        env.iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let from_env = match cli::from_env(lookup) {
        Ok(args) => Some(args),
        Err(error) => {
            assert!(
                error.subject().starts_with("SKILLGYM_"),
                "a variable's error naming {:?}",
                error.subject()
            );
            None
        }
    };
    let (Some(flags), Some(from_env)) = (flags, from_env) else {
        return;
    };
    let args = flags.or(from_env);
    for list in [&args.tags, &args.runners] {
        let mut seen = std::collections::HashSet::new();
        assert!(
            list.iter().all(|item| seen.insert(item)),
            "a repeated value: {list:?}"
        );
    }
    let config = Config::default_for(Path::new("/fuzz/crate"));
    let _ = resolve(config, &args, Path::new("/fuzz/crate/target/skillgym/runs"));
}
