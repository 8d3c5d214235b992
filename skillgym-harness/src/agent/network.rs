//! Where an agent CLI may still connect in a session, once the adapter's switches are set, for
//! `skillgym doctor`: the model endpoint (the runner's `agent.provider`, else the vendor its
//! login names), and what a CLI fetches on its own that no documented switch turns off without
//! changing what the agent does.
//!
//! The switches set in every session (update checks, telemetry, usage statistics, Claude Code's
//! nonessential traffic, Codex's plugin marketplace, Copilot's auto-update) and, with a provider
//! endpoint, OpenCode's model catalog fetch, leave these (measured with the pinned versions in a
//! loopback-only network namespace whose resolver logged every name looked up):
//!
//! | type | with the user's login | with `agent.provider` | under `--mock` |
//! |---|---|---|---|
//! | `claude-code` | Anthropic's API | the endpoint | the scripted model |
//! | `codex` | OpenAI's API (`api.openai.com`; ChatGPT's with a ChatGPT login) | the endpoint | the scripted model |
//! | `opencode` | the model's provider, `models.opencode.ai` (its catalog of the vendors' models), the npm registry | the endpoint, the npm registry | the scripted model |
//! | `copilot` | GitHub (its sign-in and the Copilot API) | the endpoint | the scripted model |
//! | `gemini-cli` | Google (the Gemini API or Code Assist, and its sign-in) | the endpoint | the scripted model |
//! | `qwen-code` | the provider its settings select (Qwen OAuth, DashScope, …) | the endpoint | the scripted model |
//! | `cursor-agent` | Cursor's servers (unverified) | — (no endpoint setting) | — |
//! | `command` | whatever the program does | whatever the program does | whatever the program does |
//!
//! The npm registry (`registry.npmjs.org`, or the one `NPM_CONFIG_REGISTRY` names): OpenCode
//! installs its plugin SDK at start into its config directory and each `.opencode` directory,
//! for the plugins and custom tools written against it. Only against the scripted model, where
//! nothing else may be reached, is the registry pointed at a closed port; elsewhere a
//! workspace's own tools may need the SDK. Under `--mock` Copilot also runs with
//! `COPILOT_OFFLINE=true`, which would also take its web tools away in a real run.

use crate::config::AgentKind;

use super::{Provider, spec};

/// Where a session of `kind` may connect: each entry a host or a service, with what for.
/// `provider` is the runner's model endpoint (a `--mock` run's is offline: the scripted model
/// only); `registry` the npm registry the session would use, if it names one.
pub fn contacts(
    kind: AgentKind,
    provider: Option<&Provider>,
    registry: Option<&str>,
) -> Vec<String> {
    if provider.is_some_and(|provider| provider.offline) {
        return vec!["the scripted model only".to_owned()];
    }
    let endpoint = provider.map(|provider| format!("{} (the endpoint)", host(&provider.base_url)));
    let Some(spec) = spec::of_kind(kind) else {
        // `command` (and `replay`, which starts nothing): skillgym knows nothing of the program.
        let program = "whatever the program does".to_owned();
        return match endpoint {
            Some(endpoint) if kind == AgentKind::Command => vec![endpoint, program],
            Some(endpoint) => vec![endpoint],
            None => vec![program],
        };
    };
    let mut contacts = match endpoint {
        Some(endpoint) => vec![endpoint],
        None => spec.contacts.iter().map(|c| (*c).to_owned()).collect(),
    };
    if let Some(why) = spec.npm_at_start {
        let host = registry.map_or("registry.npmjs.org", host);
        contacts.push(format!("{host} (the npm registry: {why})"));
    }
    contacts
}

/// The host (and port) of a URL: `http://127.0.0.1:4000/v1` → `127.0.0.1:4000`.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ApiKey;
    use crate::config::WireApi;

    fn endpoint(offline: bool) -> Provider {
        Provider {
            base_url: "https://user:pw@gateway.example:4000/v1".to_owned(),
            api_key: ApiKey::None,
            wire_api: WireApi::OpenaiChat,
            offline,
        }
    }

    #[test]
    fn contacts_follow_the_endpoint() {
        let real = endpoint(false);
        assert_eq!(
            contacts(AgentKind::ClaudeCode, Some(&real), None),
            ["gateway.example:4000 (the endpoint)"]
        );
        let opencode = contacts(
            AgentKind::Opencode,
            Some(&real),
            Some("https://npm.corp/x/"),
        );
        assert_eq!(opencode.len(), 2);
        assert!(
            opencode[1].starts_with("npm.corp (the npm registry"),
            "{opencode:?}"
        );
        assert!(contacts(AgentKind::Opencode, None, None)[1].starts_with("models.opencode.ai"));
        assert!(contacts(AgentKind::Opencode, None, None)[2].starts_with("registry.npmjs.org"));
        for kind in AgentKind::CLIS {
            assert_eq!(
                contacts(kind, Some(&endpoint(true)), None),
                ["the scripted model only"],
                "{kind:?}"
            );
        }
        assert_eq!(host("http://127.0.0.1:9"), "127.0.0.1:9");
        assert_eq!(host("localhost:11434/v1?x=1"), "localhost:11434");
    }
}
