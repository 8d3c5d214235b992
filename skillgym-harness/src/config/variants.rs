//! `variants:`, the named ways of setting up the same case for the same runner that an
//! experiment compares.
//!
//! ```yaml
//! variants:
//!   without: { skills: none }                # none of the skills under test: the baseline
//!   with: {}                                 # the skills under test, as configured
//!   previous: { skills: { git: v1.2.0 } }    # the skills under test as they were at a git ref
//!   draft: { skills: [../drafts/my-skill] }  # these skill directories instead
//!   verbose: { env: { MY_SKILL_VERBOSE: "1" } }
//!   briefed: { files: { AGENTS.md: instructions/agents.md } }
//! ```
//!
//! | key | meaning |
//! |---|---|
//! | `skills` | `none`; a list of skill directories (vs the config file) installed instead of the skills under test; `{ git: REF }`: each skill under test as committed at `REF` of its repository; absent: the skills under test |
//! | `env` | extra environment variables for the agent |
//! | `files` | files written into each attempt's workspace before the agent starts (instruction files such as `AGENTS.md` or `CLAUDE.md`): workspace-relative path → source file (vs the config file) |
//! | `baseline` | `true` on the variant the others are compared with (default: the first listed) |

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::yaml::{self, Located};

/// One variant of `variants:`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Variant {
    /// Its name: part of the trial's name (`[runner/name] case`).
    pub name: String,
    /// Which skills its attempts install.
    pub skills: VariantSkills,
    /// Extra environment variables for the agent.
    pub env: BTreeMap<String, String>,
    /// Files copied into each attempt's workspace: workspace-relative path → source file
    /// (absolute after parsing).
    pub files: BTreeMap<PathBuf, PathBuf>,
    /// Whether it is the baseline the others are compared with.
    pub baseline: bool,
}

impl Variant {
    /// A variant named `name` that installs the skills under test and changes nothing else.
    pub fn new(name: impl Into<String>) -> Variant {
        Variant {
            name: name.into(),
            skills: VariantSkills::UnderTest,
            env: BTreeMap::new(),
            files: BTreeMap::new(),
            baseline: false,
        }
    }

    /// The same variant, copying `source` to `path` (relative) in each attempt's workspace.
    pub fn file(mut self, path: impl Into<PathBuf>, source: impl Into<PathBuf>) -> Variant {
        self.files.insert(path.into(), source.into());
        self
    }

    /// The same variant, installing `skills` instead.
    pub fn skills(mut self, skills: VariantSkills) -> Variant {
        self.skills = skills;
        self
    }

    /// The same variant, with `key=value` in the agent's environment.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Variant {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The same variant, marked as the baseline.
    pub fn baseline(mut self) -> Variant {
        self.baseline = true;
        self
    }
}

/// Which skills a variant's attempts install.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum VariantSkills {
    /// The skills under test (the run's, the runner's and the case's).
    #[default]
    UnderTest,
    /// None of the skills under test (`skills: none`).
    Without,
    /// These skill directories instead of the skills under test (absolute after parsing).
    Dirs(Vec<PathBuf>),
    /// Each skill under test as committed at this git revision of its repository.
    Git(String),
}

impl VariantSkills {
    /// How the variant's skills read in a report: `under test`, `none`, `2 directories`,
    /// `git v1.2.0`.
    pub fn describe(&self) -> String {
        match self {
            VariantSkills::UnderTest => "the skills under test".to_owned(),
            VariantSkills::Without => "none".to_owned(),
            VariantSkills::Dirs(dirs) => dirs
                .iter()
                .map(|dir| dir.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            VariantSkills::Git(reference) => format!("the skills under test at git `{reference}`"),
        }
    }
}

/// The characters a variant's name must not hold besides those a trial's name refuses: `/`
/// and `]` end the `[runner/variant]` part of the name, `,` separates `--variant` values.
const NAME_BREAKERS: [char; 3] = ['/', ']', ','];

const SKILLS_HELP: &str =
    "write `skills: none`, a list of skill directories, or `skills: { git: v1.2.0 }`";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    #[serde(default)]
    skills: Option<Located<RawSkills>>,
    #[serde(default, deserialize_with = "super::fields::null_as_default")]
    env: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "super::fields::null_as_default")]
    files: BTreeMap<PathBuf, PathBuf>,
    #[serde(default)]
    baseline: Option<Located<bool>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawSkills {
    Word(String),
    Dirs(Vec<PathBuf>),
    Git(RawGit),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGit {
    git: String,
}

/// `variants:` as a mapping from name to variant, in file order, with at most one baseline.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Variant>, D::Error> {
    struct Variants;

    impl<'de> Visitor<'de> for Variants {
        type Value = Vec<Variant>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping from variant name to variant")
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut variants: Vec<Variant> = Vec::new();
            let mut baseline_seen = false;
            while let Some(name) = map.next_key::<Located<String>>()? {
                if let Some(problem) = name_problem(&name.value) {
                    return Err(de::Error::custom(name.error(problem)));
                }
                if variants.iter().any(|v| v.name == name.value) {
                    return Err(de::Error::custom(
                        name.error(format!("variant `{}` is declared twice", name.value)),
                    ));
                }
                let raw = map.next_value::<Option<RawVariant>>()?;
                let variant = variant_of(&name, raw).map_err(de::Error::custom)?;
                if variant.baseline && std::mem::replace(&mut baseline_seen, true) {
                    return Err(de::Error::custom(name.error(yaml::with_help(
                        format!("variant `{}` is a second baseline", name.value),
                        "an experiment compares every variant with one baseline: keep \
                         `baseline: true` on one variant (without it, the first listed is the \
                         baseline)",
                    ))));
                }
                variants.push(variant);
            }
            Ok(variants)
        }
    }

    deserializer.deserialize_option(Variants)
}

/// Why `name` cannot name a variant, if it cannot.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("a variant name must not be empty".to_owned());
    }
    if let Some(c) = crate::trial_name::bad_char(name) {
        return Some(yaml::with_help(
            crate::trial_name::problem("variant name", name, c),
            &format!(
                "write it without, e.g. `{}`",
                crate::trial_name::suggestion(name)
            ),
        ));
    }
    if let Some(c) = name.chars().find(|c| NAME_BREAKERS.contains(c)) {
        return Some(yaml::with_help(
            format!(
                "variant name `{name}` holds `{c}`: it is part of the trial's name `[runner/{name}] case`, where `/` and `]` end the runner part, and `,` separates `--variant` values"
            ),
            &format!("e.g. `{}`", name.replace(NAME_BREAKERS, "-")),
        ));
    }
    None
}

/// Why `path` cannot name a file inside a workspace, if it cannot.
fn workspace_path_problem(path: &std::path::Path) -> Option<&'static str> {
    use std::path::Component;
    if path.as_os_str().is_empty() {
        return Some("is empty");
    }
    if path.is_absolute() {
        return Some("is absolute");
    }
    path.components()
        .any(|c| !matches!(c, Component::Normal(_)))
        .then_some("leaves the workspace or names it (`..`, `.`)")
}

fn variant_of(located: &Located<String>, raw: Option<RawVariant>) -> Result<Variant, String> {
    let name = located.value.as_str();
    let Some(raw) = raw else {
        return Ok(Variant::new(name));
    };
    let skills = match raw.skills {
        None => VariantSkills::UnderTest,
        Some(located) => match located.value {
            RawSkills::Word(word) if word == "none" => VariantSkills::Without,
            RawSkills::Word(word) => {
                return Err(yaml::locate(
                    located.line,
                    located.column,
                    yaml::with_help(
                        format!("`skills: {word}` is not a variant's skills"),
                        SKILLS_HELP,
                    ),
                ));
            }
            RawSkills::Dirs(dirs) if dirs.is_empty() => {
                return Err(yaml::locate(
                    located.line,
                    located.column,
                    yaml::with_help("`skills: []` lists no skill directory", SKILLS_HELP),
                ));
            }
            RawSkills::Dirs(dirs) => VariantSkills::Dirs(dirs),
            RawSkills::Git(git) if git.git.trim().is_empty() => {
                return Err(yaml::locate(
                    located.line,
                    located.column,
                    yaml::with_help("`git` needs a revision", SKILLS_HELP),
                ));
            }
            RawSkills::Git(git) => VariantSkills::Git(git.git),
        },
    };
    let mut files = BTreeMap::new();
    for (path, source) in raw.files {
        if let Some(problem) = workspace_path_problem(&path) {
            return Err(located.error(yaml::with_help(
                format!("variant `{name}`: `files` key `{}` {problem}", path.display()),
                "a key of `files` is where the file goes, relative to the attempt's workspace, e.g. `AGENTS.md` or `.github/copilot-instructions.md`",
            )));
        }
        files.insert(path, source);
    }
    Ok(Variant {
        name: name.to_owned(),
        skills,
        env: raw.env,
        files,
        baseline: raw.baseline.is_some_and(|b| b.value),
    })
}
