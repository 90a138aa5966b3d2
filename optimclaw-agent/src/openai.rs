//! OpenAI-compatible chat completions: request bodies and replies.

use serde_json::{Map, Value, json};

use super::{
    ModelConfig, ModelReply, RequestUsage, ToolCallRequest, ToolOutcome, Turn, count,
    parse_arguments,
};
use optimclaw::Content;

/// The request body for the transcript so far. With `text_calls` the
/// model's calls are replayed as the JSON text it wrote them in and the
/// results go back as a user message ([`ToolCalls::Text`](crate::ToolCalls)).
pub(super) fn request(
    model: &ModelConfig,
    system: Option<&str>,
    tools: &[Value],
    transcript: &[Turn],
    text_calls: bool,
) -> Value {
    let mut messages = Vec::with_capacity(transcript.len() + 1);
    if let Some(system) = system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for turn in transcript {
        match turn {
            Turn::User(text) => messages.push(json!({"role": "user", "content": text})),
            // A second text part of the user's message.
            // Nothing to add: the attached tools went in `tools`.
            Turn::Attached { text, .. } if text.is_empty() => {}
            Turn::Attached { text, .. } => match messages.last_mut() {
                Some(last) if last["role"] == "user" => {
                    let first = last["content"].take();
                    let mut parts = match first {
                        Value::Array(parts) => parts,
                        Value::String(s) => vec![json!({"type": "text", "text": s})],
                        _ => Vec::new(),
                    };
                    parts.push(json!({"type": "text", "text": text}));
                    last["content"] = Value::Array(parts);
                }
                _ => messages.push(json!({"role": "user", "content": text})),
            },
            Turn::Assistant { text, calls, .. } if text_calls => {
                let mut content = text.clone();
                for c in calls {
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    let arguments = c
                        .arguments
                        .clone()
                        .unwrap_or_else(|_| Value::String(c.raw_arguments.clone()));
                    content.push_str(&json!({"name": c.name, "arguments": arguments}).to_string());
                }
                messages.push(json!({"role": "assistant", "content": content}));
            }
            Turn::ToolResults(outcomes) if text_calls => {
                let mut content = String::new();
                for o in outcomes {
                    let verb = if o.is_error { "failed" } else { "returned" };
                    content.push_str(&format!("`{}` {verb}: {}\n", o.name, o.content));
                }
                messages.push(json!({"role": "user", "content": content.trim_end()}));
            }
            Turn::Assistant { text, calls, .. } => {
                let mut message = Map::new();
                message.insert("role".into(), "assistant".into());
                message.insert(
                    "content".into(),
                    if text.is_empty() && !calls.is_empty() {
                        Value::Null
                    } else {
                        Value::String(text.clone())
                    },
                );
                if !calls.is_empty() {
                    let calls = calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.raw_arguments},
                            })
                        })
                        .collect();
                    message.insert("tool_calls".into(), Value::Array(calls));
                }
                messages.push(Value::Object(message));
            }
            Turn::ToolResults(outcomes) => {
                for o in outcomes {
                    messages
                        .push(json!({"role": "tool", "tool_call_id": o.id, "content": o.content}));
                }
                // A tool message holds text only: images the tools returned
                // follow as a user message, on OpenAI's own API (a local
                // server's model may take no images; their text names them).
                if model.is_first_party()
                    && let Some(images) = images_message(outcomes)
                {
                    messages.push(images);
                }
            }
        }
    }
    let mut body = json!({"model": model.model, "messages": messages});
    let cap = if model.is_first_party() {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body[cap] = json!(model.max_tokens);
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.to_vec());
    }
    body
}

/// Reads a chat completion; `Err` says what is missing.
pub(super) fn parse(reply: &Value) -> Result<ModelReply, String> {
    let message = reply
        .pointer("/choices/0/message")
        .filter(|m| m.is_object())
        .ok_or_else(
            || match reply.pointer("/error/message").and_then(Value::as_str) {
                Some(msg) => format!("an error instead of a completion: {msg}"),
                None => "no `choices[0].message`".to_owned(),
            },
        )?;
    let text = match message.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(_) => return Err("`message.content` is neither text nor null".into()),
    };
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls").filter(|v| !v.is_null()) {
        let list = list
            .as_array()
            .ok_or("`message.tool_calls` is not an array")?;
        for (i, call) in list.iter().enumerate() {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("`tool_calls[{i}].function.name` is missing"))?;
            let raw = match call.pointer("/function/arguments") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                // Some servers send the object itself.
                Some(other) => other.to_string(),
            };
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("call_{i}"), str::to_owned);
            calls.push(ToolCallRequest {
                id,
                name: name.to_owned(),
                arguments: parse_arguments(&raw),
                raw_arguments: raw,
            });
        }
    }
    let usage = reply.get("usage");
    Ok(ModelReply {
        text,
        calls,
        native: None,
        usage: RequestUsage {
            input_tokens: count(usage.and_then(|u| u.get("prompt_tokens"))),
            output_tokens: count(usage.and_then(|u| u.get("completion_tokens"))),
            cached_input_tokens: count(
                usage.and_then(|u| u.pointer("/prompt_tokens_details/cached_tokens")),
            ),
            ..RequestUsage::default()
        },
        paused: false,
        repetition: None,
    })
}

/// A user message carrying the images of a turn's tool results, each
/// after a line naming the call it came from; `None` without images.
fn images_message(outcomes: &[ToolOutcome]) -> Option<Value> {
    let mut parts = Vec::new();
    for outcome in outcomes.iter().filter(|o| !o.images.is_empty()) {
        parts.push(json!({
            "type": "text",
            "text": format!("Images returned by `{}` (call {}):", outcome.name, outcome.id),
        }));
        for image in &outcome.images {
            if let Content::Image { data, mime_type } = image {
                parts.push(json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:{mime_type};base64,{data}")},
                }));
            }
        }
    }
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
}
