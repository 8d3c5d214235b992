//! OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenCode, Copilot and Qwen Code
//! speak it.

use serde_json::{Value, json};

use super::responses::{openai_error, openai_models};
use super::{Conversation, Reply, Stream, ToolSpec, Wire, push_text, sse};
use crate::config::WireApi;
use crate::mock::http::Response;

/// The OpenAI Chat Completions wire.
#[derive(Debug)]
pub struct Chat;

impl Wire for Chat {
    fn api(&self) -> WireApi {
        WireApi::OpenaiChat
    }

    fn conversation(&self, body: &Value, _stream: Stream) -> Conversation {
        let mut conversation = Conversation::from_body(body);
        for tool in body["tools"].as_array().into_iter().flatten() {
            if let Some(function) = tool.get("function")
                && let Some(name) = function["name"].as_str()
            {
                let schema = function.get("parameters").cloned().unwrap_or(Value::Null);
                conversation.tools.push(ToolSpec::new(name, schema));
            } else if let Some(name) = tool.pointer("/custom/name").and_then(Value::as_str) {
                conversation.tools.push(ToolSpec::new(name, Value::Null));
            }
        }
        for message in body["messages"].as_array().into_iter().flatten() {
            push_text(&mut conversation.text, &message["content"]);
            if message["role"] == "tool" {
                conversation.tool_results += 1;
            }
        }
        match body
            .pointer("/response_format/type")
            .and_then(Value::as_str)
        {
            Some("json_schema") => {
                conversation.wants_json = true;
                conversation.json_schema =
                    body.pointer("/response_format/json_schema/schema").cloned();
            }
            Some("json_object") => conversation.wants_json = true,
            _ => {}
        }
        conversation.usage_chunk = body
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        conversation
    }

    fn reply(&self, reply: &Reply, conversation: &Conversation) -> Response {
        let id = format!("chatcmpl-mock-{}", reply.seq);
        let model = conversation.model.as_deref().unwrap_or("mock-model");
        let usage = json!({
            "prompt_tokens": reply.usage.input,
            "completion_tokens": reply.usage.output,
            "total_tokens": reply.usage.total(),
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        });
        let tool_calls = reply.call.as_ref().map(|call| {
            json!([{
                "index": 0,
                "id": format!("call_mock_{}", reply.seq),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_string()},
            }])
        });
        let finish_reason = if reply.call.is_some() {
            "tool_calls"
        } else {
            "stop"
        };
        let text = (!reply.text.is_empty()).then_some(reply.text.as_str());
        if conversation.stream == Stream::Whole {
            let mut message = json!({"role": "assistant", "content": text});
            if let Some(mut calls) = tool_calls {
                for call in calls.as_array_mut().into_iter().flatten() {
                    call.as_object_mut().map(|call| call.remove("index"));
                }
                message["tool_calls"] = calls;
            }
            return Response::json(
                200,
                &json!({
                    "id": id, "object": "chat.completion", "created": 0, "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
                    "usage": usage,
                }),
            );
        }
        let chunk = |delta: Value, finish_reason: Value| {
            json!({
                "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            })
        };
        let mut chunks = vec![chunk(
            json!({"role": "assistant", "content": text.unwrap_or("")}),
            Value::Null,
        )];
        if let Some(calls) = tool_calls {
            chunks.push(chunk(json!({"tool_calls": calls}), Value::Null));
        }
        let mut last = chunk(json!({}), json!(finish_reason));
        if conversation.usage_chunk {
            chunks.push(last);
            last = json!({
                "id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [], "usage": usage,
            });
        } else {
            last["usage"] = usage;
        }
        chunks.push(last);
        Response::event_stream(sse(chunks
            .iter()
            .map(|chunk| (None, chunk.to_string()))
            .chain([(None, "[DONE]".to_owned())])))
    }

    fn error(&self, status: u16, message: &str) -> Response {
        openai_error(status, message)
    }

    fn models(&self, models: &[String]) -> Response {
        openai_models(models)
    }

    fn count_tokens(&self, tokens: u64) -> Response {
        Response::json(200, &json!({"input_tokens": tokens}))
    }
}
