//! The lint rules as one table ([`RULES`]): each row an id, a severity and a check over one
//! parsed skill (see the table in the [parent module](super)).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Finding, Options, Severity, TOKEN_ESTIMATE, scan};
use crate::config::ConfigError;
use crate::config::yaml::{self, Located};
use crate::skills::manifest;

/// The frontmatter keys of the agentskills.io spec.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// The longest `compatibility` the agentskills.io spec allows.
const MAX_COMPATIBILITY: usize = 500;

/// A limit an agent (or the spec) puts on the description's length, in characters.
pub(crate) struct AgentLimit {
    /// Who sets it.
    pub who: &'static str,
    /// The most characters allowed.
    pub max: usize,
    /// What happens above it.
    pub effect: &'static str,
}

/// The description limits known: Codex's loader rejects longer descriptions (seen when six
/// public collections were installed), and the agentskills.io spec caps them at 1,024.
pub(crate) const AGENT_LIMITS: &[AgentLimit] = &[
    AgentLimit {
        who: "Codex",
        max: 1024,
        effect: "refuses to load the skill",
    },
    AgentLimit {
        who: "the agentskills.io spec",
        max: 1024,
        effect: "forbids it",
    },
];

/// One lint rule.
pub(crate) struct Rule {
    /// Its id, as printed: `error[id]`.
    pub id: &'static str,
    /// How severe its findings are.
    pub severity: Severity,
    /// Whether a run that installs the skill prints its findings (as warnings).
    pub at_install: bool,
    /// What it finds in one skill.
    pub check: fn(&SkillFile, &Context) -> Vec<Hit>,
}

/// Every rule, in the order of the module table.
pub(crate) const RULES: &[Rule] = &[
    rule("frontmatter", Severity::Error, false, frontmatter),
    rule("name", Severity::Error, false, name),
    rule(
        "name-matches-directory",
        Severity::Error,
        false,
        name_matches_directory,
    ),
    rule("description", Severity::Error, false, description),
    rule(
        "description-length",
        Severity::Error,
        false,
        description_length,
    ),
    rule("optional-key", Severity::Warning, true, optional_key),
    rule("when-to-use", Severity::Warning, false, when_to_use),
    rule("body-tokens", Severity::Warning, true, body_tokens),
    rule("broken-link", Severity::Error, true, scan::broken_links),
    rule("missing-file", Severity::Warning, true, scan::missing_files),
    rule(
        "script-not-executable",
        Severity::Warning,
        true,
        scan::scripts_not_executable,
    ),
    rule("duplicate-name", Severity::Error, false, duplicate_name),
];

const fn rule(
    id: &'static str,
    severity: Severity,
    at_install: bool,
    check: fn(&SkillFile, &Context) -> Vec<Hit>,
) -> Rule {
    Rule {
        id,
        severity,
        at_install,
        check,
    }
}

/// What a rule sees besides the skill: the options, and every skill's name.
pub(crate) struct Context<'a> {
    /// The lint's options.
    pub options: &'a Options,
    /// Each name, with the `SKILL.md` files using it, in the order linted.
    pub names: HashMap<String, Vec<PathBuf>>,
}

/// A rule's finding before the rule's id and severity are added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Another file than the `SKILL.md`, when the finding is about it.
    pub file: Option<PathBuf>,
    pub line: u32,
    pub column: u32,
    pub message: String,
    pub help: Option<String>,
}

impl Hit {
    pub(crate) fn at(line: u32, column: u32, message: impl Into<String>) -> Hit {
        Hit {
            file: None,
            line: line.max(1),
            column: column.max(1),
            message: message.into(),
            help: None,
        }
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Hit {
        self.help = Some(help.into());
        self
    }
}

/// A frontmatter's keys with their positions, or why there are none.
type Front = Result<BTreeMap<String, Located<Value>>, ConfigError>;

/// A skill directory read for linting.
pub(crate) struct SkillFile {
    /// The directory.
    pub dir: PathBuf,
    /// Its `SKILL.md`.
    pub path: PathBuf,
    /// The `SKILL.md` text (empty when it could not be read).
    pub text: String,
    /// The frontmatter's keys, or why it has none.
    pub front: Front,
    /// Where the body starts: byte offset into `text`, 1-based line.
    pub body_at: (usize, u32),
}

impl SkillFile {
    /// Reads the skill in `dir`.
    pub(crate) fn read(dir: &Path) -> SkillFile {
        let path = manifest::manifest_path(dir);
        let (text, front, body_at) = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let (front, body_at) = parse_front(&path, &text);
                (text, front, body_at)
            }
            Err(error) => {
                let error =
                    ConfigError::new(Some(&path), format!("cannot read the skill: {error}"));
                (String::new(), Err(error), (0, 1))
            }
        };
        SkillFile {
            dir: dir.to_path_buf(),
            path,
            text,
            front,
            body_at,
        }
    }

    /// The text after the frontmatter.
    pub(crate) fn body(&self) -> &str {
        &self.text[self.body_at.0..]
    }

    /// The frontmatter value of `key`, when the frontmatter parsed and has it.
    fn field(&self, key: &str) -> Option<&Located<Value>> {
        self.front.as_ref().ok()?.get(key)
    }

    /// The `name:` when it is a string.
    pub(crate) fn name(&self) -> Option<String> {
        match &self.field("name")?.value {
            Value::String(name) => Some(name.clone()),
            _ => None,
        }
    }

    /// The line and column of `key:` in the frontmatter, else 1:1.
    fn key_at(&self, key: &str) -> (u32, u32) {
        let lines = self.text[..self.body_at.0].lines().enumerate().skip(1);
        for (index, line) in lines {
            if let Some(rest) = line.strip_prefix(key)
                && rest.trim_start().starts_with(':')
            {
                return (index as u32 + 1, 1);
            }
        }
        (1, 1)
    }
}

/// The frontmatter of `text` as keys with positions (lines of the file), and where the body
/// starts; a missing or broken frontmatter is the manifest parser's error.
fn parse_front(path: &Path, text: &str) -> (Front, (usize, u32)) {
    let Some((yaml_text, first_line)) = manifest::frontmatter(text) else {
        let error = manifest::parse(path, text).expect_err("no frontmatter is an error");
        return (Err(error), (0, 1));
    };
    let yaml_end = yaml_text.as_ptr() as usize - text.as_ptr() as usize + yaml_text.len();
    let closing = text[yaml_end..]
        .find('\n')
        .map_or(text.len(), |at| yaml_end + at + 1);
    let body_line = text[..closing].matches('\n').count() as u32 + 1;
    let parsed = if yaml_text.trim().is_empty() {
        Ok(BTreeMap::new())
    } else {
        yaml::parse::<BTreeMap<String, Located<Value>>>(path, yaml_text)
    };
    let front = parsed
        .map(|mut keys| {
            let shift = first_line as u32 - 1;
            for value in keys.values_mut() {
                if value.line > 0 {
                    value.line += shift;
                }
            }
            keys
        })
        .map_err(|error| manifest::parse(path, text).err().unwrap_or(error));
    (front, (closing, body_line))
}

/// Every rule's findings for `skill`.
pub(crate) fn check(skill: &SkillFile, context: &Context) -> Vec<Finding> {
    RULES
        .iter()
        .flat_map(|rule| {
            (rule.check)(skill, context)
                .into_iter()
                .map(move |hit| Finding {
                    file: hit.file.unwrap_or_else(|| skill.path.clone()),
                    line: hit.line,
                    column: hit.column,
                    severity: rule.severity,
                    rule: rule.id,
                    message: hit.message,
                    help: hit.help,
                })
        })
        .collect()
}

fn frontmatter(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let Err(error) = &skill.front else {
        return Vec::new();
    };
    let finding = super::from_config_error(&skill.path, error, Severity::Error, "frontmatter");
    let hit = Hit::at(finding.line, finding.column, finding.message);
    vec![match finding.help {
        Some(help) => hit.help(help),
        None => hit,
    }]
}

/// The frontmatter's string `key`: `Ok(None)` when the frontmatter did not parse (reported
/// by `frontmatter`), a hit when the key is missing or not a string.
fn string_field<'a>(
    skill: &'a SkillFile,
    key: &str,
) -> Result<Option<(&'a str, &'a Located<Value>)>, Hit> {
    let Ok(front) = &skill.front else {
        return Ok(None);
    };
    let Some(field) = front.get(key) else {
        return Err(Hit::at(1, 1, format!("the frontmatter has no `{key}`"))
            .help("a SKILL.md's frontmatter needs `name` and `description`"));
    };
    match &field.value {
        Value::String(text) => Ok(Some((text, field))),
        _ => Err(Hit::at(
            field.line,
            field.column,
            format!("`{key}` must be a string"),
        )),
    }
}

fn name(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    match string_field(skill, "name") {
        Err(hit) => vec![hit],
        Ok(None) => Vec::new(),
        Ok(Some((name, field))) => manifest::name_problem(name)
            .map(|problem| {
                Hit::at(
                    field.line,
                    field.column,
                    format!("invalid skill name {name:?}: {problem}"),
                )
                .help("use lowercase letters, digits and hyphens, e.g. `find-skills`")
            })
            .into_iter()
            .collect(),
    }
}

fn name_matches_directory(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let Ok(Some((name, field))) = string_field(skill, "name") else {
        return Vec::new();
    };
    let dir = std::path::absolute(&skill.dir).unwrap_or_else(|_| skill.dir.clone());
    let Some(dir_name) = dir.file_name().and_then(|name| name.to_str()) else {
        return Vec::new();
    };
    if manifest::name_problem(name).is_some() || name == dir_name || dir_name == "." {
        return Vec::new();
    }
    vec![
        Hit::at(
            field.line,
            field.column,
            format!("the skill is named {name:?} but its directory is {dir_name:?}"),
        )
        .help("rename one of them: the agentskills.io spec has the name equal the directory's"),
    ]
}

fn description(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    match string_field(skill, "description") {
        Err(hit) => vec![hit],
        Ok(Some((text, field))) if text.trim().is_empty() => vec![Hit::at(
            field.line,
            field.column,
            "`description` is empty; agents choose skills by it",
        )],
        Ok(_) => Vec::new(),
    }
}

fn description_length(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let Ok(Some((text, field))) = string_field(skill, "description") else {
        return Vec::new();
    };
    let length = text.trim().chars().count();
    let over: Vec<&AgentLimit> = AGENT_LIMITS
        .iter()
        .filter(|limit| length > limit.max)
        .collect();
    let Some(tightest) = over.iter().map(|limit| limit.max).min() else {
        return Vec::new();
    };
    let who: Vec<String> = over
        .iter()
        .map(|limit| format!("{} {} (limit {})", limit.who, limit.effect, limit.max))
        .collect();
    vec![
        Hit::at(
            field.line,
            field.column,
            format!(
                "`description` has {length} characters, more than {tightest}: {}",
                who.join(", ")
            ),
        )
        .help(format!(
            "shorten it to at most {tightest} characters: what the skill does and when to use it"
        )),
    ]
}

fn optional_key(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let Ok(front) = &skill.front else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for (key, field) in front {
        let (line, column) = skill.key_at(key);
        let problem = match (key.as_str(), &field.value) {
            ("name" | "description", _) => None,
            ("license", Value::String(_)) | ("metadata", Value::Object(_)) => None,
            ("allowed-tools", Value::String(_) | Value::Array(_)) => None,
            ("compatibility", Value::String(text)) if text.chars().count() <= MAX_COMPATIBILITY => {
                None
            }
            ("compatibility", Value::String(text)) => Some(format!(
                "`compatibility` has {} characters, more than the {MAX_COMPATIBILITY} the agentskills.io spec allows",
                text.chars().count()
            )),
            ("license" | "compatibility", _) => Some(format!("`{key}` must be a string")),
            ("metadata", _) => Some("`metadata` must be a mapping of keys to values".to_owned()),
            ("allowed-tools", _) => {
                Some("`allowed-tools` must be a space-separated string".to_owned())
            }
            _ => {
                let hit = Hit::at(
                    line,
                    column,
                    format!("`{key}` is not a frontmatter key of the agentskills.io spec"),
                );
                let help = match crate::suggest::did_you_mean(key, KNOWN_KEYS.iter().copied()) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => "the spec's optional keys are `license`, `compatibility`, `metadata` and `allowed-tools`; other keys are read by some agents only".to_owned(),
                };
                hits.push(hit.help(help));
                None
            }
        };
        hits.extend(problem.map(|message| Hit::at(line, column, message)));
    }
    hits
}

/// Words and phrases that say when a skill applies.
fn says_when(description: &str) -> bool {
    static WHEN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(when|whenever|if|before|after|during|while|trigger(s|ed)?|invoke[sd]?|use (it |this( skill)? )?(for|to|on|in|with)|should be used)\b",
        )
        .expect("the pattern is valid")
    });
    WHEN.is_match(description)
}

fn when_to_use(skill: &SkillFile, _: &Context) -> Vec<Hit> {
    let Ok(Some((text, field))) = string_field(skill, "description") else {
        return Vec::new();
    };
    if text.trim().is_empty() || says_when(text) {
        return Vec::new();
    }
    vec![Hit::at(field.line, field.column, "`description` never says when to use the skill")
        .help("add when it applies, e.g. \"Use when the user asks to ...\": agents decide from the description alone")]
}

/// The estimated tokens of `text`: characters / 4, rounded up.
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn body_tokens(skill: &SkillFile, context: &Context) -> Vec<Hit> {
    let tokens = estimate_tokens(skill.body());
    let budget = context.options.max_body_tokens;
    if skill.front.is_err() || tokens <= budget {
        return Vec::new();
    }
    vec![Hit::at(
        skill.body_at.1,
        1,
        format!("the body has about {tokens} tokens ({TOKEN_ESTIMATE}), more than the budget of {budget}"),
    )
    .help("move details into files under references/ that the body links to; agentskills.io recommends a body under 5000 tokens (`--max-body-tokens` sets the budget)")]
}

fn duplicate_name(skill: &SkillFile, context: &Context) -> Vec<Hit> {
    let Ok(Some((name, field))) = string_field(skill, "name") else {
        return Vec::new();
    };
    let Some(first) = context.names.get(name).and_then(|paths| paths.first()) else {
        return Vec::new();
    };
    if *first == skill.path {
        return Vec::new();
    }
    vec![
        Hit::at(
            field.line,
            field.column,
            format!("the name {name:?} is taken by {} too", first.display()),
        )
        .help("rename one of them: an agent loads only one of two skills with the same name"),
    ]
}
