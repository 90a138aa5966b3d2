//! The OpenAI Responses API's own deferral: deferred tools grouped into
//! `namespace` tools, a client-executed `tool_search` answered by our
//! search, and the input item that carries its answer back.

use serde_json::{Value, json};

use super::describe::{Degraded, describe_tool, model_schema};
use super::{Dialect, RenderOptions, mark_deferred};
use crate::tool::Tool;
use crate::tool_info_answer::ToolInfoAnswer;

/// Deferred tools for the Responses API's native deferral: tools named
/// `server__tool` grouped into one `namespace` tool per server prefix, the
/// rest as function tools; every function with `defer_loading: true`.
pub(super) fn namespaces(
    deferred: &[&Tool],
    options: RenderOptions,
    degraded: &mut Vec<Degraded>,
) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut groups: std::collections::BTreeMap<&str, Vec<Value>> =
        std::collections::BTreeMap::new();
    for tool in deferred {
        let described = describe_tool(tool, Dialect::OpenAiResponses, options);
        degraded.extend(described.degraded);
        let Some(mut spec) = described.spec else {
            continue;
        };
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
    out
}

/// The Responses API's `tool_search`, executed by the client (our search):
/// `tool_info`'s description and parameters.
pub(super) fn client_tool_search(tool_info: &Tool) -> Value {
    json!({
        "type": "tool_search",
        "execution": "client",
        "description": tool_info.description(),
        "parameters": model_schema(tool_info).0,
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
        .filter_map(|tool| {
            describe_tool(tool, Dialect::OpenAiResponses, RenderOptions::default()).spec
        })
        .collect();
    json!({
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    })
}
