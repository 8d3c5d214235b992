//! "Did you mean" suggestions.
