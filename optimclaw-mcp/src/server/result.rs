//! A call's outcome as an MCP `tools/call` result.

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use optimclaw::{CallOutput, Content, ToolError, ToolErrorKind, ToolOutput};

/// The result of a call: its blocks when the tool gave some; its value as
/// structured content for a tool whose output schema is an object, and
/// `tool_info`'s answer when it is an object; else its value as text. An
/// error of the tool is an error result, an unknown tool an invalid request.
pub(super) fn call_result(
    result: Result<CallOutput, ToolError>,
    object_output: bool,
    tool_info: bool,
) -> Result<CallToolResult, McpError> {
    Ok(match result.map(|out| (out.value, out.rich)) {
        Ok((_, Some(rich))) => rich_result(rich)?,
        Ok((value, None)) if object_output || (tool_info && value.is_object()) => {
            CallToolResult::structured(value)
        }
        Ok((Value::String(text), None)) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Ok((value, None)) => CallToolResult::success(vec![ContentBlock::text(value.to_string())]),
        Err(err) if err.kind() == ToolErrorKind::UnknownTool => {
            return Err(McpError::invalid_params(err.to_string(), None));
        }
        Err(err) => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(err.to_string())]);
            if let Some(data) = err.data() {
                result.content.push(ContentBlock::text(data.to_string()));
            }
            result
        }
    })
}

/// The refusal of a call of a tool the caller cannot reach, with the
/// nearest names it can.
pub(super) fn unknown_tool(name: &str, near: &[&str]) -> McpError {
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    };
    McpError::invalid_params(format!("unknown tool {name:?}{hint}"), None)
}

/// A tool's blocks as MCP content, with its structured value.
fn rich_result(output: ToolOutput) -> Result<CallToolResult, McpError> {
    let content = output
        .content
        .iter()
        .map(content_block)
        .collect::<Result<Vec<_>, _>>()?;
    let mut result = CallToolResult::success(content);
    result.structured_content = output.structured;
    Ok(result)
}

/// One block: the core's `Content` is MCP's content block shape already.
fn content_block(content: &Content) -> Result<ContentBlock, McpError> {
    serde_json::to_value(content)
        .and_then(serde_json::from_value)
        .map_err(|e| McpError::internal_error(format!("a content block: {e}"), None))
}
