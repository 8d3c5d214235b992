//! Parsing a command line into simple commands: executable, positionals and options.

use std::collections::HashMap;
use std::fmt;

use skillgym_grammar::shell::{Token, lex, tokenize};

/// Shells whose `-c` script is parsed instead of the shell itself.
const SHELLS: [&str; 5] = ["bash", "sh", "zsh", "fish", "dash"];

/// Leading reserved words that introduce (or close) a construct rather than name a command.
const RESERVED: [&str; 13] = [
    "!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "esac",
];

/// How deep `bash -c '… sh -c "…"'` wrappers are unwrapped (deeper ones stay as commands),
/// and how many `env` prefixes are skipped.
const MAX_WRAPPER_DEPTH: usize = 16;

/// One option of a [`ParsedCommand`], in the order it appeared.
///
/// ```
/// use skillgym::assert::{parse_command, CommandOption, OptionArg};
///
/// let parsed = parse_command("ls -l --color=auto");
/// assert_eq!(
///     parsed[0].options(),
///     [
///         CommandOption { name: "-l".into(), arg: OptionArg::Flag },
///         CommandOption {
///             name: "--color".into(),
///             arg: OptionArg::Value { value: "auto".into(), separate: false },
///         },
///     ]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOption {
    /// The name with its dashes: `"--tag"`, `"-p"`.
    pub name: String,
    /// A bare flag, or the option's value.
    pub arg: OptionArg,
}

/// What follows an option's name.
///
/// ```
/// use skillgym::assert::{parse_command, OptionArg};
///
/// let parsed = parse_command("docker run -p80 --name web");
/// let args: Vec<&OptionArg> = parsed[0].options().iter().map(|option| &option.arg).collect();
/// assert_eq!(
///     args,
///     [
///         &OptionArg::Value { value: "80".into(), separate: false },
///         &OptionArg::Value { value: "web".into(), separate: true },
///     ]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionArg {
    /// A bare flag: `--yes`, or `-a` out of `-abc`.
    Flag,
    /// A value: `--tag=v1`, `-p80`, or the next word in `--tag v1` / `-p 80`.
    Value {
        /// The value.
        value: String,
        /// The value was the next word (`--tag v1`), so it may instead be a positional
        /// after a flag; matching tries both readings.
        separate: bool,
    },
}

/// One simple command out of a command line, as parsed by [`parse_command`].
///
/// Word 0 (after `VAR=value` assignments, `env` and its arguments, and leading reserved
/// words such as `if`, `do`, `!`) is the executable. Of the later words: `--` ends options;
/// `--name=value` and `--name value` are options with a value (the latter only when the next
/// word does not start with `-`); a bare `--name` is a flag; `-abc` is the flags `-a`, `-b`,
/// `-c`; `-p80` is `-p` with value `80`; `-p value` / `-p` are like the long forms; a word of
/// `-` and a digit or other non-letter (`-20`) is a flag; `-` and everything else are
/// positionals.
///
/// The accessors give this default reading. [`CommandMatcher`](super::CommandMatcher) also
/// accepts the alternative readings of ambiguous words: a separate value (`-v foo`) may be a
/// flag followed by a positional, and `-name` may be one single-dash option (`find -name x`).
///
/// It displays as `executable="npx", positionals=["skills"], options={--yes: [<flag>]}`,
/// prefixed with `from shell wrapper: ` when it came out of a `bash -c` script.
///
/// ```
/// use skillgym::assert::parse_command;
///
/// let parsed = parse_command("/bin/bash -lc 'npx skills find expo --yes -p80'");
/// assert_eq!(
///     parsed[0].to_string(),
///     r#"from shell wrapper: executable="npx", positionals=["skills", "find", "expo"], options={--yes: [<flag>], -p: ["80"]}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedCommand {
    executable: String,
    positionals: Vec<String>,
    options: Vec<CommandOption>,
    end_of_options: bool,
    from_shell_wrapper: bool,
    items: Vec<Item>,
}

impl ParsedCommand {
    /// The executable as written: `npx`, `/usr/bin/git`, `./run.sh`.
    ///
    /// ```
    /// use skillgym::assert::parse_command;
    ///
    /// assert_eq!(parse_command("FOO=1 env -i /usr/bin/git status")[0].executable(), "/usr/bin/git");
    /// ```
    pub fn executable(&self) -> &str {
        &self.executable
    }

    /// The positional arguments, in order.
    ///
    /// ```
    /// use skillgym::assert::parse_command;
    ///
    /// assert_eq!(parse_command("cat a.txt - b.txt")[0].positionals(), ["a.txt", "-", "b.txt"]);
    /// ```
    pub fn positionals(&self) -> &[String] {
        &self.positionals
    }

    /// The options, in order.
    ///
    /// ```
    /// use skillgym::assert::parse_command;
    ///
    /// let parsed = parse_command("tar -xzf a.tgz");
    /// let names: Vec<&str> = parsed[0].options().iter().map(|option| option.name.as_str()).collect();
    /// assert_eq!(names, ["-x", "-z", "-f"]);
    /// ```
    pub fn options(&self) -> &[CommandOption] {
        &self.options
    }

    /// Whether a `--` ended the options.
    ///
    /// ```
    /// use skillgym::assert::parse_command;
    ///
    /// let parsed = &parse_command("git checkout -- -file")[0];
    /// assert!(parsed.end_of_options());
    /// assert_eq!(parsed.positionals(), ["checkout", "-file"]);
    /// ```
    pub fn end_of_options(&self) -> bool {
        self.end_of_options
    }

    /// Whether the command came out of a shell wrapper's script (`bash -lc '…'`).
    ///
    /// ```
    /// use skillgym::assert::parse_command;
    ///
    /// assert!(parse_command("bash -lc 'npm test'")[0].from_shell_wrapper());
    /// assert!(!parse_command("npm test")[0].from_shell_wrapper());
    /// ```
    pub fn from_shell_wrapper(&self) -> bool {
        self.from_shell_wrapper
    }

    /// Calls `visit` on readings of the options until it returns `true`; returns whether it
    /// did. Only ambiguous words with a name for which `is_relevant` holds are enumerated
    /// (at most [`MAX_READINGS`] readings, else only their default); the others take the
    /// reading with the most positionals, which is never worse for a matcher that does not
    /// name them.
    pub(super) fn any_reading(
        &self,
        is_relevant: impl Fn(&str) -> bool,
        mut visit: impl FnMut(&Reading<'_>) -> bool,
    ) -> bool {
        let mut choices: Vec<usize> = self.items.iter().map(Item::most_positionals).collect();
        let mut varying: Vec<usize> = Vec::new();
        let mut readings: usize = 1;
        for (index, item) in self.items.iter().enumerate() {
            if item.readings() > 1 && item.names().any(&is_relevant) {
                varying.push(index);
                readings = readings.saturating_mul(item.readings());
            }
        }
        for &index in &varying {
            if let Some(choice) = choices.get_mut(index) {
                *choice = 0;
            }
        }
        if readings > MAX_READINGS {
            varying.clear();
        }
        loop {
            let mut reading = Reading::default();
            for (item, &choice) in self.items.iter().zip(&choices) {
                item.read(choice, &mut reading);
            }
            if visit(&reading) {
                return true;
            }
            // Next combination of the varying items' choices (mixed radix).
            let mut carried = true;
            for &index in &varying {
                let (Some(item), Some(choice)) = (self.items.get(index), choices.get_mut(index))
                else {
                    continue;
                };
                *choice += 1;
                if *choice < item.readings() {
                    carried = false;
                    break;
                }
                *choice = 0;
            }
            if carried {
                return false;
            }
        }
    }
}

/// The most readings of ambiguous options tried for one command (2^10).
const MAX_READINGS: usize = 1 << 10;

/// One reading of a command's words: positionals and `(name, value)` options, `None` for a
/// flag.
#[derive(Debug, Default)]
pub(super) struct Reading<'a> {
    pub(super) positionals: Vec<&'a str>,
    pub(super) options: Vec<(&'a str, Option<&'a str>)>,
}

/// A parsed word or word pair, possibly with several readings (reading 0 is the default).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Positional(String),
    /// An option with a single reading.
    Option(CommandOption),
    /// `-p value` / `--name value`: 0 = option with the value; 1 = flag, then a positional.
    Separate {
        name: String,
        value: String,
    },
    /// `-abc [value]`: 0 = flags `-a -b -c`; 1 = flag `-abc`; 2 = option `-abc` with `value`.
    /// In readings 0 and 1 `value` (if any) is a positional.
    Cluster {
        word: String,
        letters: Vec<String>,
        value: Option<String>,
    },
}

impl Item {
    fn readings(&self) -> usize {
        match self {
            Item::Positional(_) | Item::Option(_) => 1,
            Item::Separate { .. } => 2,
            Item::Cluster { value, .. } => 2 + usize::from(value.is_some()),
        }
    }

    /// The reading with the most positionals (a superset of every other reading's).
    fn most_positionals(&self) -> usize {
        match self {
            Item::Separate { .. } => 1,
            _ => 0,
        }
    }

    /// Option names appearing in any reading.
    fn names(&self) -> impl Iterator<Item = &str> {
        let (first, rest): (Option<&str>, &[String]) = match self {
            Item::Positional(_) => (None, &[]),
            Item::Option(option) => (Some(option.name.as_str()), &[]),
            Item::Separate { name, .. } => (Some(name.as_str()), &[]),
            Item::Cluster { word, letters, .. } => (Some(word.as_str()), letters.as_slice()),
        };
        first.into_iter().chain(rest.iter().map(String::as_str))
    }

    fn read<'a>(&'a self, choice: usize, reading: &mut Reading<'a>) {
        match self {
            Item::Positional(word) => reading.positionals.push(word),
            Item::Option(CommandOption { name, arg }) => {
                let value = match arg {
                    OptionArg::Flag => None,
                    OptionArg::Value { value, .. } => Some(value.as_str()),
                };
                reading.options.push((name.as_str(), value));
            }
            Item::Separate { name, value } if choice == 0 => {
                reading.options.push((name.as_str(), Some(value.as_str())));
            }
            Item::Separate { name, value } => {
                reading.options.push((name.as_str(), None));
                reading.positionals.push(value.as_str());
            }
            Item::Cluster { word, value, .. } if choice == 2 => {
                reading.options.push((word.as_str(), value.as_deref()));
            }
            Item::Cluster {
                word,
                letters,
                value,
            } => {
                if choice == 0 {
                    reading
                        .options
                        .extend(letters.iter().map(|letter| (letter.as_str(), None)));
                } else {
                    reading.options.push((word.as_str(), None));
                }
                reading.positionals.extend(value.as_deref());
            }
        }
    }
}

/// Splits a command line into simple commands and parses each.
///
/// Separators are `&&`, `||`, `;`, `|`, `&`, newlines and subshell parentheses; redirections
/// are dropped. Leading `VAR=value` assignments and `env` (with its options and assignments)
/// are skipped. A `bash`, `sh`, `zsh`, `fish` or `dash` run with a `-c`-style flag (`-c`,
/// `-lc`, `-ic`, …) is replaced by the commands of its script, recursively, marked
/// [`from_shell_wrapper`](ParsedCommand::from_shell_wrapper). Never panics.
///
/// ```
/// use skillgym::assert::parse_command;
///
/// let parsed = parse_command("/bin/bash -lc 'cd app && CI=1 npm test -- --watch=false'");
/// assert_eq!(parsed.len(), 2);
/// assert_eq!(parsed[0].executable(), "cd");
/// assert_eq!(parsed[1].executable(), "npm");
/// assert_eq!(parsed[1].positionals(), ["test", "--watch=false"]);
/// assert!(parsed[1].end_of_options() && parsed[1].from_shell_wrapper());
/// ```
pub fn parse_command(command: &str) -> Vec<ParsedCommand> {
    let mut parsed = Vec::new();
    parse_into(command, 0, &mut parsed);
    parsed
}

fn parse_into(command: &str, depth: usize, parsed: &mut Vec<ParsedCommand>) {
    let mut words = Vec::new();
    for token in lex(command) {
        match token {
            Token::Word(word) => words.push(word),
            Token::Separator(_) => parse_segment(std::mem::take(&mut words), depth, parsed),
        }
    }
    parse_segment(words, depth, parsed);
}

fn parse_segment(words: Vec<String>, depth: usize, parsed: &mut Vec<ParsedCommand>) {
    let words = command_words(words);
    let Some(executable) = words.first() else {
        return;
    };
    if depth < MAX_WRAPPER_DEPTH
        && SHELLS.contains(&basename(executable))
        && let Some(script) = shell_script(&words)
    {
        let start = parsed.len();
        parse_into(script, depth + 1, parsed);
        for command in parsed.iter_mut().skip(start) {
            command.from_shell_wrapper = true;
        }
        return;
    }
    parsed.push(parse_words(words));
}

/// The part of a simple command's words from the executable on.
fn command_words(mut words: Vec<String>) -> Vec<String> {
    let mut start = 0;
    // Bounded so that `env -S env -S …` stays linear; leftovers are taken as the command.
    for _ in 0..MAX_WRAPPER_DEPTH {
        start += words
            .iter()
            .skip(start)
            .take_while(|word| RESERVED.contains(&word.as_str()) || is_assignment(word))
            .count();
        if words.get(start).is_none_or(|word| basename(word) != "env") {
            break;
        }
        let args = words.get(start + 1..).unwrap_or_default();
        let (split, used) = env_arguments(args);
        let runs_command =
            !split.is_empty() || args.iter().skip(used).any(|word| !is_assignment(word));
        if !runs_command {
            break; // `env` alone prints the environment: it is the command.
        }
        let rest = start + 1 + used;
        if split.is_empty() {
            start = rest;
        } else {
            let tail = words.split_off(rest.min(words.len()));
            words = split;
            words.extend(tail);
            start = 0;
        }
    }
    words.drain(..start.min(words.len()));
    words
}

/// `NAME=value` or `NAME+=value`.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads `env`'s options and assignments from the words after `env`: the words of a
/// `-S`/`--split-string` argument (if any), and how many words were used.
fn env_arguments(args: &[String]) -> (Vec<String>, usize) {
    let mut index = 0;
    while let Some(word) = args.get(index) {
        index += 1;
        if word == "--" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Some(script) = long.strip_prefix("split-string=") {
                return (tokenize(script), index);
            }
            if matches!(long, "unset" | "chdir" | "split-string") {
                let value = args.get(index).map_or("", String::as_str);
                index += 1;
                if long == "split-string" {
                    return (tokenize(value), index);
                }
            }
        } else if let Some(short) = word.strip_prefix('-') {
            // `-i`, `-0`, `-iu NAME`, `-uNAME`, `-S 'cmd args'`, or `-` (same as `-i`).
            if let Some((at, letter)) = short.char_indices().find(|(_, c)| "uCPS".contains(*c)) {
                let attached = short.get(at + letter.len_utf8()..).unwrap_or_default();
                let value = if attached.is_empty() {
                    index += 1;
                    args.get(index - 1).map_or("", String::as_str)
                } else {
                    attached
                };
                if letter == 'S' {
                    return (tokenize(value), index);
                }
            }
        } else if !is_assignment(word) {
            index -= 1;
            break;
        }
    }
    (Vec::new(), index.min(args.len()))
}

/// The script of `bash -c script`, `sh -lc script`, `fish --command=script`, …; `None` when
/// the shell runs a file or reads standard input.
fn shell_script(words: &[String]) -> Option<&str> {
    let mut command_flag = false;
    let mut index = 1;
    while let Some(word) = words.get(index) {
        index += 1;
        if word == "--" || word == "-" {
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            if long == "command" {
                command_flag = true;
            } else if let Some(script) = long.strip_prefix("command=") {
                return Some(script);
            } else if matches!(long, "rcfile" | "init-file") {
                index += 1;
            }
        } else if let Some(short) = word.strip_prefix(['-', '+']) {
            if word.starts_with('-') && short.contains('c') {
                command_flag = true;
            }
            if short.contains(['o', 'O']) {
                index += 1; // the option name of `-o pipefail` / `-O extglob`
            }
        } else {
            index -= 1;
            break;
        }
    }
    if command_flag {
        words.get(index).map(String::as_str)
    } else {
        None
    }
}

/// The part after the last `/`.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether `word` can be the separate value of the option before it.
fn is_value(word: Option<&String>) -> bool {
    word.is_some_and(|word| !word.starts_with('-'))
}

/// Parses the words of a simple command, word 0 being the executable.
fn parse_words(words: Vec<String>) -> ParsedCommand {
    let mut words = words.into_iter().peekable();
    let executable = words.next().unwrap_or_default();
    let mut items = Vec::new();
    let mut end_of_options = false;
    while let Some(word) = words.next() {
        if end_of_options {
            items.push(Item::Positional(word));
        } else if word == "--" {
            end_of_options = true;
        } else if let Some(long) = word.strip_prefix("--") {
            if let Some((name, value)) = long.split_once('=') {
                items.push(option(format!("--{name}"), Some(value.to_owned())));
            } else {
                items.push(separate_or_flag(word, &mut words));
            }
        } else if let Some(short) = word.strip_prefix('-').filter(|short| !short.is_empty()) {
            let mut chars = short.chars();
            let first = chars.next().unwrap_or_default();
            let rest = chars.as_str();
            if rest.is_empty() {
                items.push(separate_or_flag(word, &mut words));
            } else if short.chars().all(|c| c.is_ascii_alphabetic()) {
                let letters = short.chars().map(|c| format!("-{c}")).collect();
                let value = if is_value(words.peek()) {
                    words.next()
                } else {
                    None
                };
                items.push(Item::Cluster {
                    word,
                    letters,
                    value,
                });
            } else if first.is_ascii_alphabetic() {
                items.push(option(format!("-{first}"), Some(rest.to_owned())));
            } else {
                items.push(option(word, None));
            }
        } else {
            items.push(Item::Positional(word));
        }
    }
    let mut positionals = Vec::new();
    let mut options = Vec::new();
    for item in &items {
        default_reading(item, &mut positionals, &mut options);
    }
    ParsedCommand {
        executable,
        positionals,
        options,
        end_of_options,
        from_shell_wrapper: false,
        items,
    }
}

fn option(name: String, value: Option<String>) -> Item {
    let arg = match value {
        Some(value) => OptionArg::Value {
            value,
            separate: false,
        },
        None => OptionArg::Flag,
    };
    Item::Option(CommandOption { name, arg })
}

/// `--name value` / `-p value` when a value follows, else the flag `name`.
fn separate_or_flag(
    name: String,
    words: &mut std::iter::Peekable<impl Iterator<Item = String>>,
) -> Item {
    match words.next_if(|next| is_value(Some(next))) {
        Some(value) => Item::Separate { name, value },
        None => option(name, None),
    }
}

/// Appends an item's default reading (reading 0), owned.
fn default_reading(item: &Item, positionals: &mut Vec<String>, options: &mut Vec<CommandOption>) {
    match item {
        Item::Positional(word) => positionals.push(word.clone()),
        Item::Option(option) => options.push(option.clone()),
        Item::Separate { name, value } => options.push(CommandOption {
            name: name.clone(),
            arg: OptionArg::Value {
                value: value.clone(),
                separate: true,
            },
        }),
        Item::Cluster { letters, value, .. } => {
            options.extend(letters.iter().map(|letter| CommandOption {
                name: letter.clone(),
                arg: OptionArg::Flag,
            }));
            positionals.extend(value.iter().cloned());
        }
    }
}

/// Writes `{name: [value, …], …}`, options grouped by name in first-seen order.
pub(super) fn write_option_groups<'a>(
    f: &mut fmt::Formatter<'_>,
    options: impl IntoIterator<Item = (&'a str, &'a dyn fmt::Display)>,
) -> fmt::Result {
    let mut groups: Vec<(&str, Vec<&dyn fmt::Display>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (name, value) in options {
        let slot = *index.entry(name).or_insert_with(|| {
            groups.push((name, Vec::new()));
            groups.len() - 1
        });
        if let Some((_, values)) = groups.get_mut(slot) {
            values.push(value);
        }
    }
    f.write_str("{")?;
    for (group, (name, values)) in groups.iter().enumerate() {
        if group > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{name}: [")?;
        for (position, value) in values.iter().enumerate() {
            if position > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{value}")?;
        }
        f.write_str("]")?;
    }
    f.write_str("}")
}

/// Displays an option value as `"value"` and a flag as `<flag>`.
pub(super) struct ArgDisplay<'a>(pub(super) Option<&'a str>);

impl fmt::Display for ArgDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(value) => write!(f, "{value:?}"),
            None => f.write_str("<flag>"),
        }
    }
}

impl fmt::Display for ParsedCommand {
    /// `executable="npx", positionals=[…], options={…}, end_of_options=true`, empty parts
    /// omitted, prefixed with `from shell wrapper: ` when it came from a shell wrapper.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from_shell_wrapper {
            f.write_str("from shell wrapper: ")?;
        }
        write!(f, "executable={:?}", self.executable)?;
        if !self.positionals.is_empty() {
            write!(f, ", positionals={:?}", self.positionals)?;
        }
        if !self.options.is_empty() {
            let args: Vec<(&str, ArgDisplay<'_>)> = self
                .options
                .iter()
                .map(|option| {
                    let value = match &option.arg {
                        OptionArg::Flag => None,
                        OptionArg::Value { value, .. } => Some(value.as_str()),
                    };
                    (option.name.as_str(), ArgDisplay(value))
                })
                .collect();
            f.write_str(", options=")?;
            write_option_groups(
                f,
                args.iter()
                    .map(|(name, arg)| (*name, arg as &dyn fmt::Display)),
            )?;
        }
        if self.end_of_options {
            f.write_str(", end_of_options=true")?;
        }
        Ok(())
    }
}
