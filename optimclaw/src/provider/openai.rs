//! OpenAI function tools: chat completions (`{"type": "function",
//! "function": {…}}`), the same in strict mode, and the Responses API's flat
//! shape. Which parameters and which `strict` flag: `describe.rs`.

use serde_json::{Value, json};

use crate::tool::Tool;

/// Chat completions; `strict: Some(_)` writes the flag.
pub(super) fn chat_spec(tool: &Tool, parameters: Value, strict: Option<bool>) -> Value {
    let mut function =
        json!({"name": tool.name(), "description": tool.description(), "parameters": parameters});
    if let Some(strict) = strict {
        function["strict"] = Value::Bool(strict);
    }
    json!({"type": "function", "function": function})
}

/// The Responses API: flat.
pub(super) fn responses_spec(tool: &Tool, parameters: Value, strict: bool) -> Value {
    json!({
        "type": "function", "name": tool.name(), "description": tool.description(),
        "parameters": parameters, "strict": strict,
    })
}
