//! The OpenAI Responses API (`POST /v1/responses`), as Codex and Copilot's `responses` wire
//! speak it.

use serde_json::{Value, json};

use super::{Conversation, Reply, Stream, ToolSpec, Wire, push_text, sse, status_word};
use crate::config::WireApi;
use crate::mock::http::Response;

/// The OpenAI Responses wire.
#[derive(Debug)]
pub struct Responses;

/// Input items that carry a tool's result.
const RESULT_ITEMS: [&str; 4] = [
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
    "mcp_call_output",
];

impl Wire for Responses {
    fn api(&self) -> WireApi {
        WireApi::OpenaiResponses
    }

    fn conversation(&self, body: &Value, _stream: Stream) -> Conversation {
        let mut conversation = Conversation::from_body(body);
        for tool in body["tools"].as_array().into_iter().flatten() {
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            let schema = if tool["type"] == "function" {
                tool.get("parameters").cloned().unwrap_or(Value::Null)
            } else {
                Value::Null
            };
            conversation.tools.push(ToolSpec::new(name, schema));
        }
        push_text(&mut conversation.text, &body["instructions"]);
        match &body["input"] {
            Value::String(text) => push_text(&mut conversation.text, &Value::from(text.as_str())),
            Value::Array(items) => {
                for item in items {
                    push_text(&mut conversation.text, item);
                    if item["type"]
                        .as_str()
                        .is_some_and(|kind| RESULT_ITEMS.contains(&kind))
                    {
                        conversation.tool_results += 1;
                    }
                }
            }
            _ => {}
        }
        if let Some(format) = body.pointer("/text/format") {
            match format["type"].as_str() {
                Some("json_schema") => {
                    conversation.wants_json = true;
                    conversation.json_schema = format.get("schema").cloned();
                }
                Some("json_object") => conversation.wants_json = true,
                _ => {}
            }
        }
        conversation
    }

    fn reply(&self, reply: &Reply, conversation: &Conversation) -> Response {
        let id = format!("resp_mock_{}", reply.seq);
        let model = conversation.model.as_deref().unwrap_or("mock-model");
        let output = output_items(reply);
        let usage = json!({
            "input_tokens": reply.usage.input,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": reply.usage.output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.usage.total(),
        });
        let response = |status: &str, output: Vec<Value>, usage: Value| {
            json!({
                "id": id, "object": "response", "created_at": 0, "status": status,
                "model": model, "output": output, "usage": usage,
            })
        };
        if conversation.stream == Stream::Whole {
            return Response::json(200, &response("completed", output, usage));
        }
        let mut events = vec![
            (
                "response.created",
                json!({"response": response("in_progress", Vec::new(), Value::Null)}),
            ),
            (
                "response.in_progress",
                json!({"response": response("in_progress", Vec::new(), Value::Null)}),
            ),
        ];
        for (index, item) in output.iter().enumerate() {
            item_events(index, item, &mut events);
        }
        events.push((
            "response.completed",
            json!({"response": response("completed", output, usage)}),
        ));
        Response::event_stream(sse(events.into_iter().enumerate().map(
            |(sequence, (name, mut data))| {
                data["type"] = json!(name);
                data["sequence_number"] = json!(sequence);
                (Some(name), data.to_string())
            },
        )))
    }

    fn error(&self, status: u16, message: &str) -> Response {
        openai_error(status, message)
    }

    fn models(&self, models: &[String]) -> Response {
        openai_models(models)
    }

    fn count_tokens(&self, tokens: u64) -> Response {
        Response::json(
            200,
            &json!({"object": "response.input_tokens", "input_tokens": tokens}),
        )
    }
}

/// The reply's output items: a `message` with its text (if any), then a `function_call`.
fn output_items(reply: &Reply) -> Vec<Value> {
    let mut output = Vec::new();
    if !reply.text.is_empty() {
        output.push(json!({
            "type": "message",
            "id": format!("msg_mock_{}", reply.seq),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }));
    }
    if let Some(call) = &reply.call {
        output.push(json!({
            "type": "function_call",
            "id": format!("fc_mock_{}", reply.seq),
            "call_id": format!("call_mock_{}", reply.seq),
            "name": call.name,
            "arguments": call.arguments.to_string(),
            "status": "completed",
        }));
    }
    output
}

/// The stream events of output item `index`: added (in progress, empty), its text or
/// arguments as one delta and done, then the item done.
fn item_events(index: usize, item: &Value, events: &mut Vec<(&'static str, Value)>) {
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    if item["type"] == "message" {
        added["content"] = json!([]);
        let part = &item["content"][0];
        let item_id = &item["id"];
        events.push((
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        ));
        events.push((
            "response.content_part.added",
            json!({"item_id": item_id, "output_index": index, "content_index": 0,
                   "part": {"type": "output_text", "text": "", "annotations": []}}),
        ));
        events.push((
            "response.output_text.delta",
            json!({"item_id": item_id, "output_index": index, "content_index": 0,
                   "delta": part["text"]}),
        ));
        events.push((
            "response.output_text.done",
            json!({"item_id": item_id, "output_index": index, "content_index": 0,
                   "text": part["text"]}),
        ));
        events.push((
            "response.content_part.done",
            json!({"item_id": item_id, "output_index": index, "content_index": 0,
                   "part": part}),
        ));
    } else {
        added["arguments"] = json!("");
        events.push((
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        ));
        events.push((
            "response.function_call_arguments.delta",
            json!({"item_id": item["id"], "output_index": index, "delta": item["arguments"]}),
        ));
        events.push((
            "response.function_call_arguments.done",
            json!({"item_id": item["id"], "output_index": index, "arguments": item["arguments"]}),
        ));
    }
    events.push((
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    ));
}

/// OpenAI's error body.
pub(crate) fn openai_error(status: u16, message: &str) -> Response {
    let code = match status {
        401 => json!("invalid_api_key"),
        404 => json!("model_not_found"),
        429 => json!("rate_limit_exceeded"),
        _ => Value::Null,
    };
    Response::json(
        status,
        &json!({"error": {"message": message, "type": status_word(status), "param": null, "code": code}}),
    )
}

/// OpenAI's model list.
pub(crate) fn openai_models(models: &[String]) -> Response {
    let data: Vec<Value> = models
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "skillgym-mock"}))
        .collect();
    Response::json(200, &json!({"object": "list", "data": data}))
}
