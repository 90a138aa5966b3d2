//! OpenAI function tools: chat completions (`{"type": "function",
//! "function": {…}}`), the same in strict mode, and the Responses API's flat
//! shape (strict where the schema allows).

use serde_json::{Value, json};

use super::strict::strict_schema;
use super::{Dialect, RenderOptions, SchemaError, mark_deferred, schema_for_model, tool_spec_with};
use crate::tool::Tool;
use crate::tool_info_answer::ToolInfoAnswer;

/// Chat completions.
pub(super) fn chat_spec(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "function": {"name": tool.name(), "description": tool.description(), "parameters": schema_for_model(tool)},
    })
}

/// Chat completions with `strict: true` where the schema can be strict
/// (a free-form map cannot: that tool goes out with `strict: false`).
pub(super) fn strict_spec(tool: &Tool) -> Value {
    match strict_schema(tool.input_schema()) {
        Ok(strict) => json!({
            "type": "function",
            "function": {"name": tool.name(), "description": tool.description(), "parameters": strict, "strict": true},
        }),
        Err(_) => json!({
            "type": "function",
            "function": {"name": tool.name(), "description": tool.description(), "parameters": schema_for_model(tool), "strict": false},
        }),
    }
}

/// The Responses API: flat, strict where possible.
pub(super) fn responses_spec(tool: &Tool) -> Value {
    match strict_schema(tool.input_schema()) {
        Ok(strict) => json!({
            "type": "function", "name": tool.name(), "description": tool.description(),
            "parameters": strict, "strict": true,
        }),
        Err(_) => json!({
            "type": "function", "name": tool.name(), "description": tool.description(),
            "parameters": schema_for_model(tool), "strict": false,
        }),
    }
}

/// Deferred tools for the Responses API's native deferral: tools named
/// `server__tool` grouped into one `namespace` tool per server prefix, the
/// rest as function tools; every function with `defer_loading: true`.
pub(super) fn namespaces(
    deferred: &[&Tool],
    options: RenderOptions,
) -> Result<Vec<Value>, SchemaError> {
    let mut out: Vec<Value> = Vec::new();
    let mut groups: std::collections::BTreeMap<&str, Vec<Value>> =
        std::collections::BTreeMap::new();
    for tool in deferred {
        let mut spec = tool_spec_with(tool, Dialect::OpenAiResponses, options)?;
        mark_deferred(&mut spec);
        match tool.name().split_once("__") {
            Some((prefix, _)) if !prefix.is_empty() => groups.entry(prefix).or_default().push(spec),
            _ => out.push(spec),
        }
    }
    for (prefix, tools) in groups {
        out.push(json!({
            "type": "namespace",
            "name": prefix,
            "description": format!("The {} tools of the `{prefix}` server.", tools.len()),
            "tools": tools,
        }));
    }
    Ok(out)
}

/// The Responses API's `tool_search`, executed by the client (our search):
/// `tool_info`'s description and parameters.
pub(super) fn client_tool_search(tool_info: &Tool) -> Value {
    json!({
        "type": "tool_search",
        "execution": "client",
        "description": tool_info.description(),
        "parameters": schema_for_model(tool_info),
    })
}

/// The Responses API input item answering a client `tool_search` call with
/// `tool_info`'s answer: the tools it found, as function tools the model
/// can call from then on.
pub fn tool_search_output(
    call_id: &str,
    answer: &ToolInfoAnswer,
    registry: &crate::registry::Registry,
) -> Value {
    let tools: Vec<Value> = answer
        .tools
        .iter()
        .filter(|entry| entry.parameters.is_some())
        .filter_map(|entry| registry.get(&entry.name))
        .map(responses_spec)
        .collect();
    json!({
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    })
}
