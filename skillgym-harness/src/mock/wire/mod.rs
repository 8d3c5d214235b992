//! The model APIs the scripted server speaks, one module each, behind one small trait: read a
//! request into a [`Conversation`], write a [`Reply`] (streamed or whole), write an error.
//!
//! | wire | requests | streaming | tool calls | tool results counted |
//! |---|---|---|---|---|
//! | [`anthropic`] | `POST …/messages` (`…/count_tokens`), `GET …/models` | SSE `message_start` … `message_stop` when `stream: true` | `tool_use` blocks | `tool_result` blocks |
//! | [`responses`] | `POST …/responses` | SSE `response.created` … `response.completed` when `stream: true` | `function_call` items | `function_call_output`, `custom_tool_call_output` items |
//! | [`chat`] | `POST …/chat/completions`, `GET …/models` | SSE `chat.completion.chunk`s and `[DONE]` when `stream: true` | `tool_calls` | `role: tool` messages |
//! | [`gemini`] | `POST …/models/M:generateContent`, `:streamGenerateContent` (SSE with `alt=sse`, else a JSON array), `:countTokens`, `GET …/models` | by endpoint | `functionCall` parts | `functionResponse` parts |

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod responses;

use std::collections::BTreeSet;

use serde_json::Value;

use super::http::Response;
use crate::config::WireApi;

/// What the server needs to know of one model request, whatever its wire.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The model asked for.
    pub model: Option<String>,
    /// How the reply is to be sent.
    pub stream: Stream,
    /// Chat Completions: the client asked for usage in a chunk of its own
    /// (`stream_options.include_usage`); otherwise usage rides on the last chunk.
    pub usage_chunk: bool,
    /// The tools the agent offers, in its order.
    pub tools: Vec<ToolSpec>,
    /// How many tool results the history holds: the script's position.
    pub tool_results: usize,
    /// Every text of the request (system prompt, messages, tool results), joined by newlines:
    /// where skill paths are looked up.
    pub text: String,
    /// The JSON schema of a structured reply the request asks for, if any.
    pub json_schema: Option<Value>,
    /// Whether the request asks for a JSON reply (with or without a schema).
    pub wants_json: bool,
    /// The skills the request lists as available to the model
    /// ([`listed_skills`](crate::mock::listing::listed_skills)).
    pub skills: BTreeSet<String>,
}

impl Conversation {
    /// A conversation with the model and streaming of an OpenAI- or Anthropic-shaped body.
    pub(crate) fn from_body(body: &Value) -> Conversation {
        Conversation {
            model: body["model"].as_str().map(str::to_owned),
            stream: body_stream(body),
            ..Conversation::default()
        }
    }
}

/// How a reply is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stream {
    /// One JSON body.
    #[default]
    Whole,
    /// Server-sent events.
    Sse,
    /// Gemini's `streamGenerateContent` without `alt=sse`: a JSON array of chunks.
    JsonArray,
}

/// One tool the agent offers.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// The JSON schema of its arguments (`Null` for a free-form tool).
    pub schema: Value,
}

impl ToolSpec {
    /// A tool with a name and an argument schema.
    pub fn new(name: impl Into<String>, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            schema,
        }
    }
}

/// A model reply: text, then at most one tool call, with usage figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Assistant text (may be empty when there is a tool call).
    pub text: String,
    /// The tool call.
    pub call: Option<ToolCall>,
    /// Token figures.
    pub usage: Usage,
    /// A number unique within the server, for ids.
    pub seq: u64,
}

/// A tool call in a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments (a JSON object).
    pub arguments: Value,
}

/// Token figures of a reply: estimated as a quarter of the bytes each way, at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

impl Usage {
    /// Figures for a request of `request_bytes` answered by `text` and `call`.
    pub fn estimate(request_bytes: usize, text: &str, call: Option<&ToolCall>) -> Usage {
        let call_bytes = call.map_or(0, |call| call.name.len() + call.arguments.to_string().len());
        Usage {
            input: (request_bytes as u64 / 4).max(1),
            output: ((text.len() + call_bytes) as u64 / 4).max(1),
        }
    }

    /// Input plus output.
    pub fn total(self) -> u64 {
        self.input.saturating_add(self.output)
    }
}

/// One model API.
pub trait Wire: Sync {
    /// Which API this is.
    fn api(&self) -> WireApi;

    /// Reads a request body. `stream` is what the endpoint says, for the wire (Gemini) where
    /// the endpoint rather than the body decides.
    fn conversation(&self, body: &Value, stream: Stream) -> Conversation;

    /// Writes a reply.
    fn reply(&self, reply: &Reply, conversation: &Conversation) -> Response;

    /// Writes an error with the provider's body shape.
    fn error(&self, status: u16, message: &str) -> Response;

    /// Writes the model list.
    fn models(&self, models: &[String]) -> Response;

    /// Writes a token count.
    fn count_tokens(&self, tokens: u64) -> Response;
}

/// The wire of an API.
pub fn wire(api: WireApi) -> &'static dyn Wire {
    match api {
        WireApi::Anthropic => &anthropic::Anthropic,
        WireApi::OpenaiResponses => &responses::Responses,
        WireApi::OpenaiChat => &chat::Chat,
        WireApi::Gemini => &gemini::Gemini,
    }
}

/// `Sse` when a body's `stream` is `true`, else `Whole`.
fn body_stream(body: &Value) -> Stream {
    if body["stream"].as_bool().unwrap_or(false) {
        Stream::Sse
    } else {
        Stream::Whole
    }
}

/// Frames server-sent events: `event:` lines where a name is given, one `data:` line each.
pub(crate) fn sse<'a>(events: impl IntoIterator<Item = (Option<&'a str>, String)>) -> String {
    let mut out = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            out.push_str("event: ");
            out.push_str(name);
            out.push('\n');
        }
        out.push_str("data: ");
        out.push_str(&data);
        out.push_str("\n\n");
    }
    out
}

/// Appends the text of a message content that is a string or a list of parts with `text` (or
/// nested `content`), one line each.
pub(crate) fn push_text(out: &mut String, content: &Value) {
    match content {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(parts) => {
            for part in parts {
                push_text(out, part);
            }
        }
        Value::Object(part) => {
            for key in ["text", "content", "output"] {
                if let Some(inner) = part.get(key) {
                    push_text(out, inner);
                }
            }
        }
        _ => {}
    }
}

/// A string argument, for providers whose error bodies carry a type word.
pub(crate) fn status_word(status: u16) -> &'static str {
    match status {
        400 | 422 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sse_frames_named_and_unnamed_events() {
        let text = sse([(Some("ping"), "{}".to_owned()), (None, "[DONE]".to_owned())]);
        assert_eq!(text, "event: ping\ndata: {}\n\ndata: [DONE]\n\n");
    }

    #[test]
    fn usage_is_estimated_from_sizes() {
        let call = ToolCall {
            name: "Bash".into(),
            arguments: json!({"command": "echo hello"}),
        };
        let usage = Usage::estimate(4000, "done", Some(&call));
        assert_eq!(usage.input, 1000);
        assert_eq!(usage.output, (4 + 4 + 24) / 4);
        assert_eq!(
            Usage::estimate(0, "", None),
            Usage {
                input: 1,
                output: 1
            }
        );
    }
}
