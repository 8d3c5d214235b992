//! The Anthropic Messages API (`POST /v1/messages`), as Claude Code and Copilot's `anthropic`
//! provider type speak it.

use serde_json::{Value, json};

use super::{Conversation, Reply, Stream, ToolSpec, Usage, Wire, push_text, sse, status_word};
use crate::config::WireApi;
use crate::mock::http::Response;

/// The Anthropic Messages wire.
#[derive(Debug)]
pub struct Anthropic;

impl Wire for Anthropic {
    fn api(&self) -> WireApi {
        WireApi::Anthropic
    }

    fn conversation(&self, body: &Value, _stream: Stream) -> Conversation {
        let mut conversation = Conversation::from_body(body);
        if let Some(tools) = body["tools"].as_array() {
            for tool in tools {
                if let Some(name) = tool["name"].as_str() {
                    let schema = tool.get("input_schema").cloned().unwrap_or(Value::Null);
                    conversation.tools.push(ToolSpec::new(name, schema));
                }
            }
        }
        push_text(&mut conversation.text, &body["system"]);
        for message in body["messages"].as_array().into_iter().flatten() {
            let content = &message["content"];
            push_text(&mut conversation.text, content);
            conversation.tool_results += content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|block| block["type"] == "tool_result")
                .count();
        }
        let format = body
            .pointer("/output_config/format")
            .or_else(|| body.get("output_format"));
        if let Some(format) = format.filter(|format| format["type"] == "json_schema") {
            conversation.wants_json = true;
            conversation.json_schema = format.get("schema").cloned();
        }
        conversation
    }

    fn reply(&self, reply: &Reply, conversation: &Conversation) -> Response {
        let id = format!("msg_mock_{}", reply.seq);
        let model = conversation.model.as_deref().unwrap_or("mock-model");
        let content = content_blocks(reply);
        let stop_reason = if reply.call.is_some() {
            "tool_use"
        } else {
            "end_turn"
        };
        if conversation.stream == Stream::Whole {
            return Response::json(
                200,
                &json!({
                    "id": id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": stop_reason,
                    "stop_sequence": null,
                    "usage": usage(reply.usage, reply.usage.output),
                }),
            );
        }
        let mut events = vec![(
            "message_start",
            json!({
                "type": "message_start",
                "message": {
                    "id": id, "type": "message", "role": "assistant", "model": model,
                    "content": [], "stop_reason": null, "stop_sequence": null,
                    "usage": usage(reply.usage, 1),
                },
            }),
        )];
        for (index, block) in content.iter().enumerate() {
            events.extend(block_events(index, block));
        }
        events.push((
            "message_delta",
            json!({
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": reply.usage.output},
            }),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        Response::event_stream(sse(events
            .into_iter()
            .map(|(name, data)| (Some(name), data.to_string()))))
    }

    fn error(&self, status: u16, message: &str) -> Response {
        Response::json(
            status,
            &json!({"type": "error", "error": {"type": status_word(status), "message": message}}),
        )
    }

    fn models(&self, models: &[String]) -> Response {
        let data: Vec<Value> = models
            .iter()
            .map(|id| json!({"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"}))
            .collect();
        Response::json(
            200,
            &json!({
                "data": data,
                "has_more": false,
                "first_id": models.first(),
                "last_id": models.last(),
            }),
        )
    }

    fn count_tokens(&self, tokens: u64) -> Response {
        Response::json(200, &json!({"input_tokens": tokens}))
    }
}

/// The reply's content blocks: its `text` (if any), then a `tool_use`.
fn content_blocks(reply: &Reply) -> Vec<Value> {
    let mut content = Vec::new();
    if !reply.text.is_empty() {
        content.push(json!({"type": "text", "text": reply.text}));
    }
    if let Some(call) = &reply.call {
        content.push(json!({
            "type": "tool_use",
            "id": format!("toolu_mock_{}", reply.seq),
            "name": call.name,
            "input": call.arguments,
        }));
    }
    content
}

/// The stream events of content block `index`: started empty, its text or input as one delta,
/// stopped.
fn block_events(index: usize, block: &Value) -> [(&'static str, Value); 3] {
    let (start, delta) = if block["type"] == "text" {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
        )
    } else {
        (
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
        )
    };
    [
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ),
    ]
}

/// Anthropic usage: cache figures zero; `output` as given (1 in `message_start`).
fn usage(usage: Usage, output: u64) -> Value {
    json!({
        "input_tokens": usage.input,
        "output_tokens": output,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    })
}
