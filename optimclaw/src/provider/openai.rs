//! OpenAI function tools: chat completions (`{"type": "function",
//! "function": {…}}`), the same in strict mode, and the Responses API's flat
//! shape (strict where the schema allows).

use serde_json::{Value, json};

use super::schema_for_model;
use super::strict::strict_schema;
use crate::tool::Tool;

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
