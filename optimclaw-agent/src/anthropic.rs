//! Anthropic messages: request bodies and replies.

use serde_json::{Value, json};

use super::{ModelConfig, ModelReply, RequestUsage, ToolCallRequest, ToolOutcome, Turn, count};
use optimclaw::Content;

/// The `anthropic-version` header.
pub(super) const VERSION: &str = "2023-06-01";

/// The request body for the transcript so far. Consecutive turns of one
/// role are merged into one message (tool results followed by the user's
/// next message), as the API wants roles to alternate.
pub(super) fn request(
    model: &ModelConfig,
    system: Option<&str>,
    tools: &[Value],
    transcript: &[Turn],
) -> Value {
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::with_capacity(transcript.len());
    for turn in transcript {
        let (role, blocks) = match turn {
            Turn::User(text) => ("user", vec![json!({"type": "text", "text": text})]),
            // Nothing to add: the attached tools went in `tools`.
            Turn::Attached { text, .. } if text.is_empty() => continue,
            Turn::Attached { text, .. } => ("user", vec![json!({"type": "text", "text": text})]),
            Turn::Assistant {
                native: Some(Value::Array(blocks)),
                ..
            } => ("assistant", blocks.clone()),
            Turn::Assistant { text, calls, .. } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for c in calls {
                    let input = c.arguments.clone().unwrap_or_else(|_| json!({}));
                    blocks.push(
                        json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                    );
                }
                ("assistant", blocks)
            }
            Turn::ToolResults(outcomes) => (
                "user",
                outcomes
                    .iter()
                    .map(|o| {
                        json!({
                            "type": "tool_result",
                            "tool_use_id": o.id,
                            "content": o.blocks.clone().unwrap_or_else(|| result_content(o)),
                            "is_error": o.is_error,
                        })
                    })
                    .collect(),
            ),
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = json!({
        "model": model.model,
        "max_tokens": model.max_tokens,
        "messages": messages,
    });
    if let Some(system) = system {
        body["system"] = Value::String(system.to_owned());
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools.to_vec());
    }
    body
}

/// Reads a message; `Err` says what is missing.
pub(super) fn parse(reply: &Value) -> Result<ModelReply, String> {
    if reply.get("type").and_then(Value::as_str) == Some("error") {
        let msg = reply
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        return Err(format!("an error instead of a message: {msg}"));
    }
    let blocks = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no `content` array")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => {
                let field = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .ok_or_else(|| format!("`content[{i}].{key}` is missing"))
                };
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                calls.push(ToolCallRequest {
                    id: field("id")?.to_owned(),
                    name: field("name")?.to_owned(),
                    raw_arguments: input.to_string(),
                    arguments: if input.is_object() {
                        Ok(input)
                    } else {
                        Err(format!("got {}", optimclaw::schema::json_type_name(&input)))
                    },
                });
            }
            Some(_) => {}
            None => return Err(format!("`content[{i}].type` is missing")),
        }
    }
    let usage = reply.get("usage");
    Ok(ModelReply {
        text,
        calls,
        native: Some(Value::Array(blocks.clone())),
        usage: RequestUsage {
            input_tokens: count(usage.and_then(|u| u.get("input_tokens"))),
            output_tokens: count(usage.and_then(|u| u.get("output_tokens"))),
            cached_input_tokens: count(usage.and_then(|u| u.get("cache_read_input_tokens"))),
            cache_write_tokens: count(usage.and_then(|u| u.get("cache_creation_input_tokens"))),
            ..RequestUsage::default()
        },
        paused: reply.get("stop_reason").and_then(Value::as_str) == Some("pause_turn"),
        repetition: None,
    })
}

/// A result's content: its text, and a block for each image it returned.
fn result_content(outcome: &ToolOutcome) -> Value {
    if outcome.images.is_empty() {
        return Value::String(outcome.content.clone());
    }
    let mut blocks = vec![json!({"type": "text", "text": outcome.content})];
    for image in &outcome.images {
        if let Content::Image { data, mime_type } = image {
            blocks.push(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            }));
        }
    }
    Value::Array(blocks)
}
