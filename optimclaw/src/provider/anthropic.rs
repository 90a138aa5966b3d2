//! Anthropic tools: `{name, description, input_schema}`, and Anthropic's
//! own server-side tool-search tool for native deferral.

use serde_json::{Value, json};

use crate::tool::{CALL_TOOL, RUN_CODE, TOOL_INFO, Tool};

/// Anthropic's server-side tool-search tool (regex variant).
pub const ANTHROPIC_TOOL_SEARCH: &str = "tool_search_tool_regex_20251119";

/// `input_examples` carries the tool's example calls (the field of
/// Anthropic's tool type for them).
pub(super) fn spec(tool: &Tool, input_schema: Value) -> Value {
    let mut spec = json!({
        "name": tool.name(), "description": tool.description(), "input_schema": input_schema,
    });
    if !tool.examples().is_empty() {
        spec["input_examples"] = Value::Array(tool.examples().to_vec());
    }
    spec
}

/// Anthropic's code-execution tool that programmatic calls come from.
pub const ANTHROPIC_CODE_EXECUTION: &str = "code_execution_20250825";

/// Marks every client tool but the framework's own as callable from
/// Anthropic's code execution too, and adds that tool (once).
pub(super) fn programmatic(tools: &mut Vec<Value>) {
    for spec in tools.iter_mut() {
        let Some(name) = spec.get("name").and_then(Value::as_str) else {
            continue;
        };
        let own = matches!(name, TOOL_INFO | CALL_TOOL | RUN_CODE);
        if spec.get("input_schema").is_some() && !own {
            spec["allowed_callers"] = json!(["direct", ANTHROPIC_CODE_EXECUTION]);
        }
    }
    if !tools.iter().any(|t| t["type"] == ANTHROPIC_CODE_EXECUTION) {
        tools.push(json!({"type": ANTHROPIC_CODE_EXECUTION, "name": "code_execution"}));
    }
}

/// The tool-search tool entry of a natively deferred request.
pub(super) fn tool_search() -> Value {
    json!({"type": ANTHROPIC_TOOL_SEARCH, "name": "tool_search_tool_regex"})
}

/// The content of a `tool_info` result under native deferral: one
/// `tool_reference` block per tool returned with its schema (Anthropic
/// expands each into the tool's definition where it is referenced, so the
/// cached prefix is untouched), plus a text block for what else the answer
/// says (lower hits, a message).
pub fn tool_references(answer: &crate::tool_info_answer::ToolInfoAnswer) -> Vec<Value> {
    let mut blocks: Vec<Value> = answer
        .tools
        .iter()
        .filter(|t| t.parameters.is_some())
        .map(|t| json!({"type": "tool_reference", "tool_name": t.name}))
        .collect();
    let mut notes: Vec<String> = answer
        .tools
        .iter()
        .filter(|t| t.parameters.is_none())
        .map(|t| format!("{}: {}", t.name, t.description))
        .collect();
    if let Some(message) = &answer.message {
        notes.push(message.clone());
    }
    if blocks.is_empty() || !notes.is_empty() {
        let text = if notes.is_empty() {
            "no tool matched".to_owned()
        } else {
            notes.join("\n")
        };
        blocks.push(json!({"type": "text", "text": text}));
    }
    blocks
}
