//! The CommandMatcher's shell tokenizer, command parser and matcher on arbitrary command
//! lines. Invariants: quoting every word and tokenizing again gives the words back; every
//! parsed simple command matches the strict matcher built from its own default reading, and
//! the loose one built from its executable and positionals; a matcher built from the first
//! line's words runs against the rest.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillgym::assert::{CommandMatcher, OptionArg, parse_command};
use skillgym_grammar::shell::{lex, quote, tokenize};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = lex(text);
    let words = tokenize(text);
    let quoted: Vec<String> = words.iter().map(|word| quote(word)).collect();
    assert_eq!(
        tokenize(&quoted.join(" ")),
        words,
        "quoted words: {quoted:?}"
    );

    for parsed in parse_command(text) {
        let _ = parsed.to_string();
        let mut strict = CommandMatcher::new(parsed.executable())
            .args(parsed.positionals())
            .strict();
        for option in parsed.options() {
            strict = match &option.arg {
                OptionArg::Flag => strict.flag(&option.name),
                OptionArg::Value { value, .. } => strict.option(&option.name, value),
            };
        }
        if parsed.end_of_options() {
            strict = strict.end_of_options();
        }
        assert!(
            strict.matches_parsed(&parsed),
            "{strict} does not match its own command {parsed}"
        );
        let loose = CommandMatcher::new(parsed.executable()).args(parsed.positionals());
        assert!(
            loose.matches_parsed(&parsed),
            "{loose} does not match its own command {parsed}"
        );
    }

    let (spec, command) = text.split_once('\n').unwrap_or((text, ""));
    let mut spec = tokenize(spec).into_iter();
    if let Some(executable) = spec.next() {
        let matcher = CommandMatcher::new(executable).args(spec);
        let _ = matcher.to_string();
        let _ = matcher.matches(command);
        let _ = matcher.strict().matches(command);
    }
});
