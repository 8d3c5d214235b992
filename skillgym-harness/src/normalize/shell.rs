//! Reading shell commands: unwrapping `bash -lc '…'` wrappers, and finding the files a command
//! reads (`cat`, `sed -n`, `head`, `tail`, `nl`, `bat`, `less`, `more`), following `cd`.
//!
//! Words are split with shell quoting rules ([`skillgym_grammar::shell::lex`]); expansions are not
//! performed, so operands holding `$`, globs or `~` are not reported as reads.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use skillgym_grammar::shell::{Token, lex};

use super::resolve_path;

/// Shells whose `-c` script is the command that matters.
const SHELLS: [&str; 6] = ["bash", "sh", "zsh", "dash", "ksh", "fish"];

/// The programs [`file_reads`] interprets; a script naming none of them is not lexed.
const READERS: [&str; 10] = [
    "cd", "pushd", "cat", "bat", "less", "more", "head", "tail", "nl", "sed",
];

/// Finds any of [`READERS`] in a script in one pass (ten substring searches cost about ten
/// times as much for a short command).
static ANY_READER: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(READERS).expect("fixed patterns build"));

/// How many nested wrappers are unwrapped.
const MAX_DEPTH: usize = 8;

/// The script inside `/bin/bash -lc '<script>'` (and `sh -c`, `zsh -lc`, … nested), or the
/// command itself, trimmed, when it is not such a wrapper.
pub(super) fn unwrap_shell(command: &str) -> String {
    let mut current = command.trim().to_owned();
    for _ in 0..MAX_DEPTH {
        if !starts_with_shell(&current) {
            break;
        }
        match shell_script(&current) {
            Some(script) => current = script.trim().to_owned(),
            None => break,
        }
    }
    current
}

/// The script of the common form `<shell> -c '<script>'` / `-lc`, read without lexing: one
/// single-quoted word holding no other quote (so nothing in it is special).
fn simple_wrapper(command: &str) -> Option<&str> {
    let (_program, rest) = command.split_once(' ')?;
    let (flags, quoted) = rest.trim_start().split_once(' ')?;
    if !matches!(flags, "-c" | "-lc" | "-cl") {
        return None;
    }
    let script = quoted.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    (!script.contains('\'')).then_some(script)
}

/// Whether the first word names a shell (a cheap test before lexing the whole command).
fn starts_with_shell(command: &str) -> bool {
    command
        .split_whitespace()
        .next()
        .is_some_and(|first| SHELLS.contains(&basename(first.trim_matches(['\'', '"']))))
}

/// The `-c` script when `command` is exactly one shell invocation with `-c`.
fn shell_script(command: &str) -> Option<String> {
    if let Some(script) = simple_wrapper(command) {
        return Some(script.to_owned());
    }
    let mut words = Vec::new();
    for token in lex(command) {
        match token {
            Token::Word(word) => words.push(word),
            Token::Separator(_) => return None,
        }
    }
    let program = words.first()?;
    if !SHELLS.contains(&basename(program)) {
        return None;
    }
    let mut has_c = false;
    let mut rest = words[1..].iter();
    for word in rest.by_ref() {
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            if long == "command" {
                has_c = true;
            }
            continue;
        }
        match word.strip_prefix('-').or_else(|| word.strip_prefix('+')) {
            Some(flags) if !flags.is_empty() => {
                if word.starts_with('-') && flags.contains('c') {
                    has_c = true;
                }
            }
            _ => return has_c.then(|| word.clone()),
        }
    }
    if has_c { rest.next().cloned() } else { None }
}

/// The files `script` reads with `cat`, `sed -n`, `head`, `tail`, `nl`, `bat`, `less` or
/// `more`, made absolute against `cwd` and any `cd` earlier in the script.
pub(super) fn file_reads(script: &str, cwd: &Path) -> Vec<PathBuf> {
    let mut reads = Vec::new();
    if !ANY_READER.is_match(script) {
        return reads;
    }
    let mut dir = cwd.to_path_buf();
    let mut words: Vec<String> = Vec::new();
    let mut tokens = lex(script).into_iter().peekable();
    loop {
        let token = tokens.next();
        match token {
            Some(Token::Word(word)) => {
                words.push(word);
                continue;
            }
            Some(Token::Separator(_)) | None => {}
        }
        simple_command(&words, &mut dir, &mut reads);
        words.clear();
        if token.is_none() {
            break;
        }
    }
    reads
}

/// Interprets one simple command: a `cd` moves `dir`, a reading command adds its files.
fn simple_command(words: &[String], dir: &mut PathBuf, reads: &mut Vec<PathBuf>) {
    let words = skip_prefixes(words);
    let Some((program, args)) = words.split_first() else {
        return;
    };
    let operands = match basename(program) {
        "cd" | "pushd" => {
            if let [target] = args
                && is_plain_path(target)
            {
                *dir = resolve_path(dir, Path::new(target));
            }
            return;
        }
        "sed" => match sed_printed_files(args) {
            Some(operands) => operands,
            None => return,
        },
        name => match reader_options(name) {
            Some((short, long)) => parse_args(args, short, long).operands,
            None => return,
        },
    };
    for operand in operands {
        if is_plain_path(&operand) && !operand.starts_with("/dev/") {
            reads.push(resolve_path(dir, Path::new(&operand)));
        }
    }
}

/// The commands whose operands are all files they read, by name: their short options that take
/// a value (as one string) and their long ones.
fn reader_options(program: &str) -> Option<(&'static str, &'static [&'static str])> {
    Some(match program {
        "cat" | "less" | "more" => ("", &[]),
        "head" => ("nc", &["--lines", "--bytes"]),
        "tail" => (
            "ncs",
            &[
                "--lines",
                "--bytes",
                "--pid",
                "--sleep-interval",
                "--max-unchanged-stats",
            ],
        ),
        "nl" => ("bdfhilnsvw", &[]),
        "bat" | "batcat" => (
            "lrHm",
            &[
                "--language",
                "--line-range",
                "--highlight-line",
                "--style",
                "--theme",
                "--paging",
                "--color",
                "--tabs",
                "--wrap",
                "--terminal-width",
                "--map-syntax",
                "--file-name",
            ],
        ),
        _ => return None,
    })
}

/// The files a `sed` prints from: only a quiet (`-n`), not in-place `sed` reads them; its first
/// operand is the script unless `-e`/`-f` gave one.
fn sed_printed_files(args: &[String]) -> Option<Vec<String>> {
    let parsed = parse_args(args, "efl", &["--expression", "--file", "--line-length"]);
    let quiet = parsed.flags.contains(&'n')
        || parsed
            .long
            .iter()
            .any(|l| l == "--quiet" || l == "--silent");
    let in_place =
        parsed.flags.contains(&'i') || parsed.long.iter().any(|l| l.starts_with("--in-place"));
    if !quiet || in_place {
        return None;
    }
    let script_given = parsed
        .values
        .iter()
        .any(|(name, _)| matches!(name.as_str(), "e" | "f" | "--expression" | "--file"));
    let mut operands = parsed.operands;
    if !script_given && !operands.is_empty() {
        operands.remove(0);
    }
    Some(operands)
}

/// Drops `VAR=value` assignments and `env`, `sudo`, `command`, `time`, `nohup` prefixes.
fn skip_prefixes(mut words: &[String]) -> &[String] {
    loop {
        match words.first().map(|word| word.as_str()) {
            Some(word) if is_assignment(word) => words = &words[1..],
            Some("env" | "sudo" | "command" | "time" | "nohup" | "exec") => {
                words = &words[1..];
                while let Some(word) = words.first()
                    && (word.starts_with('-') || is_assignment(word))
                {
                    words = &words[1..];
                }
            }
            _ => return words,
        }
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A literal path: not empty, not `-`, no expansion or glob left in it.
fn is_plain_path(word: &str) -> bool {
    !word.is_empty()
        && word != "-"
        && !word.starts_with('~')
        && !word.contains(['$', '*', '?', '[', '`'])
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A command's arguments split into options and operands.
#[derive(Debug, Default)]
struct Args {
    flags: Vec<char>,
    long: Vec<String>,
    values: Vec<(String, String)>,
    operands: Vec<String>,
}

/// Splits arguments the getopt way: `short_with_value` lists the short options that take a
/// value (`-n 20`, `-n20`), `long_with_value` the long ones (`--lines 20`; `--lines=20` always
/// works). `-20` and `+5` (old `head`/`tail` forms) are options; `--` ends options.
fn parse_args(args: &[String], short_with_value: &str, long_with_value: &[&str]) -> Args {
    let mut parsed = Args::default();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            parsed.operands.extend(words.by_ref().cloned());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => parsed.values.push((format!("--{name}"), value.to_owned())),
                None if long_with_value.contains(&word.as_str()) => {
                    let value = words.next().cloned().unwrap_or_default();
                    parsed.values.push((word.clone(), value));
                }
                None => parsed.long.push(word.clone()),
            }
            continue;
        }
        let numeric = word.len() > 1
            && (word.starts_with('-') || word.starts_with('+'))
            && word[1..].starts_with(|c: char| c.is_ascii_digit());
        if numeric {
            continue;
        }
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) else {
            parsed.operands.push(word.clone());
            continue;
        };
        for (index, flag) in cluster.char_indices() {
            if short_with_value.contains(flag) {
                let rest = &cluster[index + flag.len_utf8()..];
                let value = if rest.is_empty() {
                    words.next().cloned().unwrap_or_default()
                } else {
                    rest.to_owned()
                };
                parsed.values.push((flag.to_string(), value));
                break;
            }
            parsed.flags.push(flag);
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The examples once in `unwrap_shell`'s docs (the module is private).
    #[test]
    fn unwrap_shell_examples() {
        assert_eq!(unwrap_shell("/bin/bash -lc 'cat SKILL.md'"), "cat SKILL.md");
        assert_eq!(unwrap_shell(r#"bash -c "sh -c 'ls -a'""#), "ls -a");
        assert_eq!(unwrap_shell("ls && bash -c x"), "ls && bash -c x");
    }

    #[test]
    fn the_reader_prefilter_finds_what_a_search_for_each_program_finds() {
        for script in [
            "echo hello",
            "ls -la",
            "cat SKILL.md",
            "git status && sed -n 1p f",
            "npx skills find expo",
            "tail",
            "xcdx",
            "",
        ] {
            let searched = READERS.iter().any(|program| script.contains(program));
            assert_eq!(ANY_READER.is_match(script), searched, "{script:?}");
        }
    }

    /// The examples once in `file_reads`' docs (the module is private).
    #[test]
    fn file_reads_examples() {
        let reads = file_reads(
            "cd skills/x && sed -n '1,40p' SKILL.md | head -5",
            Path::new("/w"),
        );
        assert_eq!(reads, [PathBuf::from("/w/skills/x/SKILL.md")]);
        assert_eq!(
            file_reads("tail -n 20 a.log b.log", Path::new("/w")).len(),
            2
        );
        assert!(file_reads("sed -i s/a/b/ f.txt", Path::new("/w")).is_empty());
    }

    fn reads(script: &str) -> Vec<String> {
        file_reads(script, Path::new("/w"))
            .into_iter()
            .map(|path| path.display().to_string())
            .collect()
    }

    #[test]
    fn wrappers_are_unwrapped() {
        assert_eq!(unwrap_shell("/bin/bash -lc 'echo hello'"), "echo hello");
        assert_eq!(
            unwrap_shell("/bin/zsh -lc \"sed -n '1,200p' README.md\""),
            "sed -n '1,200p' README.md"
        );
        assert_eq!(unwrap_shell("bash -l -c 'ls'"), "ls");
        assert_eq!(unwrap_shell("bash -lc 'it'\\''s'"), "it's");
        assert_eq!(unwrap_shell("bash -lc 'a' 'b'"), "a");
        assert_eq!(unwrap_shell("bash -c ''"), "");
        assert_eq!(unwrap_shell("sh -c 'ls' ignored-arg0"), "ls");
        assert_eq!(unwrap_shell("bash script.sh"), "bash script.sh");
        assert_eq!(unwrap_shell("bash -lc"), "bash -lc");
        assert_eq!(unwrap_shell("  npm test  "), "npm test");
        assert_eq!(
            unwrap_shell("/usr/bin/env bash -c 'x'"),
            "/usr/bin/env bash -c 'x'"
        );
    }

    #[test]
    fn reading_commands_report_their_files() {
        assert_eq!(reads("cat SKILL.md"), ["/w/SKILL.md"]);
        assert_eq!(reads("cat -n a.md -- -b.md"), ["/w/a.md", "/w/-b.md"]);
        assert_eq!(reads("head -n 20 a.md"), ["/w/a.md"]);
        assert_eq!(reads("head -20 a.md"), ["/w/a.md"]);
        assert_eq!(reads("tail -n+5 a.md"), ["/w/a.md"]);
        assert_eq!(reads("tail --lines 5 a.md"), ["/w/a.md"]);
        assert_eq!(reads("sed -n '1,200p' /abs/SKILL.md"), ["/abs/SKILL.md"]);
        assert_eq!(reads("sed -ne '1p' -e '2p' a b"), ["/w/a", "/w/b"]);
        assert_eq!(reads("sed -n -e 5p x"), ["/w/x"]);
        assert_eq!(reads("nl -ba file.rs"), ["/w/file.rs"]);
        assert_eq!(reads("bat -r 1:10 src/lib.rs"), ["/w/src/lib.rs"]);
        assert_eq!(reads("FOO=1 sudo -E cat /etc/hosts"), ["/etc/hosts"]);
    }

    #[test]
    fn non_reads_are_ignored() {
        assert!(reads("sed 's/a/b/' a.md").is_empty());
        assert!(reads("sed -n -i 1p a.md").is_empty());
        assert!(reads("cat").is_empty());
        assert!(reads("cat - $HOME/x ~/y *.md /dev/null").is_empty());
        assert!(reads("grep -r foo .").is_empty());
        assert!(reads("echo cat a.md").is_empty());
        assert!(reads("cat <<EOF\nnot a file\nEOF").is_empty());
    }

    #[test]
    fn cd_moves_later_reads() {
        assert_eq!(
            reads("cd skills && cat a/SKILL.md; cd .. ; head -5 README.md"),
            ["/w/skills/a/SKILL.md", "/w/README.md"]
        );
        assert_eq!(reads("cd /tmp && cat x | tail -1"), ["/tmp/x"]);
        assert_eq!(reads("cd $DIR && cat x"), ["/w/x"]);
    }
}
