//! Tool calls written as text, read by the core's
//! [`read_text_calls`](optimclaw::provider::read_text_calls) (bare JSON,
//! fenced blocks, `<tool_call>` tags, several at once; prose stays prose)
//! and turned into the loop's call requests.

use optimclaw::provider::{WrittenCall, read_text_calls, written_json};

use super::ToolCallRequest;
use super::reply::parse_arguments;

/// The calls `text` holds, given which names are tools, or `None` when it
/// is an answer. Call ids are `text_call_N`, counted from `first_id`.
pub(super) fn read(
    text: &str,
    is_tool: impl Fn(&str) -> bool,
    first_id: usize,
) -> Option<Vec<ToolCallRequest>> {
    Some(requests(read_text_calls(text, is_tool)?, first_id))
}

/// Written calls (from [`read_text_calls`] or
/// [`read_announced_calls`](optimclaw::provider::read_announced_calls)) as
/// call requests with ids `text_call_N`, counted from `first_id`.
pub(super) fn requests(calls: Vec<WrittenCall>, first_id: usize) -> Vec<ToolCallRequest> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, call)| ToolCallRequest {
            id: format!("text_call_{}", first_id + i),
            name: call.tool,
            arguments: parse_arguments(&call.raw_arguments),
            raw_arguments: json_text(call.raw_arguments),
        })
        .collect()
}

/// A reply that is one JSON object (bare or in one fence) naming a tool
/// under `name` or `tool`, with the tool's parameters beside the name
/// instead of under `arguments` (`{"name": "regex_find", "text": "…",
/// "pattern": "…"}`, as small models write): that call, when every other
/// field is one of the parameters `parameters_of` gives for the tool. An
/// object with any other field stays an answer.
pub(super) fn read_flat<'a>(
    text: &str,
    parameters_of: impl Fn(&str) -> Option<&'a serde_json::Map<String, serde_json::Value>>,
    id: usize,
) -> Option<ToolCallRequest> {
    let serde_json::Value::Object(mut map) = written_json(text)? else {
        return None;
    };
    let key = ["name", "tool"]
        .into_iter()
        .find(|k| map.contains_key(*k))?;
    let serde_json::Value::String(name) = map.remove(key)? else {
        return None;
    };
    let parameters = parameters_of(&name)?;
    if map.is_empty() || !map.keys().all(|k| parameters.contains_key(k)) {
        return None;
    }
    Some(request(name, map, id))
}

/// A reply that is nothing but one tool's arguments, bare or in one fence
/// (`{"csv": "fruit,price\napple,3", "delimiter": ","}`, as small models
/// write when they fill in a schema they were shown), or those arguments
/// in the first fenced block after prose that names the tool in backticks:
/// the call of the one tool among `tools` (name, input schema) whose
/// parameters take every field and whose required parameters are all
/// there. `None` when no tool fits or more than one does (`{"text": …}`
/// fits many).
pub(super) fn read_arguments_only<'a>(
    text: &str,
    tools: impl Iterator<Item = (&'a str, &'a serde_json::Value)>,
    id: usize,
) -> Option<ToolCallRequest> {
    let text = text.trim();
    let (prose, block) = match text.find("```") {
        Some(fence) if fence > 0 => {
            // The first block, to its closing fence; prose after it is left.
            let block = &text[fence..];
            let body = block.find('\n').unwrap_or(block.len());
            let end = block[body..]
                .find("```")
                .map_or(block.len(), |e| body + e + 3);
            (&text[..fence], &block[..end])
        }
        _ => ("", text),
    };
    let serde_json::Value::Object(map) = written_json(block)? else {
        return None;
    };
    if map.is_empty() {
        return None;
    }
    let takes = |schema: &serde_json::Value| {
        let properties = schema["properties"].as_object();
        let required = schema["required"].as_array().map_or(&[][..], Vec::as_slice);
        map.keys()
            .all(|k| properties.is_some_and(|p| p.contains_key(k)))
            && required
                .iter()
                .all(|r| r.as_str().is_some_and(|r| map.contains_key(r)))
    };
    let mut fits = tools.filter(|(_, schema)| takes(schema));
    let (name, _) = fits.next()?;
    if fits.next().is_some() || (!prose.is_empty() && !prose.contains(&format!("`{name}`"))) {
        return None;
    }
    Some(request(name.to_owned(), map, id))
}

/// The call request `text_call_{id}` of `name` with arguments `map`.
fn request(
    name: String,
    map: serde_json::Map<String, serde_json::Value>,
    id: usize,
) -> ToolCallRequest {
    let arguments = serde_json::Value::Object(map);
    ToolCallRequest {
        id: format!("text_call_{id}"),
        name,
        raw_arguments: arguments.to_string(),
        arguments: Ok(arguments),
    }
}

/// A written call's arguments as the history sends them back: as written
/// when they are JSON, else as a JSON string of that text (`{}` for none).
/// Servers that render the history through a chat template (llama.cpp,
/// vLLM) parse them, and refuse the request for text that is not JSON
/// (`{"name": "f", "arguments": "hello"}`).
fn json_text(raw: String) -> String {
    if raw.trim().is_empty() {
        return "{}".to_owned();
    }
    match serde_json::from_str::<serde_json::Value>(&raw) {
        Ok(_) => raw,
        Err(_) => serde_json::Value::String(raw).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools(name: &str) -> bool {
        matches!(name, "base64_encode" | "calculate")
    }

    #[test]
    fn calls_get_numbered_ids_and_parsed_arguments() {
        let calls = read(
            "<tool_call>{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"hi\"}}</tool_call><tool_call>{\"name\": \"calculate\", \"arguments\": \"2+2\"}</tool_call>",
            tools,
            3,
        )
        .unwrap();
        assert_eq!(calls[0].id, "text_call_3");
        assert_eq!(calls[0].arguments, Ok(json!({"text": "hi"})));
        assert_eq!(calls[1].id, "text_call_4");
        assert!(
            calls[1].arguments.is_err(),
            "not an object: told to the model"
        );
        // Text that is no JSON goes back in the history as a JSON string.
        assert_eq!(calls[1].raw_arguments, r#""2+2""#);
        assert!(read("The answer is 4.", tools, 0).is_none());
    }

    #[test]
    fn a_call_with_its_parameters_beside_the_name_is_read() {
        let parameters = json!({"text": {"type": "string"}, "pattern": {"type": "string"}});
        let parameters = parameters.as_object().unwrap();
        let of = |name: &str| (name == "regex_find").then_some(parameters);
        let flat = r#"{"name": "regex_find", "text": "a1 b2", "pattern": "[0-9]"}"#;
        let call = read_flat(flat, of, 2).unwrap();
        assert_eq!(call.name, "regex_find");
        assert_eq!(call.id, "text_call_2");
        assert_eq!(
            call.arguments,
            Ok(json!({"text": "a1 b2", "pattern": "[0-9]"}))
        );
        let fenced = format!("```json\n{flat}\n```");
        assert!(read_flat(&fenced, of, 0).is_some());
        // A field that is no parameter, another tool, a name alone, prose.
        for text in [
            r#"{"name": "regex_find", "text": "a", "result": ["1"]}"#,
            r#"{"name": "calculate", "text": "a"}"#,
            r#"{"name": "regex_find"}"#,
            r#"The call is {"name": "regex_find", "text": "a"}"#,
        ] {
            assert!(read_flat(text, of, 0).is_none(), "{text}");
        }
    }

    #[test]
    fn a_reply_of_one_tools_arguments_alone_is_its_call() {
        let csv = json!({"type": "object", "properties": {"csv": {}, "delimiter": {}}, "required": ["csv"]});
        let text = json!({"type": "object", "properties": {"text": {}}, "required": ["text"]});
        let tools = || {
            [
                ("csv_to_json", &csv),
                ("echo", &text),
                ("base64_encode", &text),
            ]
            .into_iter()
        };
        let written =
            "```json\n{\n  \"csv\": \"fruit,price\\napple,3\",\n  \"delimiter\": \",\"\n}\n```";
        let call = read_arguments_only(written, tools(), 4).unwrap();
        assert_eq!(call.name, "csv_to_json");
        assert_eq!(call.id, "text_call_4");
        assert_eq!(
            call.arguments,
            Ok(json!({"csv": "fruit,price\napple,3", "delimiter": ","}))
        );
        // After prose that names the tool, with prose after the block.
        let announced = format!(
            "You can use the `csv_to_json` tool. Here's how:\n\n{written}\n\nThis outputs the JSON."
        );
        assert_eq!(
            read_arguments_only(&announced, tools(), 0).unwrap().name,
            "csv_to_json"
        );
        for answer in [
            // Fits two tools; fits none; misses a required field; empty.
            r#"{"text": "hi"}"#,
            r#"{"fruit": "apple", "price": 3}"#,
            r#"{"delimiter": ";"}"#,
            "{}",
            // Prose that names no tool, or another one.
            "Like this:\n```json\n{\"csv\": \"a\\n1\"}\n```",
            "Use `echo`:\n```json\n{\"csv\": \"a\\n1\"}\n```",
            "The answer is 4.",
        ] {
            assert!(
                read_arguments_only(answer, tools(), 0).is_none(),
                "{answer}"
            );
        }
    }
}
