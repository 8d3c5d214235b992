//! Model endpoints: where an agent's model requests go when the runner has `agent.provider`
//! (a gateway, a local model server) or the run is a `--mock` dry run (the scripted server).
//!
//! Each adapter maps a [`Provider`] onto what its CLI really honours:
//!
//! | agent | wire APIs (default first) | mapping |
//! |---|---|---|
//! | `claude-code` | `anthropic` | `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`; the user's login is not seeded |
//! | `codex` | `openai-responses` | `-c model_provider=skillgym` and `-c model_providers.skillgym.{name,base_url,env_key,wire_api}` (Codex ignores `OPENAI_BASE_URL`); `auth.json` is not seeded |
//! | `opencode` | `openai-chat`, `openai-responses`, `anthropic`, `gemini` | a `skillgym` provider in a config file named by `OPENCODE_CONFIG` (`@ai-sdk/openai-compatible`, `@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`; key as `{env:VAR}`), model `skillgym/<model>`; `auth.json` is not seeded |
//! | `copilot` | `openai-chat`, `openai-responses`, `anthropic` | `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_API_KEY`, `COPILOT_PROVIDER_TYPE=anthropic` / `COPILOT_PROVIDER_WIRE_API=responses` |
//! | `gemini-cli` | `gemini` | `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, and `security.auth.selectedType: gemini-api-key` in the private `settings.json` (the base URL alone exits 41) |
//! | `qwen-code` | `openai-chat` | `--auth-type openai --openai-base-url URL`, the key in `OPENAI_API_KEY` (the environment alone exits 1) |
//! | `command` | any | `SKILLGYM_PROVIDER_BASE_URL`, `SKILLGYM_PROVIDER_API_KEY`, `SKILLGYM_PROVIDER_WIRE_API` |
//! | `cursor-agent` | none | its CLI has no endpoint setting |
//!
//! An *offline* provider (the scripted server of a `--mock` run) also switches off whatever
//! else the agent would fetch: model catalogs, package registries, GitHub sign-in.

use super::options::{env_value, set_env};
use super::{AgentOptions, Launch};
use crate::config::{AgentKind, ProviderConfig, WireApi};

/// The key handed to agents whose endpoint takes none (their CLIs insist on one).
pub const NO_KEY: &str = "skillgym-no-key";

/// The variable skillgym sets for the key when it is not already in a variable of its own.
pub const KEY_VAR: &str = "SKILLGYM_PROVIDER_API_KEY";

/// The provider id skillgym registers in agents whose configs name providers (Codex,
/// OpenCode).
pub const PROVIDER_ID: &str = "skillgym";

/// A model endpoint, as an adapter is to configure its agent for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// The API root, in the wire API's convention (`…/v1` for the OpenAI wires).
    pub base_url: String,
    /// Where the key comes from.
    pub api_key: ApiKey,
    /// The API the endpoint speaks.
    pub wire_api: WireApi,
    /// Whether the agent must reach nothing else (the scripted server of a dry run).
    pub offline: bool,
}

/// Where a provider's API key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiKey {
    /// The value of this variable (of `agent.env`, else the harness's environment).
    Env(String),
    /// This value (the scripted server's session keys; never a user's secret).
    Value(String),
    /// No key: agents get [`NO_KEY`].
    None,
}

impl Provider {
    /// The provider of a runner's `agent.provider`.
    pub fn from_config(config: &ProviderConfig) -> Provider {
        Provider {
            base_url: config.base_url.clone(),
            api_key: config.api_key_env.clone().map_or(ApiKey::None, ApiKey::Env),
            wire_api: config.wire_api,
            offline: false,
        }
    }

    /// The key's value (empty when its variable is unset): the variable as `agent.env` sets
    /// it, else as the harness's environment has it.
    pub fn key_value(&self, agent_env: &[(String, String)]) -> String {
        match &self.api_key {
            ApiKey::Env(name) => env_value(agent_env, name).unwrap_or_default(),
            ApiKey::Value(value) => value.clone(),
            ApiKey::None => NO_KEY.to_owned(),
        }
    }

    /// The name of a variable that holds the key in the agent's environment, for CLIs that
    /// take a variable's name (Codex's `env_key`, OpenCode's `{env:VAR}`): the configured one,
    /// else [`KEY_VAR`], set on `launch`.
    pub fn key_var(&self, launch: &mut Launch) -> String {
        match &self.api_key {
            ApiKey::Env(name) => name.clone(),
            ApiKey::Value(value) => {
                set_env(launch, KEY_VAR, value);
                KEY_VAR.to_owned()
            }
            ApiKey::None => {
                set_env(launch, KEY_VAR, NO_KEY);
                KEY_VAR.to_owned()
            }
        }
    }
}

/// The wire API a runner of `kind` speaks to its endpoint: the configured provider's, else the
/// agent's default; `None` when the agent cannot be pointed at one.
pub fn wire_api(kind: AgentKind, options: &AgentOptions) -> Option<WireApi> {
    options
        .provider
        .as_ref()
        .map(|provider| provider.wire_api)
        .or_else(|| kind.wire_apis().first().copied())
}

/// A TOML basic string, for `-c key=value` settings.
pub(crate) fn toml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_from_variables_values_or_a_placeholder() {
        let options = AgentOptions::default().env("MY_KEY", "sk-1").env;
        let provider = |api_key| Provider {
            base_url: "http://127.0.0.1:1/v1".into(),
            api_key,
            wire_api: WireApi::OpenaiChat,
            offline: false,
        };
        let configured = provider(ApiKey::Env("MY_KEY".into()));
        assert_eq!(configured.key_value(&options), "sk-1");
        let mut launch = Launch::default();
        assert_eq!(configured.key_var(&mut launch), "MY_KEY");
        assert!(launch.env.is_empty());
        let literal = provider(ApiKey::Value("skillgym-mock-1".into()));
        assert_eq!(literal.key_var(&mut launch), KEY_VAR);
        assert_eq!(launch.env, [(KEY_VAR.into(), "skillgym-mock-1".into())]);
        assert_eq!(provider(ApiKey::None).key_value(&options), NO_KEY);
        assert_eq!(
            provider(ApiKey::Env("UNSET_SKILLGYM_TEST_KEY".into())).key_value(&options),
            ""
        );
    }

    #[test]
    fn toml_strings_are_escaped() {
        assert_eq!(toml_string("http://x/v1"), "\"http://x/v1\"");
        assert_eq!(toml_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
    }
}
