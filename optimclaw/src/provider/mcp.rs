//! MCP `tools/list` entries: `{name, description, inputSchema,
//! outputSchema?}`.

use serde_json::{Value, json};

use crate::tool::{EXAMPLES_META_KEY, Tool};

pub(super) fn spec(tool: &Tool) -> Value {
    let mut spec = json!({"name": tool.name(), "description": tool.description(), "inputSchema": tool.input_schema()});
    // The dialect the schema was written in, as given (MCP clients
    // validate with it; models are not sent it).
    if let Some(dialect) = tool.schema_dialect() {
        spec["inputSchema"]["$schema"] = Value::String(dialect.to_owned());
    }
    // MCP requires an object schema for structured output.
    if let Some(out) = tool.output_schema()
        && out.get("type").and_then(Value::as_str) == Some("object")
    {
        spec["outputSchema"] = out.clone();
    }
    if let Some(title) = tool.title() {
        spec["title"] = Value::String(title.to_owned());
    }
    let hints = tool.hints();
    if !hints.is_empty() {
        let mut annotations = serde_json::Map::new();
        for (key, value) in [
            ("readOnlyHint", hints.read_only),
            ("destructiveHint", hints.destructive),
            ("idempotentHint", hints.idempotent),
            ("openWorldHint", hints.open_world),
        ] {
            if let Some(v) = value {
                annotations.insert(key.into(), Value::Bool(v));
            }
        }
        spec["annotations"] = Value::Object(annotations);
    }
    // MCP's tool has no field for examples: they go in `_meta`, under a
    // prefixed key as the spec asks of implementations.
    if !tool.examples().is_empty() {
        spec["_meta"] = json!({ EXAMPLES_META_KEY: tool.examples() });
    }
    spec
}
