//! `#[tool(title = …, read_only, destructive, idempotent, open_world)]` →
//! MCP `title` and `annotations`; hints not given stay absent (MCP's
//! defaults apply), and other dialects carry none of it.

use optimclaw::provider::{Dialect, tool_spec};
use optimclaw::{DynamicTool, Registry, ToolHints, tool};
use serde_json::json;

/// Read a file.
#[tool(title = "Read a file", read_only, idempotent)]
fn read_file(
    /// The path.
    path: String,
) -> String {
    path
}

/// Delete a file.
#[tool(destructive, idempotent)]
fn delete_file(
    /// The path.
    path: String,
) -> String {
    path
}

/// Fetch a page.
#[tool(read_only, open_world)]
fn fetch_page(
    /// The URL.
    url: String,
) -> String {
    url
}

#[test]
fn hints_become_mcp_annotations() {
    let registry = Registry::from_linked().unwrap();
    let read = tool_spec(registry.get("read_file").unwrap(), Dialect::Mcp).unwrap();
    assert_eq!(read["title"], "Read a file");
    assert_eq!(
        read["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    let delete = tool_spec(registry.get("delete_file").unwrap(), Dialect::Mcp).unwrap();
    assert!(delete.get("title").is_none());
    assert_eq!(
        delete["annotations"],
        json!({"destructiveHint": true, "idempotentHint": true})
    );
    let fetch = tool_spec(registry.get("fetch_page").unwrap(), Dialect::Mcp).unwrap();
    assert_eq!(
        fetch["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    // Not in the dialects of model APIs.
    for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Gemini] {
        let spec = tool_spec(registry.get("read_file").unwrap(), dialect)
            .unwrap()
            .to_string();
        assert!(
            !spec.contains("readOnlyHint") && !spec.contains("\"title\""),
            "{dialect}: {spec}"
        );
    }
}

#[test]
fn dynamic_tools_take_hints_too() {
    let hints = ToolHints {
        read_only: Some(true),
        ..ToolHints::default()
    };
    let registry = Registry::builder()
        .without_linked()
        .tool(
            DynamicTool::new("look", "Look.", json!({"type": "object", "properties": {}}))
                .title("Look around")
                .hints(hints),
        )
        .build()
        .unwrap();
    let spec = tool_spec(registry.get("look").unwrap(), Dialect::Mcp).unwrap();
    assert_eq!(spec["title"], "Look around");
    assert_eq!(spec["annotations"], json!({"readOnlyHint": true}));
}
