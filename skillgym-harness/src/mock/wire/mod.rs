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

use serde_json::{Map, Value, json};

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
pub(crate) fn body_stream(body: &Value) -> Stream {
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

/// A JSON value that satisfies `schema` as far as a dry run needs: required properties of
/// objects, the first enum value, empty lists; a `title` property reads `Mock session`.
pub fn example_json(schema: &Value) -> Value {
    example(schema, None, 0)
}

fn example(schema: &Value, property: Option<&str>, depth: usize) -> Value {
    if depth > 16 {
        return Value::Null;
    }
    let Some(schema) = schema.as_object() else {
        return Value::Null;
    };
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|options| options.first())
        {
            return example(first, property, depth + 1);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.to_ascii_lowercase(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null")
            .to_ascii_lowercase(),
        _ if schema.contains_key("properties") => "object".to_owned(),
        _ => String::new(),
    };
    match kind.as_str() {
        "object" => {
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_else(|| properties.keys().map(String::as_str).collect());
                for name in required {
                    if let Some(property_schema) = properties.get(name) {
                        object.insert(
                            name.to_owned(),
                            example(property_schema, Some(name), depth + 1),
                        );
                    }
                }
            }
            Value::Object(object)
        }
        "array" => json!([]),
        "boolean" => json!(false),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(0)),
        "string" if property == Some("title") => json!("Mock session"),
        "string" => json!("mock"),
        _ => Value::Null,
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
    use super::*;

    #[test]
    fn example_json_satisfies_required_fields_and_enums() {
        let schema = json!({
            "type": "OBJECT",
            "properties": {
                "reasoning": {"type": "STRING"},
                "next_speaker": {"type": "STRING", "enum": ["user", "model"]},
                "optional": {"type": "string"},
                "title": {"type": "string"},
                "count": {"type": ["integer", "null"], "minimum": 1},
            },
            "required": ["reasoning", "next_speaker", "title", "count"],
        });
        assert_eq!(
            example_json(&schema),
            json!({"reasoning": "mock", "next_speaker": "user", "title": "Mock session", "count": 1})
        );
        assert_eq!(
            example_json(&json!({"anyOf": [{"type": "boolean"}]})),
            json!(false)
        );
        assert_eq!(example_json(&json!(true)), Value::Null);
    }

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
