//! MCP `tools/list` entries: `{name, description, inputSchema,
//! outputSchema?}`.

use serde_json::{Value, json};

use crate::tool::Tool;

pub(super) fn spec(tool: &Tool) -> Value {
    let mut spec = json!({"name": tool.name(), "description": tool.description(), "inputSchema": tool.input_schema()});
    // MCP requires an object schema for structured output.
    if let Some(out) = tool.output_schema()
        && out.get("type").and_then(Value::as_str) == Some("object")
    {
        spec["outputSchema"] = out.clone();
    }
    spec
}
