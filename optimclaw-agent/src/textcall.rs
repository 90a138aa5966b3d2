//! Tool calls written as text. Small models served with their own chat
//! template (llama.cpp, Ollama and vLLM without a tool parser) write a call
//! as a bare JSON object, a fenced `json` block or inside `<tool_call>`
//! tags, and the server returns it as plain `content`. This reads such a
//! reply as the calls it holds; prose stays prose.
//!
//! A reply is read as calls only when every part of it that looks like a
//! call is one, naming a tool the caller knows, and nothing but short
//! prose is around it:
//!
//! - `<tool_call>{…}</tool_call>` (one or more): always calls;
//! - the whole reply one JSON object `{"name": …, "arguments": {…}}` (or an
//!   array of them);
//! - one or more fenced blocks holding such objects, with at most
//!   [`MAX_PROSE`] characters of text outside them.
//!
//! The name may be under `name` or `tool` (what the text dialect asks
//! for); `arguments` may also be spelled `parameters` or `args`, and may be
//! a JSON text (as the chat-completions wire format sends it).

use serde_json::Value;

use super::ToolCallRequest;
use super::reply::parse_arguments;

/// Text outside fenced blocks that still lets them be read as calls
/// ("Sure, here is the call:"). A longer text is an answer that shows
/// JSON, not a call.
pub(super) const MAX_PROSE: usize = 120;

/// The calls `text` holds, given which names are tools, or `None` when it
/// is an answer. Call ids are `text_call_N`, counted from `first_id`.
pub(super) fn read(
    text: &str,
    is_tool: impl Fn(&str) -> bool,
    first_id: usize,
) -> Option<Vec<ToolCallRequest>> {
    let objects = tagged(text)
        .or_else(|| whole(text))
        .or_else(|| fenced(text))?;
    let mut calls = Vec::with_capacity(objects.len());
    for object in objects {
        let call = as_call(&object, first_id + calls.len())?;
        if !is_tool(&call.name) {
            return None;
        }
        calls.push(call);
    }
    (!calls.is_empty()).then_some(calls)
}

/// `<tool_call>…</tool_call>` blocks (the closing tag may be missing at
/// the end of the reply).
fn tagged(text: &str) -> Option<Vec<Value>> {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    if !text.contains(OPEN) {
        return None;
    }
    let mut objects = Vec::new();
    for part in text.split(OPEN).skip(1) {
        let body = part.split(CLOSE).next().unwrap_or(part);
        objects.extend(values(body.trim())?);
    }
    Some(objects)
}

/// The whole reply as one JSON object or an array of objects.
fn whole(text: &str) -> Option<Vec<Value>> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    values(trimmed)
}

/// Fenced blocks (```json or plain ```) with little prose around them.
fn fenced(text: &str) -> Option<Vec<Value>> {
    let mut objects = Vec::new();
    let mut prose = 0;
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        prose += rest[..start].trim().chars().count();
        let after = &rest[start + 3..];
        // The info string (`json`, `JSON`, nothing) ends at the line break.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let info = after[..body_start].trim();
        if !info.is_empty() && !info.eq_ignore_ascii_case("json") {
            return None;
        }
        let body = &after[body_start..];
        let end = body.find("```").unwrap_or(body.len());
        objects.extend(values(body[..end].trim())?);
        rest = body.get(end + 3..).unwrap_or("");
    }
    prose += rest.trim().chars().count();
    (!objects.is_empty() && prose <= MAX_PROSE).then_some(objects)
}

/// A JSON object, an array of objects, or objects one per line.
fn values(text: &str) -> Option<Vec<Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Some(vec![Value::Object(map)]),
        Ok(Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_object) => {
            Some(items)
        }
        Ok(_) => None,
        Err(_) => {
            // Several objects in a row ("{…}\n{…}").
            let items: Vec<Value> = serde_json::Deserializer::from_str(text)
                .into_iter::<Value>()
                .collect::<Result<_, _>>()
                .ok()?;
            (items.len() > 1 && items.iter().all(Value::is_object)).then_some(items)
        }
    }
}

/// `{"name": …, "arguments": …}` as a call; `None` for any other object.
fn as_call(object: &Value, n: usize) -> Option<ToolCallRequest> {
    let map = object.as_object()?;
    // `tool` is what the text dialect's instructions ask for.
    let name = ["name", "tool"]
        .iter()
        .find_map(|key| map.get(*key))?
        .as_str()?
        .trim();
    if name.is_empty() {
        return None;
    }
    let arguments = ["arguments", "parameters", "args"]
        .iter()
        .find_map(|key| map.get(*key));
    // Anything else beside the name and the arguments: not a call.
    if map.len() > 1 + usize::from(arguments.is_some()) {
        return None;
    }
    let raw = match arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    Some(ToolCallRequest {
        id: format!("text_call_{n}"),
        name: name.to_owned(),
        arguments: parse_arguments(&raw),
        raw_arguments: raw,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools(name: &str) -> bool {
        matches!(name, "base64_encode" | "calculate" | "tool_info")
    }

    fn names(text: &str) -> Option<Vec<String>> {
        read(text, tools, 0).map(|calls| calls.into_iter().map(|c| c.name).collect())
    }

    #[test]
    fn a_bare_object_is_a_call() {
        let calls = read(
            r#"{"name": "base64_encode", "arguments": {"text": "hello world"}}"#,
            tools,
            3,
        )
        .unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].id, "text_call_3");
        assert_eq!(calls[0].arguments, Ok(json!({"text": "hello world"})));
    }

    #[test]
    fn fenced_blocks_tags_and_arrays_are_calls() {
        let fenced =
            "```json\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2+2\"}}\n```";
        assert_eq!(names(fenced).unwrap(), ["calculate"]);
        let tagged = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": \"{\\\"expression\\\": \\\"1\\\"}\"}\n</tool_call>\n<tool_call>{\"name\": \"tool_info\", \"arguments\": {\"query\": \"time\"}}</tool_call>";
        assert_eq!(names(tagged).unwrap(), ["calculate", "tool_info"]);
        let array = r#"[{"name": "calculate", "parameters": {"expression": "1"}}, {"name": "tool_info", "args": {"query": "x"}}]"#;
        assert_eq!(names(array).unwrap(), ["calculate", "tool_info"]);
        let lines = "{\"name\": \"calculate\", \"arguments\": {}}\n{\"name\": \"tool_info\", \"arguments\": {}}";
        assert_eq!(names(lines).unwrap(), ["calculate", "tool_info"]);
        let short_prose =
            "Sure:\n```\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"3\"}}\n```";
        assert_eq!(names(short_prose).unwrap(), ["calculate"]);
    }

    #[test]
    fn prose_stays_prose() {
        // An answer that shows JSON, with a lot of text around it.
        let answer = format!(
            "To encode text, you would call the tool like this:\n```json\n{}\n```\n{}",
            r#"{"name": "base64_encode", "arguments": {"text": "hi"}}"#,
            "It returns the encoded text, which you can then paste wherever you need it. Let me know if you want me to run it for you."
        );
        assert_eq!(names(&answer), None);
        // Plain answers, JSON data, unknown names, other fields, other languages.
        assert_eq!(names("The answer is 42."), None);
        assert_eq!(names(r#"{"result": 126}"#), None);
        assert_eq!(names(r#"{"name": "Alice", "age": 30}"#), None);
        assert_eq!(names(r#"{"name": "launch_rocket", "arguments": {}}"#), None);
        assert_eq!(
            names("```python\nprint({\"name\": \"calculate\", \"arguments\": {}})\n```"),
            None
        );
        assert_eq!(names("[1, 2, 3]"), None);
    }

    #[test]
    fn arguments_that_are_not_an_object_stay_a_call_with_an_error() {
        let calls = read(r#"{"name": "calculate", "arguments": "2+2"}"#, tools, 0).unwrap();
        assert!(calls[0].arguments.is_err());
    }
}
