//! "Did you mean" suggestions for misspelled flags, keys and values: the rule the
//! `#[skillgym::case]` macro uses too, from [`skillgym_grammar::suggest`].

pub(crate) use skillgym_grammar::suggest::did_you_mean;
