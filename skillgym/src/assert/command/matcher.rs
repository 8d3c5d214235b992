//! Matching parsed commands against an expected executable, positionals and options.

use std::fmt;

use regex::Regex;

use crate::assert::text::string_or_regex;

use super::exit::ExpectedExit;
use super::parse::{ArgDisplay, ParsedCommand, Reading, parse_command, write_option_groups};

/// Matches one token: exactly (`&str`, `String`) or by regular expression ([`Regex`]).
///
/// Unlike [`TextMatcher`](crate::assert::TextMatcher), a string must equal the whole token.
/// Displays as `"token"` or `/regex/`.
///
/// ```
/// use skillgym::assert::TokenMatcher;
/// use skillgym::Regex;
///
/// assert!(TokenMatcher::from("find").is_match("find"));
/// assert!(!TokenMatcher::from("find").is_match("finder"));
/// let version = TokenMatcher::from(Regex::new(r"^v\d+$").unwrap());
/// assert!(version.is_match("v2"));
/// assert_eq!(version.to_string(), r"/^v\d+$/");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TokenMatcher {
    /// Matches a token equal to this string.
    Exact(String),
    /// Matches a token in which this regular expression finds a match.
    Regex(Regex),
}

impl TokenMatcher {
    /// Whether `token` matches.
    ///
    /// ```
    /// use skillgym::assert::TokenMatcher;
    /// use skillgym::Regex;
    ///
    /// assert!(TokenMatcher::from("expo").is_match("expo"));
    /// assert!(!TokenMatcher::from("expo").is_match("expo-router"));
    /// assert!(TokenMatcher::from(Regex::new("^expo").unwrap()).is_match("expo-router"));
    /// ```
    pub fn is_match(&self, token: &str) -> bool {
        match self {
            TokenMatcher::Exact(expected) => expected == token,
            TokenMatcher::Regex(regex) => regex.is_match(token),
        }
    }
}

string_or_regex!(TokenMatcher::Exact);

/// Matches shell commands by executable, positionals and options (see [`parse_command`]).
///
/// By default the expected positionals must appear in order among the observed ones (other
/// positionals may come between), and every expected option must be present (other options
/// are allowed). [`strict`](Self::strict) forbids anything beyond the expectations. A command
/// line matches if any of its simple commands does, under any reading of its ambiguous
/// options (`grep -v foo` is both `-v` with value `foo` and flag `-v` then positional `foo`).
///
/// [`succeeded`](Self::succeeded), [`failed`](Self::failed) and
/// [`exit_code`](Self::exit_code) also expect the command line's exit code, as the agent
/// reported it; an exit code the agent did not report never matches one (the book's agents
/// table says which agents report them).
///
/// Displays as `command matcher (executable="pnpm", positionals=["build"], options={--tag:
/// [<flag>], -p: ["80"]}, end_of_options=true, strict, succeeded)`, omitting what is not set.
///
/// ```
/// use skillgym::assert::CommandMatcher;
///
/// let find = CommandMatcher::new("npx").args(["skills", "find"]);
/// assert!(find.matches("npx skills find expo"));
/// assert!(find.matches("/bin/bash -lc 'cd app && npx -y skills find expo'"));
/// assert!(!find.matches("npx skills add expo"));
/// assert_eq!(find.to_string(), r#"command matcher (executable="npx", positionals=["skills", "find"])"#);
/// ```
#[derive(Debug, Clone)]
pub struct CommandMatcher {
    executable: Option<TokenMatcher>,
    positionals: Vec<TokenMatcher>,
    options: Vec<ExpectedOption>,
    end_of_options: Option<bool>,
    strict: bool,
    exit: Option<ExpectedExit>,
}

#[derive(Debug, Clone)]
struct ExpectedOption {
    name: String,
    /// `None` for a flag.
    value: Option<TokenMatcher>,
}

impl CommandMatcher {
    /// Matches commands whose executable matches `executable`.
    ///
    /// A string without `/` also matches any path with that basename (`npx` matches
    /// `/usr/bin/npx`); a string with `/` must equal the executable; a [`Regex`] is matched
    /// against the executable as written.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    /// use skillgym::Regex;
    ///
    /// assert!(CommandMatcher::new("npx").matches("/usr/local/bin/npx skills"));
    /// assert!(!CommandMatcher::new("/usr/bin/npx").matches("npx skills"));
    /// assert!(CommandMatcher::new(Regex::new("^p?npm$").unwrap()).matches("pnpm install"));
    /// ```
    #[must_use]
    pub fn new(executable: impl Into<TokenMatcher>) -> Self {
        Self::any().executable(executable)
    }

    /// Matches any command (no constraint on the executable).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// assert!(CommandMatcher::any().arg("SKILL.md").matches("cat skills/expo/SKILL.md SKILL.md"));
    /// assert_eq!(CommandMatcher::any().to_string(), "command matcher (any command)");
    /// ```
    #[must_use]
    pub fn any() -> Self {
        CommandMatcher {
            executable: None,
            positionals: Vec::new(),
            options: Vec::new(),
            end_of_options: None,
            strict: false,
            exit: None,
        }
    }

    /// Sets the executable (replacing any earlier one); see [`new`](Self::new).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// assert!(CommandMatcher::any().executable("git").matches("git status"));
    /// ```
    #[must_use]
    pub fn executable(mut self, executable: impl Into<TokenMatcher>) -> Self {
        self.executable = Some(executable.into());
        self
    }

    /// Expects a positional argument, after the ones expected so far.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("git").arg("commit");
    /// assert!(matcher.matches("git -C app commit -m wip"));
    /// assert!(!matcher.matches("git status"));
    /// ```
    #[must_use]
    pub fn arg(mut self, arg: impl Into<TokenMatcher>) -> Self {
        self.positionals.push(arg.into());
        self
    }

    /// Expects several positional arguments, in order.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("npx").args(["skills", "find"]);
    /// assert!(matcher.matches("npx skills find expo"));
    /// assert!(!matcher.matches("npx find skills"));
    /// ```
    #[must_use]
    pub fn args(mut self, args: impl IntoIterator<Item = impl Into<TokenMatcher>>) -> Self {
        self.positionals.extend(args.into_iter().map(Into::into));
        self
    }

    /// Expects an option with a value. Names may omit dashes: `"tag"` means `--tag`, `"p"`
    /// means `-p`; `"--tag"`, `"-p"` and single-dash long names like `"-name"` are kept.
    /// Repeating an option expects that many distinct values.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("docker").option("p", "80").option("name", "web");
    /// assert!(matcher.matches("docker run --name=web -p 80 nginx"));
    /// assert!(matcher.matches("docker run -p80 --name web nginx"));
    /// assert!(!matcher.matches("docker run -p 8080 --name web nginx"));
    /// ```
    #[must_use]
    pub fn option(mut self, name: impl AsRef<str>, value: impl Into<TokenMatcher>) -> Self {
        self.options.push(ExpectedOption {
            name: option_name(name.as_ref()),
            value: Some(value.into()),
        });
        self
    }

    /// Expects a bare flag (named as in [`option`](Self::option)).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("ls").flag("l").flag("a");
    /// assert!(matcher.matches("ls -la"));
    /// assert!(!matcher.matches("ls -l"));
    /// ```
    #[must_use]
    pub fn flag(mut self, name: impl AsRef<str>) -> Self {
        self.options.push(ExpectedOption {
            name: option_name(name.as_ref()),
            value: None,
        });
        self
    }

    /// Expects a `--` ending the options (by default it is not compared).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("git").args(["checkout", "README.md"]).end_of_options();
    /// assert!(matcher.matches("git checkout -- README.md"));
    /// assert!(!matcher.matches("git checkout README.md"));
    /// ```
    #[must_use]
    pub fn end_of_options(mut self) -> Self {
        self.end_of_options = Some(true);
        self
    }

    /// Forbids anything not expected: positionals must be exactly the expected ones, and
    /// options exactly the expected names with exactly the expected number of values each.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let matcher = CommandMatcher::new("npm").arg("test").strict();
    /// assert!(matcher.matches("npm test"));
    /// assert!(!matcher.matches("npm test --watch"));
    /// assert!(!matcher.matches("npm test unit"));
    /// ```
    #[must_use]
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// The same as [`strict`](Self::strict).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// assert!(CommandMatcher::new("pwd").exact().matches("pwd"));
    /// assert!(!CommandMatcher::new("pwd").exact().matches("pwd -P"));
    /// ```
    #[must_use]
    pub fn exact(self) -> Self {
        self.strict()
    }

    /// Expects the command line to have exited with 0. An exit code the agent did not report
    /// does not count as success: the command does not match (its failure message says the
    /// code is unknown). The exit code is the whole line's: in `cargo fmt || true` it is
    /// `true`'s.
    ///
    /// ```
    /// # use skillgym::prelude::*;
    /// let fmt = CommandMatcher::new("cargo").arg("fmt").succeeded();
    /// assert!(fmt.matches_with_exit_code("cargo fmt", Some(0)));
    /// assert!(!fmt.matches_with_exit_code("cargo fmt", Some(1)));
    /// assert!(!fmt.matches_with_exit_code("cargo fmt", None));
    ///
    /// let report = SessionReport::from_events([
    ///     SessionEvent::command("cargo fmt").with_exit_code(0),
    ///     SessionEvent::command("git commit -m wip").with_exit_code(0),
    /// ]);
    /// report.expect().commands().before(fmt, CommandMatcher::new("git").arg("commit"));
    /// ```
    #[must_use]
    pub fn succeeded(mut self) -> Self {
        self.exit = Some(ExpectedExit::Succeeded);
        self
    }

    /// Expects the command line to have exited with a code other than 0. An exit code the
    /// agent did not report does not count as a failure either.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let failing_tests = CommandMatcher::new("cargo").arg("test").failed();
    /// assert!(failing_tests.matches_with_exit_code("cargo test", Some(101)));
    /// assert!(!failing_tests.matches_with_exit_code("cargo test", Some(0)));
    /// assert!(!failing_tests.matches_with_exit_code("cargo test", None));
    /// ```
    #[must_use]
    pub fn failed(mut self) -> Self {
        self.exit = Some(ExpectedExit::Failed);
        self
    }

    /// Expects the command line to have exited with `code` (an unreported code never
    /// matches). Replaces [`succeeded`](Self::succeeded) or [`failed`](Self::failed).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let no_match = CommandMatcher::new("grep").exit_code(1);
    /// assert!(no_match.matches_with_exit_code("grep -q TODO src/lib.rs", Some(1)));
    /// assert!(!no_match.matches_with_exit_code("grep -q TODO src/lib.rs", Some(2)));
    /// assert_eq!(no_match.to_string(), r#"command matcher (executable="grep", exit_code=1)"#);
    /// ```
    #[must_use]
    pub fn exit_code(mut self, code: i32) -> Self {
        self.exit = Some(ExpectedExit::Code(code));
        self
    }

    /// Whether this matcher expects an exit code ([`succeeded`](Self::succeeded),
    /// [`failed`](Self::failed) or [`exit_code`](Self::exit_code)).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// assert!(CommandMatcher::new("make").succeeded().expects_exit_code());
    /// assert!(!CommandMatcher::new("make").expects_exit_code());
    /// ```
    pub fn expects_exit_code(&self) -> bool {
        self.exit.is_some()
    }

    /// Whether any simple command of the command line `command` matches. Its exit code is
    /// unknown here, so a matcher that expects one never matches; use
    /// [`matches_with_exit_code`](Self::matches_with_exit_code).
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let test = CommandMatcher::new("npm").arg("test");
    /// assert!(test.matches("cd app && npm test"));
    /// assert!(test.matches("bash -lc 'npm install; npm test 2>&1 | tail'"));
    /// assert!(!test.matches("echo 'npm test'"));
    /// assert!(!test.succeeded().matches("npm test"));
    /// ```
    pub fn matches(&self, command: &str) -> bool {
        self.matches_with_exit_code(command, None)
    }

    /// Whether any simple command of the command line `command`, which exited with
    /// `exit_code` (`None`: not reported), matches.
    ///
    /// ```
    /// use skillgym::assert::CommandMatcher;
    ///
    /// let build = CommandMatcher::new("cargo").arg("build");
    /// assert!(build.matches_with_exit_code("cargo build && cargo test", Some(101)));
    /// assert!(!build.succeeded().matches_with_exit_code("cargo build && cargo test", Some(101)));
    /// ```
    pub fn matches_with_exit_code(&self, command: &str, exit_code: Option<i32>) -> bool {
        self.exit.is_none_or(|exit| exit.matches(exit_code))
            && parse_command(command)
                .iter()
                .any(|parsed| self.matches_words(parsed))
    }

    /// Whether one parsed simple command matches. A parsed command has no exit code, so a
    /// matcher that expects one never matches.
    ///
    /// ```
    /// use skillgym::assert::{parse_command, CommandMatcher};
    ///
    /// let parsed = parse_command("grep -v foo notes.txt");
    /// assert!(CommandMatcher::new("grep").option("v", "foo").matches_parsed(&parsed[0]));
    /// assert!(CommandMatcher::new("grep").flag("v").args(["foo", "notes.txt"]).matches_parsed(&parsed[0]));
    /// ```
    pub fn matches_parsed(&self, parsed: &ParsedCommand) -> bool {
        self.exit.is_none() && self.matches_words(parsed)
    }

    /// Whether `parsed` matches the executable, positionals and options (not the exit code).
    fn matches_words(&self, parsed: &ParsedCommand) -> bool {
        if let Some(executable) = &self.executable
            && !executable_matches(executable, parsed.executable())
        {
            return false;
        }
        if self
            .end_of_options
            .is_some_and(|expected| expected != parsed.end_of_options())
        {
            return false;
        }
        let groups = self.option_groups();
        parsed.any_reading(
            |name| groups.iter().any(|(expected, _)| *expected == name),
            |reading| {
                self.positionals_match(&reading.positionals) && self.options_match(reading, &groups)
            },
        )
    }

    /// Expected options grouped by name, in first-seen order.
    fn option_groups(&self) -> Vec<(&str, Vec<Option<&TokenMatcher>>)> {
        let mut groups: Vec<(&str, Vec<Option<&TokenMatcher>>)> = Vec::new();
        for option in &self.options {
            let value = option.value.as_ref();
            match groups.iter_mut().find(|(name, _)| *name == option.name) {
                Some((_, values)) => values.push(value),
                None => groups.push((&option.name, vec![value])),
            }
        }
        groups
    }

    fn positionals_match(&self, observed: &[&str]) -> bool {
        if self.strict {
            return observed.len() == self.positionals.len()
                && self
                    .positionals
                    .iter()
                    .zip(observed)
                    .all(|(expected, observed)| expected.is_match(observed));
        }
        // Greedy earliest match is optimal for an ordered subsequence.
        let mut observed = observed.iter();
        self.positionals
            .iter()
            .all(|expected| observed.any(|observed| expected.is_match(observed)))
    }

    fn options_match(
        &self,
        reading: &Reading<'_>,
        groups: &[(&str, Vec<Option<&TokenMatcher>>)],
    ) -> bool {
        if self.strict
            && !reading
                .options
                .iter()
                .all(|(name, _)| groups.iter().any(|(expected, _)| expected == name))
        {
            return false;
        }
        groups.iter().all(|(name, expected)| {
            let observed: Vec<Option<&str>> = reading
                .options
                .iter()
                .filter(|(observed, _)| observed == name)
                .map(|(_, value)| *value)
                .collect();
            (!self.strict || observed.len() == expected.len()) && assign(expected, &observed)
        })
    }
}

/// `"tag"` → `--tag`, `"p"` → `-p`; names starting with `-` are kept.
fn option_name(name: &str) -> String {
    if name.starts_with('-') {
        name.to_owned()
    } else if name.chars().count() == 1 {
        format!("-{name}")
    } else {
        format!("--{name}")
    }
}

fn executable_matches(expected: &TokenMatcher, observed: &str) -> bool {
    match expected {
        TokenMatcher::Exact(name) if !name.contains('/') => {
            name == observed || observed.rsplit('/').next() == Some(name.as_str())
        }
        matcher => matcher.is_match(observed),
    }
}

/// Whether each expected value (`None` = flag) can take a distinct observed value: a maximum
/// bipartite matching by augmenting paths.
fn assign(expected: &[Option<&TokenMatcher>], observed: &[Option<&str>]) -> bool {
    if expected.len() > observed.len() {
        return false;
    }
    let fits: Vec<Vec<bool>> = expected
        .iter()
        .map(|expected| {
            observed
                .iter()
                .map(|observed| match (expected, observed) {
                    (None, None) => true,
                    (Some(matcher), Some(value)) => matcher.is_match(value),
                    _ => false,
                })
                .collect()
        })
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; observed.len()];
    (0..expected.len()).all(|left| {
        let mut visited = vec![false; observed.len()];
        augment(left, &fits, &mut owner, &mut visited)
    })
}

/// Finds an observed value for `left`, moving earlier assignments along if needed.
fn augment(
    left: usize,
    fits: &[Vec<bool>],
    owner: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    let Some(row) = fits.get(left) else {
        return false;
    };
    for (right, &fit) in row.iter().enumerate() {
        if !fit || visited.get(right).copied().unwrap_or(true) {
            continue;
        }
        if let Some(seen) = visited.get_mut(right) {
            *seen = true;
        }
        let current = owner.get(right).copied().flatten();
        if current.is_none_or(|other| augment(other, fits, owner, visited)) {
            if let Some(slot) = owner.get_mut(right) {
                *slot = Some(left);
            }
            return true;
        }
    }
    false
}

impl fmt::Display for CommandMatcher {
    /// `command matcher (executable=…, positionals=[…], options={…}, end_of_options=true,
    /// strict, succeeded)`, omitting what is not set; `command matcher (any command)` if nothing is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("command matcher (")?;
        let mut first = true;
        let mut part = |f: &mut fmt::Formatter<'_>| {
            let separator = if first { "" } else { ", " };
            first = false;
            f.write_str(separator)
        };
        if let Some(executable) = &self.executable {
            part(f)?;
            write!(f, "executable={executable}")?;
        }
        if !self.positionals.is_empty() {
            part(f)?;
            f.write_str("positionals=[")?;
            for (index, positional) in self.positionals.iter().enumerate() {
                let separator = if index == 0 { "" } else { ", " };
                write!(f, "{separator}{positional}")?;
            }
            f.write_str("]")?;
        }
        if !self.options.is_empty() {
            part(f)?;
            f.write_str("options=")?;
            let flag = ArgDisplay(None);
            write_option_groups(
                f,
                self.options.iter().map(|option| {
                    let value: &dyn fmt::Display = match &option.value {
                        Some(matcher) => matcher,
                        None => &flag,
                    };
                    (option.name.as_str(), value)
                }),
            )?;
        }
        if let Some(end_of_options) = self.end_of_options {
            part(f)?;
            write!(f, "end_of_options={end_of_options}")?;
        }
        if self.strict {
            part(f)?;
            f.write_str("strict")?;
        }
        if let Some(exit) = self.exit {
            part(f)?;
            write!(f, "{exit}")?;
        }
        if first {
            f.write_str("any command")?;
        }
        f.write_str(")")
    }
}
