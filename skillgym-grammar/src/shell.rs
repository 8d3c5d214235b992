//! Splitting a command line into words and separators (POSIX shell rules), and quoting words:
//! the lexer behind `skillgym`'s `CommandMatcher` and the harness's reading of the shell commands
//! an agent ran.

/// A piece of a command line: a word or a separator between simple commands.
///
/// Redirections (`> out.txt`, `2>&1`, `<<EOF` with its here-document body) are dropped
/// together with their target, and `#` comments are skipped.
///
/// ```
/// use skillgym_grammar::shell::{lex, Separator, Token};
///
/// assert_eq!(
///     lex("cd app&&npm test 2>&1"),
///     [
///         Token::Word("cd".into()),
///         Token::Word("app".into()),
///         Token::Separator(Separator::And),
///         Token::Word("npm".into()),
///         Token::Word("test".into()),
///     ]
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A word with quotes and escapes removed. Expansions (`$HOME`, `$(…)`, `` `…` ``,
    /// globs) are kept verbatim, not expanded.
    Word(String),
    /// An operator that ends a simple command.
    Separator(Separator),
}

/// An operator that separates simple commands.
///
/// ```
/// use skillgym_grammar::shell::{lex, Separator, Token};
///
/// let separators: Vec<Separator> = lex("a && b || c; d | e & f\ng")
///     .into_iter()
///     .filter_map(|token| match token {
///         Token::Separator(separator) => Some(separator),
///         Token::Word(_) => None,
///     })
///     .collect();
/// assert_eq!(
///     separators,
///     [
///         Separator::And,
///         Separator::Or,
///         Separator::Semicolon,
///         Separator::Pipe,
///         Separator::Background,
///         Separator::Newline,
///     ]
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Separator {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;` (also `;;`, `;&` and `;;&` of `case`).
    Semicolon,
    /// `|` or `|&`
    Pipe,
    /// `&`
    Background,
    /// An unquoted newline.
    Newline,
    /// `(` opening a subshell.
    OpenParen,
    /// `)` closing a subshell.
    CloseParen,
}

/// Splits a command line into words and separators.
///
/// Quoting follows POSIX shells: `'…'` is literal; in `"…"` a backslash escapes only `"`,
/// `\`, `$`, `` ` `` and newline; outside quotes a backslash escapes any character and
/// backslash-newline continues the line. Adjacent parts join into one word, and `""` or `''`
/// is an empty word. `$'…'` decodes the common C escapes. Unclosed quotes run to the end of
/// the input. Never panics.
///
/// ```
/// use skillgym_grammar::shell::{lex, Separator, Token};
///
/// assert_eq!(
///     lex(r#"echo foo"bar"'baz' ''; ls > /dev/null"#),
///     [
///         Token::Word("echo".into()),
///         Token::Word("foobarbaz".into()),
///         Token::Word("".into()),
///         Token::Separator(Separator::Semicolon),
///         Token::Word("ls".into()),
///     ]
/// );
/// ```
pub fn lex(command: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: command.chars().collect(),
        pos: 0,
        tokens: Vec::new(),
        heredocs: Vec::new(),
    };
    lexer.run();
    lexer.tokens
}

/// The words of a command line, separators dropped (see [`lex`] for the rules).
///
/// ```
/// use skillgym_grammar::shell::tokenize;
///
/// assert_eq!(
///     tokenize(r#"git commit -m "fix: it's done" && git push"#),
///     ["git", "commit", "-m", "fix: it's done", "git", "push"]
/// );
/// ```
pub fn tokenize(command: &str) -> Vec<String> {
    lex(command)
        .into_iter()
        .filter_map(|token| match token {
            Token::Word(word) => Some(word),
            Token::Separator(_) => None,
        })
        .collect()
}

/// Shell-quotes `word` so that [`tokenize`] gives back exactly that one word.
///
/// Words made only of `A-Z a-z 0-9 - _ . / = : , + @ %` stay as they are; anything else is
/// wrapped in single quotes, with each `'` written as `'\''`. The empty word becomes `''`.
///
/// ```
/// use skillgym_grammar::shell::{quote, tokenize};
///
/// assert_eq!(quote("abc-1.2/x=y"), "abc-1.2/x=y");
/// assert_eq!(quote("it's a test"), r"'it'\''s a test'");
/// assert_eq!(quote(""), "''");
/// assert_eq!(tokenize(&quote("a && b")), ["a && b"]);
/// ```
pub fn quote(word: &str) -> String {
    if word.is_empty() {
        return "''".to_owned();
    }
    if word.chars().all(is_safe) {
        return word.to_owned();
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for c in word.chars() {
        if c == '\'' {
            quoted.push_str(r"'\''");
        } else {
            quoted.push(c);
        }
    }
    quoted.push('\'');
    quoted
}

fn is_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c)
}

/// Space, tab, carriage return, form feed: separate words but not commands.
fn is_blank(c: char) -> bool {
    c != '\n' && c.is_ascii_whitespace()
}

/// Characters that end an unquoted word.
fn is_metachar(c: char) -> bool {
    is_blank(c) || matches!(c, '\n' | '&' | '|' | ';' | '(' | ')' | '<' | '>')
}

/// A pending here-document: its body starts after the next unquoted newline.
struct Heredoc {
    delimiter: String,
    strip_tabs: bool,
}

/// A word being read.
#[derive(Default)]
struct Word {
    text: String,
    /// Some part was quoted, escaped or an expansion (so it is a word even if empty, and not
    /// a file-descriptor number).
    quoted: bool,
}

impl Word {
    fn exists(&self) -> bool {
        self.quoted || !self.text.is_empty()
    }

    /// `2` in `2>file`, or `{fd}` in `{fd}>file`.
    fn is_fd_prefix(&self) -> bool {
        let text = self.text.as_str();
        !self.quoted
            && (text.chars().all(|c| c.is_ascii_digit())
                || (text.len() > 2 && text.starts_with('{') && text.ends_with('}')))
            && !text.is_empty()
    }
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    tokens: Vec<Token>,
    heredocs: Vec<Heredoc>,
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos.saturating_add(offset)).copied()
    }

    fn separator(&mut self, separator: Separator) {
        self.tokens.push(Token::Separator(separator));
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                '\n' => {
                    self.pos += 1;
                    self.separator(Separator::Newline);
                    self.skip_heredoc_bodies();
                }
                c if is_blank(c) => self.pos += 1,
                '\\' if self.peek_at(1) == Some('\n') => self.pos += 2,
                '#' => self.skip_comment(),
                '&' => match self.peek_at(1) {
                    Some('&') => {
                        self.pos += 2;
                        self.separator(Separator::And);
                    }
                    Some('>') => {
                        self.pos += 1;
                        self.redirection();
                    }
                    _ => {
                        self.pos += 1;
                        self.separator(Separator::Background);
                    }
                },
                '|' => {
                    let next = self.peek_at(1);
                    self.pos += if matches!(next, Some('|' | '&')) {
                        2
                    } else {
                        1
                    };
                    let separator = if next == Some('|') {
                        Separator::Or
                    } else {
                        Separator::Pipe
                    };
                    self.separator(separator);
                }
                ';' => {
                    self.pos += 1;
                    while matches!(self.peek(), Some(';' | '&')) {
                        self.pos += 1;
                    }
                    self.separator(Separator::Semicolon);
                }
                '(' => {
                    self.pos += 1;
                    self.separator(Separator::OpenParen);
                }
                ')' => {
                    self.pos += 1;
                    self.separator(Separator::CloseParen);
                }
                '<' | '>' if self.peek_at(1) != Some('(') => self.redirection(),
                _ => self.word_or_fd_redirection(),
            }
        }
    }

    fn word_or_fd_redirection(&mut self) {
        let start = self.pos;
        let word = self.read_word();
        if word.is_fd_prefix() && matches!(self.peek(), Some('<' | '>')) {
            self.redirection();
        } else if word.exists() {
            self.tokens.push(Token::Word(word.text));
        }
        if self.pos == start {
            // Defensive: always make progress.
            self.pos += 1;
        }
    }

    /// At `<` or `>`: reads the operator and drops its target word.
    fn redirection(&mut self) {
        let Some(first) = self.peek() else { return };
        self.pos += 1;
        let mut heredoc_strip_tabs = None;
        match (first, self.peek()) {
            ('<', Some('<')) => {
                self.pos += 1;
                match self.peek() {
                    Some('<') => self.pos += 1,
                    Some('-') => {
                        self.pos += 1;
                        heredoc_strip_tabs = Some(true);
                    }
                    _ => heredoc_strip_tabs = Some(false),
                }
            }
            ('<', Some('&' | '>')) | ('>', Some('>' | '&' | '|')) => self.pos += 1,
            _ => {}
        }
        self.skip_blanks();
        if !self.at_word_start() {
            return;
        }
        let target = self.read_word();
        if let Some(strip_tabs) = heredoc_strip_tabs
            && target.exists()
        {
            self.heredocs.push(Heredoc {
                delimiter: target.text,
                strip_tabs,
            });
        }
    }

    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(c) if is_blank(c) => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    fn at_word_start(&self) -> bool {
        match self.peek() {
            Some('<' | '>') => self.peek_at(1) == Some('('),
            Some(c) => !is_metachar(c) && c != '#',
            None => false,
        }
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
    }

    fn skip_heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.heredocs) {
            self.pos = skip_heredoc_body(&self.chars, self.pos, &heredoc);
        }
    }

    fn read_word(&mut self) -> Word {
        let mut word = Word::default();
        while let Some(c) = self.peek() {
            match c {
                '<' | '>' if !word.exists() && self.peek_at(1) == Some('(') => {
                    word.quoted = true;
                    self.append_raw(&mut word.text, 2, Context::Paren);
                }
                c if is_metachar(c) => break,
                '\'' => {
                    word.quoted = true;
                    self.pos += 1;
                    self.single_quoted(&mut word.text);
                }
                '"' => {
                    word.quoted = true;
                    self.pos += 1;
                    self.double_quoted(&mut word.text);
                }
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(next) => {
                        word.quoted = true;
                        word.text.push(next);
                        self.pos += 2;
                    }
                    None => {
                        word.text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' => self.dollar(&mut word),
                '`' => {
                    word.quoted = true;
                    self.append_raw(&mut word.text, 1, Context::Backtick);
                }
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        word
    }

    /// At `$`: `$(…)`, `${…}` kept verbatim, `$'…'` decoded, `$"…"` read as `"…"`.
    fn dollar(&mut self, word: &mut Word) {
        match self.peek_at(1) {
            Some('(') => {
                word.quoted = true;
                self.append_raw(&mut word.text, 2, Context::Paren);
            }
            Some('{') => {
                word.quoted = true;
                self.append_raw(&mut word.text, 2, Context::Brace);
            }
            Some('\'') => {
                word.quoted = true;
                self.pos += 2;
                self.ansi_c_quoted(&mut word.text);
            }
            Some('"') => self.pos += 1,
            _ => {
                word.quoted = true;
                word.text.push('$');
                self.pos += 1;
            }
        }
    }

    /// After the opening `'`.
    fn single_quoted(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\'' {
                return;
            }
            text.push(c);
        }
    }

    /// After the opening `"`.
    fn double_quoted(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(next @ ('"' | '\\' | '$' | '`')) => {
                        text.push(next);
                        self.pos += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' if self.peek_at(1) == Some('(') => self.append_raw(text, 2, Context::Paren),
                '$' if self.peek_at(1) == Some('{') => self.append_raw(text, 2, Context::Brace),
                '`' => self.append_raw(text, 1, Context::Backtick),
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// After the opening `$'`.
    fn ansi_c_quoted(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(next) = self.peek() else {
                        text.push('\\');
                        return;
                    };
                    self.pos += 1;
                    match next {
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        'a' => text.push('\x07'),
                        'b' => text.push('\x08'),
                        'e' | 'E' => text.push('\x1b'),
                        'f' => text.push('\x0c'),
                        'v' => text.push('\x0b'),
                        '\\' | '\'' | '"' | '?' => text.push(next),
                        _ => {
                            text.push('\\');
                            text.push(next);
                        }
                    }
                }
                _ => text.push(c),
            }
        }
    }

    /// Appends an expansion verbatim: `open_len` opening characters, then up to the closing
    /// character of `context`.
    fn append_raw(&mut self, text: &mut String, open_len: usize, context: Context) {
        let start = self.pos;
        let body = start.saturating_add(open_len).min(self.chars.len());
        let end = scan_raw(&self.chars, body, context).max(body);
        text.extend(self.chars.get(start..end).unwrap_or_default());
        self.pos = end;
    }
}

/// What closes the innermost construct while scanning an expansion.
#[derive(Clone, Copy)]
enum Context {
    /// `$(…)`, `<(…)`, or a nested `(…)`: shell code.
    Paren,
    /// `${…}`
    Brace,
    /// `"…"` inside an expansion.
    Double,
    /// `` `…` ``
    Backtick,
}

/// Finds the end (exclusive) of an expansion whose body starts at `start`; the input's end
/// if it is never closed. Iterative, so deep nesting cannot overflow the stack.
fn scan_raw(chars: &[char], start: usize, context: Context) -> usize {
    let mut stack = vec![context];
    let mut heredocs: Vec<Heredoc> = Vec::new();
    let mut i = start;
    while let Some(&top) = stack.last() {
        let Some(&c) = chars.get(i) else {
            return chars.len();
        };
        let next = chars.get(i + 1).copied();
        let mut step = 1;
        match (top, c) {
            (_, '\\') => step = 2,
            (Context::Paren | Context::Brace, '\'') => {
                i = skip_past(chars, i + 1, '\'');
                continue;
            }
            (Context::Paren, '$') if next == Some('\'') => {
                i = skip_ansi_c(chars, i + 2);
                continue;
            }
            (Context::Paren | Context::Brace, '"') => stack.push(Context::Double),
            (Context::Double, '"') | (Context::Brace, '}') | (Context::Backtick, '`') => {
                stack.pop();
            }
            (Context::Paren | Context::Brace | Context::Double, '`') => {
                stack.push(Context::Backtick);
            }
            (Context::Paren | Context::Brace | Context::Double, '$') if next == Some('(') => {
                stack.push(Context::Paren);
                step = 2;
            }
            (Context::Paren | Context::Brace | Context::Double, '$') if next == Some('{') => {
                stack.push(Context::Brace);
                step = 2;
            }
            (Context::Paren, '(') => stack.push(Context::Paren),
            (Context::Paren, ')') => {
                stack.pop();
            }
            (Context::Paren, '#')
                if i == start || chars.get(i - 1).is_none_or(|&p| is_metachar(p)) =>
            {
                i = chars
                    .get(i..)
                    .and_then(|rest| rest.iter().position(|&c| c == '\n'))
                    .map_or(chars.len(), |offset| i + offset);
                continue;
            }
            (Context::Paren, '<') if next == Some('<') && chars.get(i + 2) != Some(&'<') => {
                let (heredoc, end) = read_heredoc_delimiter(chars, i + 2);
                heredocs.extend(heredoc);
                i = end;
                continue;
            }
            (Context::Paren, '\n') => {
                i += 1;
                for heredoc in heredocs.drain(..) {
                    i = skip_heredoc_body(chars, i, &heredoc);
                }
                continue;
            }
            _ => {}
        }
        i = i.saturating_add(step);
    }
    i.min(chars.len())
}

/// The index just past the next `close` at or after `from` (the input's end if none).
fn skip_past(chars: &[char], from: usize, close: char) -> usize {
    chars
        .get(from..)
        .and_then(|rest| rest.iter().position(|&c| c == close))
        .map_or(chars.len(), |offset| from + offset + 1)
}

/// The index just past the `'` closing a `$'…'` whose body starts at `from`.
fn skip_ansi_c(chars: &[char], from: usize) -> usize {
    let mut i = from;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 2,
            '\'' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// Reads a here-document delimiter after `<<` inside an expansion (quotes removed).
fn read_heredoc_delimiter(chars: &[char], mut i: usize) -> (Option<Heredoc>, usize) {
    let strip_tabs = chars.get(i) == Some(&'-');
    if strip_tabs {
        i += 1;
    }
    while chars.get(i).is_some_and(|&c| is_blank(c)) {
        i += 1;
    }
    let mut delimiter = String::new();
    while let Some(&c) = chars.get(i) {
        if is_metachar(c) {
            break;
        }
        if !matches!(c, '\'' | '"' | '\\') {
            delimiter.push(c);
        }
        i += 1;
    }
    let heredoc = (!delimiter.is_empty()).then_some(Heredoc {
        delimiter,
        strip_tabs,
    });
    (heredoc, i)
}

/// Skips a here-document body starting at `pos`, through its delimiter line.
fn skip_heredoc_body(chars: &[char], mut pos: usize, heredoc: &Heredoc) -> usize {
    while let Some(rest) = chars.get(pos..).filter(|rest| !rest.is_empty()) {
        let line_len = rest.iter().position(|&c| c == '\n').unwrap_or(rest.len());
        let mut line = rest.get(..line_len).unwrap_or_default();
        if let [head @ .., '\r'] = line {
            line = head;
        }
        if heredoc.strip_tabs {
            while let ['\t', tail @ ..] = line {
                line = tail;
            }
        }
        pos = (pos + line_len + 1).min(chars.len());
        if line.iter().copied().eq(heredoc.delimiter.chars()) {
            break;
        }
    }
    pos
}
