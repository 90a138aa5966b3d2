//! Anthropic tools: `{name, description, input_schema}`, and Anthropic's
//! own server-side tool-search tool for native deferral.

use serde_json::{Value, json};

use super::schema_for_model;
use crate::tool::Tool;

/// Anthropic's server-side tool-search tool (regex variant).
pub const ANTHROPIC_TOOL_SEARCH: &str = "tool_search_tool_regex_20251119";

/// `input_examples` carries the tool's example calls (the field of
/// Anthropic's tool type for them).
pub(super) fn spec(tool: &Tool) -> Value {
    let mut spec = json!({
        "name": tool.name(), "description": tool.description(), "input_schema": schema_for_model(tool),
    });
    if !tool.examples().is_empty() {
        spec["input_examples"] = Value::Array(tool.examples().to_vec());
    }
    spec
}

/// The tool-search tool entry of a natively deferred request.
pub(super) fn tool_search() -> Value {
    json!({"type": ANTHROPIC_TOOL_SEARCH, "name": "tool_search_tool_regex"})
}
