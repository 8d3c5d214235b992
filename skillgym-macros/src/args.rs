//! Parsing and validation of the `#[skillgym::case(...)]` arguments.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::{Error, Expr, ExprLit, Ident, Lit, LitStr, Token};

use crate::{duration, suggest};

/// Every argument, with an example used in error messages.
const ARGUMENTS: &[(&str, &str)] = &[
    ("prompt", "prompt = \"...\""),
    ("prompt_file", "prompt_file = \"prompts/case.md\""),
    ("id", "id = \"area::case\""),
    ("tags", "tags = [\"smoke\"]"),
    ("repeat", "repeat = 3"),
    ("repeat_failure", "repeat_failure = 1"),
    ("retry_failed", "retry_failed = 1"),
    ("samples", "samples = 20"),
    ("min_pass_rate", "min_pass_rate = 0.8"),
    ("min_lift", "min_lift = 0.1"),
    ("stop_when_decided", "stop_when_decided"),
    ("expected_fail", "expected_fail"),
    ("timeout", "timeout = \"90s\""),
    ("max_steps", "max_steps = 20"),
    ("runners", "runners = [\"claude\"]"),
    ("workspace", "workspace = \"fixtures/app\""),
    ("mock", "mock = \"scripts/case.yaml\""),
    ("skills", "skills = [\"skills/find-skills\"]"),
    ("variants", "variants = [\"without\", \"with\"]"),
    ("classify_failure", "classify_failure = classify"),
    ("crate", "crate = \"skillgym\""),
];

/// Where the prompt comes from.
pub(crate) enum Prompt {
    Inline(LitStr),
    File(LitStr),
}

/// The validated arguments.
#[derive(Default)]
pub(crate) struct Args {
    pub prompt: Option<Prompt>,
    pub id: Option<LitStr>,
    pub tags: Vec<LitStr>,
    pub repeat: Option<u32>,
    /// `repeat_failure`, or else its legacy alias `retry_failed`.
    pub repeat_failure: Option<u32>,
    /// `retry_failed` as written; [`parse`] folds it into `repeat_failure`.
    retry_failed: Option<u32>,
    /// `samples`: independent sessions, none retried (never with `repeat`).
    pub samples: Option<u32>,
    /// `min_pass_rate`: the gate on the execution's pass rate, in `[0, 1]`.
    pub min_pass_rate: Option<f64>,
    /// `min_lift`: the gate on each variant's lift over its baseline, in `[-1, 1]`.
    pub min_lift: Option<f64>,
    /// `stop_when_decided`: stop sampling once the gate (or, without one, the sign of each
    /// variant's lift) is settled (needs `samples`).
    pub stop_when_decided: bool,
    /// Where `stop_when_decided` was written, for its errors.
    stop_span: Option<Span>,
    pub expected_fail: bool,
    pub timeout_ms: Option<u64>,
    pub max_steps: Option<u32>,
    pub runners: Vec<LitStr>,
    pub workspace: Option<LitStr>,
    pub mock: Option<LitStr>,
    pub skills: Vec<LitStr>,
    /// `variants`: the run's variants this case runs under.
    pub variants: Vec<LitStr>,
    pub classify_failure: Option<syn::Path>,
    pub krate: Option<syn::Path>,
}

/// Parses the attribute's arguments, pushing every problem found onto `errors`.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Vec<Error>) -> Args {
    let mut args = Args::default();
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        if let Err(error) = args.argument(&meta, &mut seen) {
            errors.push(error);
            skip_value(meta.input)?;
        }
        Ok(())
    });
    match parser.parse2(tokens) {
        Ok(()) => {
            if !seen
                .iter()
                .any(|key| key == "prompt" || key == "prompt_file")
            {
                errors.push(Error::new(
                    Span::call_site(),
                    "missing prompt: a skillgym case needs either `prompt = \"...\"` \
                     (the prompt text) or `prompt_file = \"path\"` (a file relative to the \
                     crate's Cargo.toml directory, read at run time)",
                ));
            }
        }
        Err(error) => errors.push(error),
    }
    // The legacy alias stops here: `repeat_failure` wins when both are given.
    args.repeat_failure = args.repeat_failure.or(args.retry_failed.take());
    if let Some(span) = args.stop_span
        && args.samples.is_none()
    {
        errors.push(Error::new(
            span,
            "`stop_when_decided` stops sampling once the pass rate is surely above or below \
             its gate (or each variant's lift surely above or below zero): it needs \
             `samples = N`, the most sessions",
        ));
    }
    args
}

/// `prompt` or `prompt_file` (never both: a case has exactly one prompt).
fn prompt(ident: &Ident, key: &str, seen: &[String], value: &Expr) -> syn::Result<Prompt> {
    let other = if key == "prompt" {
        "prompt_file"
    } else {
        "prompt"
    };
    if seen.iter().any(|k| k == other) {
        return Err(Error::new(
            ident.span(),
            format!(
                "`{key}` conflicts with `{other}`: a case has exactly one prompt, \
                 either inline (`prompt = \"...\"`) or from a file \
                 (`prompt_file = \"path\"`)"
            ),
        ));
    }
    let text = non_empty_string(value, key)?;
    Ok(if key == "prompt" {
        Prompt::Inline(text)
    } else {
        Prompt::File(text)
    })
}

/// `variants = [...]`: names that fit in a trial's name (`[runner/variant] case`).
fn variant_names(value: &Expr) -> syn::Result<Vec<LitStr>> {
    let names = string_array(value, "variants", false)?;
    for name in &names {
        if let Some(c) = name
            .value()
            .chars()
            .find(|c| c.is_whitespace() || c.is_control() || ['/', ']', ','].contains(c))
        {
            return Err(Error::new(
                name.span(),
                format!(
                    "a variant name must not contain whitespace, control characters, `/`, `]` \
                     or `,` (found {c:?}): it is part of the trial's name `[runner/variant] case`"
                ),
            ));
        }
    }
    Ok(names)
}

/// `samples` given beside `repeat`, `repeat_failure` or `retry_failed` (either order): a case
/// is sampled or repeated, not both.
fn sampling_conflict(ident: &Ident, key: &str, seen: &[String]) -> syn::Result<()> {
    const REPEATING: [&str; 3] = ["repeat", "repeat_failure", "retry_failed"];
    let other = if key == "samples" {
        seen.iter().find(|k| REPEATING.contains(&k.as_str()))
    } else {
        seen.iter().find(|k| *k == "samples")
    };
    match other {
        Some(other) => Err(Error::new(
            ident.span(),
            format!(
                "`{key}` conflicts with `{other}`: a case either runs `samples` independent \
                 sessions (none retried, none stopping the others) or repeats until `repeat` \
                 sessions passed (retrying up to `repeat_failure` times); keep one of them"
            ),
        )),
        None => Ok(()),
    }
}

/// Consumes whatever is left of a bad argument, up to the next top-level comma.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

fn example(key: &str) -> &'static str {
    ARGUMENTS
        .iter()
        .find(|(name, _)| *name == key)
        .map_or("", |(_, example)| example)
}

fn unknown_argument(path: &syn::Path) -> Error {
    let typed = match path.get_ident() {
        Some(ident) => ident.to_string(),
        None => quote::quote!(#path).to_string().replace(' ', ""),
    };
    let names: Vec<&str> = ARGUMENTS.iter().map(|(name, _)| *name).collect();
    let mut message = format!("unknown skillgym::case argument `{typed}`");
    if let Some(suggestion) = suggest::closest(&typed, &names) {
        message.push_str(&format!("\nhelp: did you mean `{suggestion}`?"));
    }
    message.push_str(&format!("\nvalid arguments: {}", names.join(", ")));
    Error::new_spanned(path, message)
}

impl Args {
    /// Parses one `key = value` or flag.
    fn argument(&mut self, meta: &ParseNestedMeta, seen: &mut Vec<String>) -> syn::Result<()> {
        let Some(ident) = meta.path.get_ident() else {
            return Err(unknown_argument(&meta.path));
        };
        let key = ident.to_string();
        if !ARGUMENTS.iter().any(|(name, _)| *name == key) {
            return Err(unknown_argument(&meta.path));
        }
        if seen.contains(&key) {
            return Err(Error::new(
                ident.span(),
                format!("duplicate `{key}` argument"),
            ));
        }
        seen.push(key.clone());

        if key == "expected_fail" || key == "stop_when_decided" {
            if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                return Err(Error::new(
                    ident.span(),
                    format!("`{key}` is a flag and takes no value: write just `{key}`"),
                ));
            }
            if key == "expected_fail" {
                self.expected_fail = true;
            } else {
                self.stop_when_decided = true;
                self.stop_span = Some(ident.span());
            }
            return Ok(());
        }
        if !meta.input.peek(Token![=]) {
            return Err(Error::new(
                ident.span(),
                format!("`{key}` takes a value: `{}`", example(&key)),
            ));
        }
        let value: Expr = meta.value()?.parse()?;
        self.assign(ident, &key, seen, &value)
    }

    /// Validates `value` for `key` and stores it.
    fn assign(
        &mut self,
        ident: &Ident,
        key: &str,
        seen: &[String],
        value: &Expr,
    ) -> syn::Result<()> {
        match key {
            "prompt" | "prompt_file" => self.prompt = Some(prompt(ident, key, seen, value)?),
            "id" => {
                let id = non_empty_string(value, key)?;
                if id
                    .value()
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control())
                {
                    return Err(Error::new(
                        id.span(),
                        "`id` must not contain whitespace or control characters",
                    ));
                }
                self.id = Some(id);
            }
            "tags" => self.tags = string_array(value, key, true)?,
            "runners" => self.runners = string_array(value, key, false)?,
            "repeat" | "repeat_failure" | "retry_failed" | "samples" => {
                sampling_conflict(ident, key, seen)?;
                match key {
                    "repeat" => self.repeat = Some(integer(value, key, 1)?),
                    "repeat_failure" => self.repeat_failure = Some(integer(value, key, 0)?),
                    "retry_failed" => self.retry_failed = Some(integer(value, key, 0)?),
                    _ => self.samples = Some(integer(value, key, 1)?),
                }
            }
            "max_steps" => self.max_steps = Some(integer(value, key, 1)?),
            "min_pass_rate" => self.min_pass_rate = Some(fraction(value, key)?),
            "min_lift" => self.min_lift = Some(difference(value, key)?),
            "timeout" => {
                let text = string(value, key)?;
                let millis = duration::timeout_millis(&text.value())
                    .map_err(|message| Error::new(text.span(), message))?;
                self.timeout_ms = Some(millis);
            }
            "workspace" => self.workspace = Some(non_empty_string(value, key)?),
            "mock" => self.mock = Some(non_empty_string(value, key)?),
            "skills" => self.skills = string_array(value, key, false)?,
            "variants" => self.variants = variant_names(value)?,
            "classify_failure" => self.classify_failure = Some(function_path(value)?),
            "crate" => {
                let text = string(value, key)?;
                let path = text.parse::<syn::Path>().map_err(|_| {
                    Error::new(
                        text.span(),
                        "`crate` must name a path to the skillgym crate, e.g. `crate = \"sg\"`",
                    )
                })?;
                self.krate = Some(path);
            }
            _ => unreachable!("every name in ARGUMENTS is handled"),
        }
        Ok(())
    }
}

fn lit(value: &Expr) -> Option<&Lit> {
    match value {
        Expr::Lit(ExprLit { lit, attrs }) if attrs.is_empty() => Some(lit),
        Expr::Group(group) => lit(&group.expr),
        _ => None,
    }
}

/// A bare identifier such as `smoke`, which was probably meant as `"smoke"`.
fn bare_ident(value: &Expr) -> Option<String> {
    match value {
        Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
            path.path.get_ident().map(Ident::to_string)
        }
        _ => None,
    }
}

fn string(value: &Expr, key: &str) -> syn::Result<LitStr> {
    match lit(value) {
        Some(Lit::Str(text)) => Ok(text.clone()),
        _ => {
            let mut message = format!(
                "expected a string literal for `{key}`, e.g. `{}`",
                example(key)
            );
            if let Some(word) = bare_ident(value) {
                message.push_str(&format!(": write `\"{word}\"`"));
            }
            Err(Error::new_spanned(value, message))
        }
    }
}

fn non_empty_string(value: &Expr, key: &str) -> syn::Result<LitStr> {
    let text = string(value, key)?;
    if text.value().trim().is_empty() {
        return Err(Error::new(
            text.span(),
            format!("`{key}` must not be empty"),
        ));
    }
    Ok(text)
}

/// `["a", "b"]`: non-empty strings without duplicates (and without whitespace, for tags).
fn string_array(value: &Expr, key: &str, is_tags: bool) -> syn::Result<Vec<LitStr>> {
    let Expr::Array(array) = value else {
        let mut message = format!(
            "expected an array of string literals for `{key}`, e.g. `{}`",
            example(key)
        );
        if let Some(Lit::Str(text)) = lit(value) {
            message = format!(
                "expected an array of string literals for `{key}`: write `{key} = [{}]`",
                quote::quote!(#text)
            );
        }
        return Err(Error::new_spanned(value, message));
    };
    let mut errors: Option<Error> = None;
    let mut push = |error: Error| match &mut errors {
        Some(all) => all.combine(error),
        None => errors = Some(error),
    };
    let mut items: Vec<LitStr> = Vec::new();
    for element in &array.elems {
        let text = match lit(element) {
            Some(Lit::Str(text)) => text.clone(),
            _ => {
                let message = match bare_ident(element) {
                    Some(word) => format!(
                        "expected a string literal in `{key}`: write `\"{word}\"` in quotes"
                    ),
                    None => format!("expected a string literal in `{key}`"),
                };
                push(Error::new_spanned(element, message));
                continue;
            }
        };
        let content = text.value();
        if content.is_empty() {
            push(Error::new(text.span(), format!("empty string in `{key}`")));
        } else if is_tags && content.chars().any(|c| c.is_whitespace() || c.is_control()) {
            push(Error::new(
                text.span(),
                "tags must not contain whitespace or control characters",
            ));
        } else if items.iter().any(|seen| seen.value() == content) {
            push(Error::new(
                text.span(),
                format!(
                    "duplicate {} \"{content}\" in `{key}`",
                    &key[..key.len() - 1]
                ),
            ));
        } else {
            items.push(text);
        }
    }
    match errors {
        Some(error) => Err(error),
        None => Ok(items),
    }
}

/// A share of sessions, from 0 to 1 (`min_pass_rate = 0.8`).
fn fraction(value: &Expr, key: &str) -> syn::Result<f64> {
    number_in(value, key, 0.0, "a share of sessions")
}

/// A difference of two shares, from -1 to 1 (`min_lift = 0.1`, `min_lift = -0.05`).
fn difference(value: &Expr, key: &str) -> syn::Result<f64> {
    number_in(value, key, -1.0, "a difference of two pass rates")
}

/// A number literal (negative ones too) from `low` to 1; `what` says what it measures.
fn number_in(value: &Expr, key: &str, low: f64, what: &str) -> syn::Result<f64> {
    let (negative, inner) = match value {
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => (true, expr.as_ref()),
        other => (false, other),
    };
    let number = match lit(inner) {
        Some(Lit::Float(float)) => float.base10_parse::<f64>()?,
        Some(Lit::Int(int)) => int.base10_parse::<f64>()?,
        _ => {
            return Err(Error::new_spanned(
                value,
                format!(
                    "expected a number from {low} to 1 for `{key}`, e.g. `{}`",
                    example(key)
                ),
            ));
        }
    };
    let number = if negative { -number } else { number };
    if !(low..=1.0).contains(&number) {
        return Err(Error::new_spanned(
            value,
            format!("`{key}` is {what}, from {low} to 1: found {number}"),
        ));
    }
    Ok(number)
}

fn integer(value: &Expr, key: &str, min: u32) -> syn::Result<u32> {
    let kind = if min == 0 {
        "a non-negative"
    } else {
        "a positive"
    };
    let number = match lit(value) {
        Some(Lit::Int(int)) => int.base10_parse::<u32>()?,
        Some(Lit::Str(text)) if text.value().trim().parse::<u32>().is_ok() => {
            return Err(Error::new(
                text.span(),
                format!(
                    "expected an integer for `{key}`, found a string: write `{key} = {}` \
                     without quotes",
                    text.value().trim()
                ),
            ));
        }
        _ => {
            return Err(Error::new_spanned(
                value,
                format!(
                    "expected {kind} integer literal for `{key}`, e.g. `{}`",
                    example(key)
                ),
            ));
        }
    };
    if number < min {
        return Err(Error::new_spanned(
            value,
            format!("`{key}` must be at least {min}"),
        ));
    }
    Ok(number)
}

fn function_path(value: &Expr) -> syn::Result<syn::Path> {
    match value {
        Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => Ok(path.path.clone()),
        _ => {
            let mut message = String::from(
                "expected a path to a function `fn(&skillgym::Failure) -> R` for \
                 `classify_failure`, e.g. `classify_failure = classify`",
            );
            if let Some(Lit::Str(text)) = lit(value) {
                message.push_str(&format!(": write `{}` without quotes", text.value()));
            }
            Err(Error::new_spanned(value, message))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeat_failure(tokens: TokenStream) -> Option<u32> {
        let mut errors = Vec::new();
        let args = parse(tokens, &mut errors);
        assert!(errors.is_empty(), "{}", errors[0]);
        args.repeat_failure
    }

    #[test]
    fn the_retry_failed_alias_is_folded_into_repeat_failure() {
        use quote::quote;
        assert_eq!(
            repeat_failure(quote!(prompt = "p", retry_failed = 2)),
            Some(2)
        );
        assert_eq!(
            repeat_failure(quote!(prompt = "p", retry_failed = 2, repeat_failure = 0)),
            Some(0)
        );
        assert_eq!(
            repeat_failure(quote!(prompt = "p", repeat_failure = 1, retry_failed = 3)),
            Some(1)
        );
        assert_eq!(repeat_failure(quote!(prompt = "p")), None);
    }

    /// The duration table YAML's keys are tested with, through the whole argument parser.
    #[test]
    fn timeout_follows_the_shared_table() {
        use skillgym_grammar::duration::examples::{ACCEPTED, REJECTED, message};
        let timeout = |text: &str| {
            let mut errors = Vec::new();
            let args = parse(quote::quote!(prompt = "p", timeout = #text), &mut errors);
            match errors.first() {
                Some(error) => Err(error.to_string()),
                None => Ok(args.timeout_ms.unwrap()),
            }
        };
        for &(text, millis) in ACCEPTED {
            let expected = match millis {
                0 => Err("`timeout` must be greater than zero".to_owned()),
                millis => Ok(millis),
            };
            assert_eq!(timeout(text), expected, "{text:?}");
        }
        for &(text, why) in REJECTED {
            assert_eq!(timeout(text), Err(message(text, why)), "{text:?}");
        }
    }

    fn errors(tokens: TokenStream) -> Vec<String> {
        let mut errors = Vec::new();
        parse(tokens, &mut errors);
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn samples_are_independent_sessions_and_never_beside_repeat() {
        use quote::quote;
        let mut errors_found = Vec::new();
        let args = parse(quote!(prompt = "p", samples = 20), &mut errors_found);
        assert!(errors_found.is_empty());
        assert_eq!(args.samples, Some(20));
        for tokens in [
            quote!(prompt = "p", repeat = 2, samples = 3),
            quote!(prompt = "p", samples = 3, repeat_failure = 1),
            quote!(prompt = "p", retry_failed = 1, samples = 3),
        ] {
            let found = errors(tokens);
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(found[0].contains("conflicts with"), "{}", found[0]);
            assert!(found[0].contains("keep one of them"), "{}", found[0]);
        }
        assert_eq!(
            errors(quote!(prompt = "p", samples = 0)),
            ["`samples` must be at least 1"]
        );
    }

    #[test]
    fn min_pass_rate_is_a_share_from_0_to_1() {
        use quote::quote;
        let mut found = Vec::new();
        let args = parse(
            quote!(prompt = "p", samples = 10, min_pass_rate = 0.8),
            &mut found,
        );
        assert!(found.is_empty());
        assert_eq!(args.min_pass_rate, Some(0.8));
        let args = parse(quote!(prompt = "p", min_pass_rate = 1), &mut found);
        assert!(found.is_empty());
        assert_eq!(args.min_pass_rate, Some(1.0));
        assert_eq!(
            errors(quote!(prompt = "p", min_pass_rate = 1.5)),
            ["`min_pass_rate` is a share of sessions, from 0 to 1: found 1.5"]
        );
        assert_eq!(
            errors(quote!(prompt = "p", min_pass_rate = "80%")),
            ["expected a number from 0 to 1 for `min_pass_rate`, e.g. `min_pass_rate = 0.8`"]
        );
    }

    #[test]
    fn stop_when_decided_is_a_flag_that_needs_samples() {
        use quote::quote;
        let mut found = Vec::new();
        let args = parse(
            quote!(
                prompt = "p",
                samples = 40,
                min_pass_rate = 0.8,
                stop_when_decided
            ),
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
        assert!(args.stop_when_decided);
        assert!(errors(quote!(prompt = "p", samples = 40, stop_when_decided)).is_empty());
        for tokens in [
            quote!(prompt = "p", min_pass_rate = 0.8, stop_when_decided),
            quote!(prompt = "p", stop_when_decided),
        ] {
            let found = errors(tokens);
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(
                found[0].starts_with("`stop_when_decided` stops sampling"),
                "{}",
                found[0]
            );
        }
        assert_eq!(
            errors(quote!(
                prompt = "p",
                samples = 4,
                min_pass_rate = 0.5,
                stop_when_decided = true
            )),
            ["`stop_when_decided` is a flag and takes no value: write just `stop_when_decided`"]
        );
    }

    #[test]
    fn variants_name_the_run_s_variants_in_a_trial_s_name() {
        use quote::quote;
        let mut found = Vec::new();
        let args = parse(
            quote!(prompt = "p", variants = ["without", "with"]),
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
        let names: Vec<String> = args.variants.iter().map(LitStr::value).collect();
        assert_eq!(names, ["without", "with"]);
        let found = errors(quote!(prompt = "p", variants = ["a/b"]));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("a variant name must not contain"),
            "{}",
            found[0]
        );
        assert_eq!(
            errors(quote!(prompt = "p", variants = "with")),
            ["expected an array of string literals for `variants`: write `variants = [\"with\"]`"]
        );
    }

    #[test]
    fn min_lift_is_a_difference_from_minus_1_to_1() {
        use quote::quote;
        let mut found = Vec::new();
        let args = parse(quote!(prompt = "p", min_lift = 0.2), &mut found);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(args.min_lift, Some(0.2));
        let args = parse(quote!(prompt = "p", min_lift = -0.05), &mut found);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(args.min_lift, Some(-0.05));
        assert_eq!(
            errors(quote!(prompt = "p", min_lift = 1.5)),
            ["`min_lift` is a difference of two pass rates, from -1 to 1: found 1.5"]
        );
        assert_eq!(
            errors(quote!(prompt = "p", min_lift = "10%")),
            ["expected a number from -1 to 1 for `min_lift`, e.g. `min_lift = 0.1`"]
        );
    }
}
