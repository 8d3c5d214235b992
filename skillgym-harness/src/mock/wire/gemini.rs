//! The Gemini API (`POST /v1beta/models/M:generateContent`, `:streamGenerateContent`), as
//! Gemini CLI speaks it.

use serde_json::{Value, json};

use super::{Conversation, Reply, Stream, ToolSpec, Wire, push_text, sse};
use crate::config::WireApi;
use crate::mock::http::Response;

/// The Gemini wire.
#[derive(Debug)]
pub struct Gemini;

impl Wire for Gemini {
    fn api(&self) -> WireApi {
        WireApi::Gemini
    }

    fn conversation(&self, body: &Value, stream: Stream) -> Conversation {
        let mut conversation = Conversation {
            stream,
            ..Conversation::default()
        };
        for tool in body["tools"].as_array().into_iter().flatten() {
            for declaration in tool["functionDeclarations"]
                .as_array()
                .into_iter()
                .flatten()
            {
                if let Some(name) = declaration["name"].as_str() {
                    let schema = declaration
                        .get("parametersJsonSchema")
                        .or_else(|| declaration.get("parameters"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    conversation.tools.push(ToolSpec::new(name, schema));
                }
            }
        }
        push_text(&mut conversation.text, &body["systemInstruction"]["parts"]);
        for content in body["contents"].as_array().into_iter().flatten() {
            for part in content["parts"].as_array().into_iter().flatten() {
                push_text(&mut conversation.text, &part["text"]);
                if let Some(response) = part.get("functionResponse") {
                    conversation.tool_results += 1;
                    conversation
                        .text
                        .push_str(&response["response"].to_string());
                    conversation.text.push('\n');
                }
            }
        }
        let config = &body["generationConfig"];
        if config["responseMimeType"] == "application/json" {
            conversation.wants_json = true;
            conversation.json_schema = config
                .get("responseJsonSchema")
                .or_else(|| config.get("responseSchema"))
                .cloned();
        }
        conversation
    }

    fn reply(&self, reply: &Reply, conversation: &Conversation) -> Response {
        let model = conversation.model.as_deref().unwrap_or("mock-model");
        let mut parts = Vec::new();
        if !reply.text.is_empty() {
            parts.push(json!({"text": reply.text}));
        }
        if let Some(call) = &reply.call {
            parts.push(json!({"functionCall": {"name": call.name, "args": call.arguments}}));
        }
        let chunk = json!({
            "candidates": [{
                "content": {"role": "model", "parts": parts},
                "finishReason": "STOP",
                "index": 0,
            }],
            "usageMetadata": {
                "promptTokenCount": reply.usage.input,
                "candidatesTokenCount": reply.usage.output,
                "totalTokenCount": reply.usage.total(),
            },
            "modelVersion": model,
            "responseId": format!("mock-{}", reply.seq),
        });
        match conversation.stream {
            Stream::Sse => Response::event_stream(sse([(None, chunk.to_string())])),
            Stream::JsonArray => Response::json(200, &json!([chunk])),
            Stream::Whole => Response::json(200, &chunk),
        }
    }

    fn error(&self, status: u16, message: &str) -> Response {
        let word = match status {
            400 => "INVALID_ARGUMENT",
            401 => "UNAUTHENTICATED",
            403 => "PERMISSION_DENIED",
            404 => "NOT_FOUND",
            429 => "RESOURCE_EXHAUSTED",
            503 => "UNAVAILABLE",
            504 => "DEADLINE_EXCEEDED",
            _ => "INTERNAL",
        };
        Response::json(
            status,
            &json!({"error": {"code": status, "message": message, "status": word}}),
        )
    }

    fn models(&self, models: &[String]) -> Response {
        let models: Vec<Value> = models
            .iter()
            .map(|id| {
                json!({
                    "name": format!("models/{id}"),
                    "displayName": id,
                    "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
                })
            })
            .collect();
        Response::json(200, &json!({"models": models}))
    }

    fn count_tokens(&self, tokens: u64) -> Response {
        Response::json(200, &json!({"totalTokens": tokens}))
    }
}
