//! The `call_tool` bridge of [`LoadStrategy::Bridge`](crate::LoadStrategy::Bridge):
//! its spec, and how a call of it unpacks into the named tool's call.

use serde_json::Value;

use crate::error::ToolError;
use crate::tool::{CALL_TOOL, DynamicTool};

/// The bridge tool's spec: a name and an open object of arguments.
pub(crate) fn bridge_tool() -> DynamicTool {
    DynamicTool::new(
        CALL_TOOL,
        "Call a tool that tool_info returned (not one already in your tool list): pass its exact name, and its arguments as an object matching the parameters tool_info gave for it.",
        serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The exact name of the tool, as tool_info returned it."},
                "arguments": {"type": "object", "additionalProperties": true, "description": "The tool's arguments, as its parameters in tool_info's answer describe them."},
            },
            "required": ["name", "arguments"],
            "additionalProperties": false,
        }),
    )
    .kind(crate::descriptor::ToolKind::Core)
    .origin("optimclaw (the bridge of the bridge load strategy)")
}

/// `{name, arguments}` of a `call_tool` call, or an error the model can act on.
pub fn unpack_bridge_call(args: Value) -> Result<(String, Value), ToolError> {
    let Value::Object(mut map) = args else {
        return Err(ToolError::invalid_arguments(
            CALL_TOOL,
            "",
            "expected an object {\"name\": \"tool name\", \"arguments\": {…}}",
        ));
    };
    let name = match map.remove("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => {
            return Err(ToolError::invalid_arguments(
                CALL_TOOL,
                "name",
                "`name` must be the exact name of a tool, as tool_info returned it",
            ));
        }
    };
    if name == CALL_TOOL {
        return Err(ToolError::invalid_arguments(
            CALL_TOOL,
            "name",
            "call_tool cannot call itself; pass the name of the tool to run",
        ));
    }
    let arguments = match map.remove("arguments") {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            return Err(ToolError::invalid_arguments(
                CALL_TOOL,
                "arguments",
                format!(
                    "`arguments` must be an object of the tool's named arguments, got {}",
                    crate::schema::json_type_name(&other)
                ),
            ));
        }
    };
    if let Some(extra) = map.keys().next() {
        return Err(ToolError::invalid_arguments(
            CALL_TOOL,
            extra,
            format!(
                "unknown field `{extra}`: call_tool takes `name` and `arguments` only; put the tool's arguments inside `arguments`"
            ),
        ));
    }
    Ok((name, arguments))
}
