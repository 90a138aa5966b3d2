//! Tools for models without native tool calling: a readable rendering
//! for the system prompt, and the parser of the calls they write back.

use serde_json::{Map, Value};

use crate::tool::Tool;

mod announced;
mod written;
pub use announced::read_announced_calls;
pub use written::written_json;

/// How a text-only model is told to call a tool.
pub const TEXT_CALL_INSTRUCTIONS: &str = "To call a tool, reply with exactly one fenced JSON block and nothing else:\n```json\n{\"tool\": \"<name>\", \"arguments\": {<arguments>}}\n```";

/// Renders tools and the lazy note as compact, readable text.
pub fn render_text(tools: &[&Tool], note: Option<&str>) -> String {
    render_text_with(tools, note, false)
}

/// [`render_text`], with each tool's example calls as `Example:` lines when
/// `examples` is set.
pub fn render_text_with(tools: &[&Tool], note: Option<&str>, examples: bool) -> String {
    let mut out = String::from("# Tools\n");
    out.push_str(TEXT_CALL_INSTRUCTIONS);
    out.push('\n');
    for tool in tools {
        let description = if examples {
            super::description_with_examples(tool)
        } else {
            tool.description().to_owned()
        };
        out.push_str(&format!("\n## {}\n{}\n", tool.name(), description));
        let schema = tool.input_schema();
        let props = schema.get("properties").and_then(Value::as_object);
        match props {
            Some(props) if !props.is_empty() => {
                out.push_str("Arguments:\n");
                for (name, prop) in props {
                    let required = crate::schema::is_required(schema, name);
                    out.push_str(&format!("- {name} ({}", type_label(prop, schema)));
                    out.push_str(if required { ", required" } else { ", optional" });
                    if let Some(d) = prop.get("default") {
                        out.push_str(&format!(", default {d}"));
                    }
                    out.push(')');
                    if let Some(d) = prop.get("description").and_then(Value::as_str) {
                        out.push_str(": ");
                        out.push_str(&d.replace('\n', " "));
                    }
                    out.push('\n');
                }
            }
            _ => out.push_str("Arguments: none\n"),
        }
    }
    if let Some(note) = note {
        out.push('\n');
        out.push_str(note);
        out.push('\n');
    }
    out
}

fn one_of(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("one of {}", shown.join(", "))
}

fn type_label(prop: &Value, root: &Value) -> String {
    if let Some(r) = prop.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        if let Some(target) = root.pointer(&format!("/$defs/{name}")) {
            if let Some(values) = target.get("enum").and_then(Value::as_array) {
                return one_of(values);
            }
            return format!("object {name}: {}", compact(target));
        }
    }
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        return one_of(values);
    }
    match prop.get("type") {
        Some(Value::String(t)) if t == "array" => match prop.get("items") {
            Some(items) => format!("array of {}", type_label(items, root)),
            None => "array".to_owned(),
        },
        Some(Value::String(t)) if t == "object" && prop.get("properties").is_some() => {
            format!("object: {}", compact(prop))
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if prop.get("anyOf").is_some() || prop.get("oneOf").is_some() => {
            format!("schema {}", compact(prop))
        }
        _ => "any".to_owned(),
    }
}

fn compact(schema: &Value) -> String {
    let s = schema.to_string();
    if s.chars().count() <= 400 {
        return s;
    }
    let mut cut: String = s.chars().take(400).collect();
    cut.push('…');
    cut
}

/// A tool call parsed from a text model's reply by [`parse_text_call`]:
/// for models without native tool calling, rendered with
/// [`Dialect::Text`](super::Dialect::Text).
///
/// ```
/// use optimclaw::provider::parse_text_call;
///
/// let reply = "```json\n{\"tool\": \"calculate\", \"arguments\": {\"expression\": \"6*7\"}}\n```";
/// let call = parse_text_call(reply)?.expect("a call");
/// assert_eq!(call.tool, "calculate");
/// assert!(parse_text_call("The answer is 42.")?.is_none());
/// # Ok::<(), optimclaw::provider::TextCallError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TextCall {
    /// The tool name.
    pub tool: String,
    /// The arguments object.
    pub arguments: Value,
}

/// Why a reply that tries to call a tool could not be read; the text says
/// what to fix, for sending back to the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TextCallError(pub String);

/// Reads a text model's reply: `Ok(None)` for a plain answer,
/// `Ok(Some(call))` for one fenced JSON object `{"tool", "arguments"}`, and
/// an error saying what to fix for anything in between (several calls,
/// broken JSON, a missing `tool`, arguments that are not an object).
pub fn parse_text_call(reply: &str) -> Result<Option<TextCall>, TextCallError> {
    let blocks = fenced_blocks(reply);
    let candidates: Vec<&str> = if blocks.is_empty() {
        let trimmed = reply.trim();
        if trimmed.starts_with('{') && trimmed.contains("\"tool\"") {
            vec![trimmed]
        } else {
            return Ok(None);
        }
    } else {
        blocks
            .into_iter()
            .filter(|(lang, body)| {
                lang.eq_ignore_ascii_case("json") || body.trim_start().starts_with('{')
            })
            .map(|(_, body)| body)
            .collect()
    };
    match candidates.len() {
        0 => return Ok(None),
        1 => {}
        n => {
            return Err(TextCallError(format!(
                "the reply has {n} JSON blocks; call one tool per reply with exactly one fenced JSON block"
            )));
        }
    }
    let value: Value = serde_json::from_str(candidates[0].trim()).map_err(|e| {
        TextCallError(format!(
            "the tool call is not valid JSON ({e}); send {{\"tool\": \"<name>\", \"arguments\": {{…}}}}"
        ))
    })?;
    let Value::Object(mut obj) = value else {
        return Err(TextCallError(
            "the tool call must be a JSON object {\"tool\": …, \"arguments\": …}".into(),
        ));
    };
    let tool = match obj.remove("tool") {
        Some(Value::String(t)) if !t.trim().is_empty() => t.trim().to_owned(),
        Some(_) => {
            return Err(TextCallError(
                "\"tool\" must be a non-empty string naming the tool".into(),
            ));
        }
        None => {
            return Err(TextCallError(
                "the tool call has no \"tool\" field naming the tool".into(),
            ));
        }
    };
    let arguments = match obj.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a @ Value::Object(_)) => a,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(a @ Value::Object(_)) => a,
            _ => return Err(TextCallError("\"arguments\" must be a JSON object".into())),
        },
        Some(_) => return Err(TextCallError("\"arguments\" must be a JSON object".into())),
    };
    if let Some(extra) = obj.keys().next() {
        return Err(TextCallError(format!(
            "unexpected field \"{extra}\" in the tool call; only \"tool\" and \"arguments\" are read"
        )));
    }
    Ok(Some(TextCall { tool, arguments }))
}

/// `(language, body)` of each fenced code block. An unterminated block is
/// read to the end of the reply.
fn fenced_blocks(text: &str) -> Vec<(&str, &str)> {
    fenced_parts(text).0
}

/// The fenced code blocks of `text` as `(language, body)`, and how many
/// characters of (trimmed) text are outside them.
fn fenced_parts(text: &str) -> (Vec<(&str, &str)>, usize) {
    let mut out = Vec::new();
    let mut prose = 0;
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        prose += rest[..start].trim().chars().count();
        let after = &rest[start + 3..];
        let (lang, body_start) = match after.find('\n') {
            Some(nl) => (after[..nl].trim(), nl + 1),
            None => (after.trim(), after.len()),
        };
        let body_all = &after[body_start..];
        match body_all.find("```") {
            Some(end) => {
                out.push((lang, &body_all[..end]));
                rest = &body_all[end + 3..];
            }
            None => {
                out.push((lang, body_all));
                rest = "";
                break;
            }
        }
    }
    prose += rest.trim().chars().count();
    (out, prose)
}

/// Text outside fenced blocks that still lets them be read as calls by
/// [`read_text_calls`] ("Sure, here is the call:"). A longer text is an
/// answer that shows JSON, not a call.
pub const MAX_CALL_PROSE: usize = 120;

/// A call [`read_text_calls`] found in a reply's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenCall {
    /// The tool name.
    pub tool: String,
    /// The arguments as written: a JSON text (empty when there were none;
    /// not checked to be an object, so its errors can be told to the model).
    pub raw_arguments: String,
}

/// The calls a reply's text holds, or `None` when it is an answer: what
/// small models served with their own chat template write (llama.cpp,
/// Ollama and vLLM without a tool parser return it as plain `content`).
/// Lenient where [`parse_text_call`] is strict, and for any format:
///
/// - `<tool_call>{…}</tool_call>` (one or more, the last closing tag may be
///   missing): always calls;
/// - the whole reply one JSON object `{"name": …, "arguments": {…}}`, an
///   array of them, or several one per line, with at most
///   [`MAX_CALL_PROSE`] characters of text after them or a last object
///   cut short (a reply that ran into its output cap), or one object
///   short of its last closing brace, also after
///   Mistral's `[TOOL_CALLS]` or Llama 3's `<|python_tag|>`;
/// - fenced blocks (` ```json ` or plain) holding such objects, with at
///   most [`MAX_CALL_PROSE`] characters of text outside them.
///
/// The slips small models make in strings are mended ([`written_json`]:
/// single quotes, a backslash JSON does not escape, a line break written
/// inside a string); nothing else that is not JSON is read.
/// The name may be under `name` or `tool`; the arguments under
/// `arguments`, `parameters` or `args`, as an object or a JSON text. A
/// field beside an arguments object is read as one more argument (small
/// models write one a level too high) unless it is a field of a tool's
/// definition (`description`, `type`, …); an object with any other field
/// is not a call, and every call must name a
/// tool `is_tool` knows: prose that shows JSON stays prose. Objects after
/// the calls that are no calls are left out (a small model writes its
/// call, then the result it imagines); a reply whose first object is no
/// call is an answer. The same call written twice is read once.
///
/// ```
/// use optimclaw::provider::read_text_calls;
/// let is_tool = |name: &str| name == "calculate";
/// let calls = read_text_calls(
///     "```json\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2+2\"}}\n```",
///     is_tool,
/// )
/// .unwrap();
/// assert_eq!(calls[0].tool, "calculate");
/// assert_eq!(calls[0].raw_arguments, r#"{"expression":"2+2"}"#);
/// assert!(read_text_calls(r#"{"result": 4}"#, is_tool).is_none());
/// ```
pub fn read_text_calls(text: &str, is_tool: impl Fn(&str) -> bool) -> Option<Vec<WrittenCall>> {
    let objects = tagged(text)
        .or_else(|| whole(text))
        .or_else(|| fenced(text))?;
    let mut calls = Vec::with_capacity(objects.len());
    for object in objects {
        let Some(call) = as_call(&object) else {
            // Objects after the calls: a result the model imagined for
            // them (small models write the call, then what it returns).
            // An object that is no call before any call: data, not a call.
            break;
        };
        if !is_tool(&call.tool) {
            return None;
        }
        // The same call again in one reply is a model repeating itself
        // (until its output cap), not a second call.
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    (!calls.is_empty()).then_some(calls)
}

/// Tokens a chat template may put before a model's calls, read past.
const CALL_MARKERS: [&str; 2] = ["[TOOL_CALLS]", "<|python_tag|>"];

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
        objects.extend(json_objects(body.trim())?);
    }
    Some(objects)
}

/// The whole reply as one JSON object or an array of objects, or objects
/// in a row followed by at most [`MAX_CALL_PROSE`] characters of text or
/// by an object cut short (a reply that ran into its output cap).
fn whole(text: &str) -> Option<Vec<Value>> {
    let mut trimmed = text.trim();
    // The markers some models' templates put before their calls when the
    // server does not parse them: Mistral's and Llama 3's.
    for marker in CALL_MARKERS {
        if let Some(rest) = trimmed.strip_prefix(marker) {
            trimmed = rest.trim_start();
        }
    }
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    json_objects(trimmed)
        .or_else(|| leading_objects(trimmed))
        .or_else(|| short_of_one_brace(trimmed))
}

/// A reply that is one object but for its last closing brace: small models
/// miscount the braces that close a call (`{"name": "f", "arguments":
/// {"x": 1}` and the end of the reply). Only one brace is added, so the
/// arguments are whole as the model wrote them; anything else cut short
/// stays unread.
fn short_of_one_brace(text: &str) -> Option<Vec<Value>> {
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(&format!("{text}}}")) {
        Ok(Value::Object(map)) => Some(vec![Value::Object(map)]),
        _ => None,
    }
}

fn leading_objects(text: &str) -> Option<Vec<Value>> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut objects = Vec::new();
    loop {
        match stream.next() {
            Some(Ok(Value::Object(map))) => objects.push(Value::Object(map)),
            Some(Ok(_)) => return None,
            // Cut short at the end: what came before stands.
            Some(Err(e)) if e.is_eof() => break,
            Some(Err(_)) => {
                let rest = text.get(stream.byte_offset()..).unwrap_or("");
                if rest.trim().chars().count() > MAX_CALL_PROSE {
                    return None;
                }
                break;
            }
            None => break,
        }
    }
    (!objects.is_empty()).then_some(objects)
}

/// Fenced blocks (```json or plain ```) with little prose around them.
fn fenced(text: &str) -> Option<Vec<Value>> {
    let (blocks, prose) = fenced_parts(text);
    let mut objects = Vec::new();
    for (lang, body) in blocks {
        if !lang.is_empty() && !lang.eq_ignore_ascii_case("json") {
            return None;
        }
        objects.extend(json_objects(body.trim())?);
    }
    (!objects.is_empty() && prose <= MAX_CALL_PROSE).then_some(objects)
}

/// A JSON object, an array of objects, or objects one per line; strict
/// JSON, else with its strings mended ([`written`]).
fn json_objects(text: &str) -> Option<Vec<Value>> {
    strict_objects(text).or_else(|| strict_objects(&written::mend(text)?))
}

fn strict_objects(text: &str) -> Option<Vec<Value>> {
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

/// Fields of a tool's *definition*: an object holding one beside a name is
/// a tool described (a small model echoing its tool list), not a call.
const DEFINITION_FIELDS: [&str; 6] = [
    "description",
    "type",
    "function",
    "properties",
    "required",
    "input_schema",
];

/// `{"name": …, "arguments": …}` as a call; `None` for any other object.
/// A field beside an arguments object is an argument written one level too
/// high (`{"name": "regex_replace", "arguments": {"pattern": " "}, "text":
/// "a b c"}`, as small models write): it is read into the arguments, unless
/// the arguments hold it already or it is a field of a tool's definition.
fn as_call(object: &Value) -> Option<WrittenCall> {
    let map = object.as_object()?;
    // `tool` is what the text dialect's instructions ask for.
    let (name_key, name) = ["name", "tool"]
        .iter()
        .find_map(|key| map.get(*key).map(|v| (*key, v)))?;
    let name = name.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let arguments = ["arguments", "parameters", "args"]
        .iter()
        .find_map(|key| map.get(*key).map(|v| (*key, v)));
    let extra: Vec<(&String, &Value)> = map
        .iter()
        .filter(|(k, _)| *k != name_key && Some(k.as_str()) != arguments.map(|(key, _)| key))
        .collect();
    let raw_arguments = match (arguments.map(|(_, v)| v), extra.is_empty()) {
        (None | Some(Value::Null), true) => String::new(),
        (Some(Value::String(text)), true) => text.clone(),
        (Some(other), true) => other.to_string(),
        (Some(Value::Object(args)), false) => {
            let mut merged = args.clone();
            for (key, value) in extra {
                if DEFINITION_FIELDS.contains(&key.as_str()) || merged.contains_key(key) {
                    return None;
                }
                merged.insert(key.clone(), value.clone());
            }
            Value::Object(merged).to_string()
        }
        // Anything else beside the name: not a call.
        _ => return None,
    };
    Some(WrittenCall {
        tool: name.to_owned(),
        raw_arguments,
    })
}

#[cfg(test)]
mod tests;
