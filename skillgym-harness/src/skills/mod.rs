//! Skills under test: the `SKILL.md` format and where each agent finds skills.
//!
//! | module | concern |
//! |---|---|
//! | [`manifest`] | a `SKILL.md`'s frontmatter: validation with file:line:column errors, the name lookup detection uses |

pub mod manifest;

pub use manifest::Manifest;
