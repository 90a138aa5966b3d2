//! Tools for models without native tool calling: a readable rendering
//! for the system prompt, and the parser of the calls they write back.

use serde_json::{Map, Value};

use crate::tool::Tool;

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
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
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
                break;
            }
        }
    }
    out
}
