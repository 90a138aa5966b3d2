//! The least a lazy conversation could cost: eager's own requests, with
//! the lazy prompt's fixed part (core tools, `tool_info`, `call_tool`, the
//! note) in place of the whole catalog, and each deferred tool the
//! conversation needs attached once, to the first message that needs it,
//! as preload attaches it. No search, no wrong attachment, and the calls
//! stay as eager made them (without the bridge's few extra tokens), so no
//! lazy strategy can cost less on the same conversation.

use std::collections::{HashMap, HashSet};

use optimclaw::Registry;
use optimclaw_agent::WireFormat;
use serde_json::{Value, json};

use crate::standin::Task;

/// The attachment text of each message that is the first to need a
/// deferred tool; `headers` are the lines preload puts before the schemas
/// (the first attachment's, then a later one's).
fn attachments(registry: &Registry, tasks: &[Task], headers: &Headers) -> HashMap<String, String> {
    let mut seen = HashSet::new();
    let mut out = HashMap::new();
    for task in tasks {
        let Some(name) = task.tool else { continue };
        let Some(tool) = registry.get(name) else {
            continue;
        };
        if tool.is_core() || !seen.insert(name) {
            continue;
        }
        let header = if out.is_empty() {
            &headers.first
        } else {
            &headers.later
        };
        let schema = json!({"name": name, "description": tool.description(), "parameters": tool.input_schema()});
        out.insert(task.message.clone(), format!("{header}\n{schema}"));
    }
    out
}

/// The header lines of a run's attachments: the first one's, and a later
/// one's (the same when only one was attached).
struct Headers {
    first: String,
    later: String,
}

/// The header lines of the attachments in `lazy` (a run with preload).
fn headers(lazy: &[Value]) -> Option<Headers> {
    let mut lines = lazy.iter().flat_map(|body| {
        let messages = body["messages"].as_array().map_or(&[][..], Vec::as_slice);
        messages.iter().filter_map(|m| {
            let parts = m["content"].as_array()?;
            parts.iter().skip(1).find_map(|p| {
                let t = p["text"].as_str()?;
                t.starts_with('[')
                    .then(|| t.lines().next().map(str::to_owned))
                    .flatten()
            })
        })
    });
    let first = lines.next()?;
    // Every body repeats the history: the first line that differs is the
    // header of a later attachment.
    let later = lines.find(|l| *l != first).unwrap_or_else(|| first.clone());
    Some(Headers { first, later })
}

/// The lower-bound bodies, from an eager run's and a lazy run's bodies of
/// the same conversation; `None` when the lazy run attached nothing (no
/// header line to copy).
pub fn bodies(
    format: WireFormat,
    registry: &Registry,
    tasks: &[Task],
    eager: &[Value],
    lazy: &[Value],
) -> Option<Vec<Value>> {
    let attach = attachments(registry, tasks, &headers(lazy)?);
    let first = lazy.first()?;
    Some(
        eager
            .iter()
            .map(|body| {
                let mut body = body.clone();
                body["tools"] = first["tools"].clone();
                match format {
                    WireFormat::OpenAiChat => openai(&mut body, first, &attach),
                    WireFormat::AnthropicMessages => anthropic(&mut body, first, &attach),
                }
                body
            })
            .collect(),
    )
}

/// Chat Completions: the lazy note as the first message, attachments as a
/// second text part of the user message.
fn openai(body: &mut Value, lazy: &Value, attach: &HashMap<String, String>) {
    let Some(messages) = body["messages"].as_array_mut() else {
        return;
    };
    for m in messages.iter_mut() {
        let Some(text) = m["content"].as_str() else {
            continue;
        };
        if m["role"] == "user"
            && let Some(a) = attach.get(text)
        {
            m["content"] = json!([{"type": "text", "text": text}, {"type": "text", "text": a}]);
        }
    }
    if let Some(note) = lazy["messages"]
        .get(0)
        .filter(|m| m["role"] == "system")
        .cloned()
    {
        messages.insert(0, note);
    }
}

/// Messages: the lazy system blocks; attachments as a second text block,
/// the message's cache breakpoint moved to it (a breakpoint stands at the
/// end of its message).
fn anthropic(body: &mut Value, lazy: &Value, attach: &HashMap<String, String>) {
    if let Some(system) = lazy.get("system") {
        body["system"] = system.clone();
    }
    let Some(messages) = body["messages"].as_array_mut() else {
        return;
    };
    for m in messages.iter_mut().filter(|m| m["role"] == "user") {
        let Some(blocks) = m["content"].as_array_mut() else {
            continue;
        };
        let Some(a) = blocks
            .first()
            .and_then(|b| b["text"].as_str())
            .and_then(|t| attach.get(t))
            .cloned()
        else {
            continue;
        };
        let mut extra = json!({"type": "text", "text": a});
        if let Some(marker) = blocks[0]
            .as_object_mut()
            .and_then(|b| b.remove("cache_control"))
        {
            extra["cache_control"] = marker;
        }
        blocks.insert(1, extra);
    }
}
