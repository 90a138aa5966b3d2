//! MCP `tools/list` entries: `{name, description, inputSchema,
//! outputSchema?}`.

use serde_json::{Value, json};

use crate::tool::{EXAMPLES_META_KEY, Tool};

pub(super) fn spec(tool: &Tool) -> Value {
    let mut spec = json!({"name": tool.name(), "description": tool.description(), "inputSchema": tool.input_schema()});
    // MCP requires an object schema for structured output.
    if let Some(out) = tool.output_schema()
        && out.get("type").and_then(Value::as_str) == Some("object")
    {
        spec["outputSchema"] = out.clone();
    }
    // MCP's tool has no field for examples: they go in `_meta`, under a
    // prefixed key as the spec asks of implementations.
    if !tool.examples().is_empty() {
        spec["_meta"] = json!({ EXAMPLES_META_KEY: tool.examples() });
    }
    spec
}
