//! Tools as TypeScript declarations: what a model reads in code mode
//! instead of JSON schemas. Rendered from each tool's input and output
//! schemas and its doc comments, never written by hand.

use std::fmt::Write as _;

use serde_json::Value;

use super::types::{Types, doc_comment, is_identifier};
use crate::tool::Tool;

/// Every tool in `tools` inside one `declare namespace tools { … }`, in the
/// order given.
///
/// ```
/// use optimclaw::{DynamicTool, Registry, code};
/// use serde_json::json;
///
/// let registry = Registry::builder()
///     .without_linked()
///     .tool(DynamicTool::new(
///         "job_create",
///         "Create a background job.",
///         json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
///     ))
///     .build()?;
/// let ts = code::declarations(registry.tools());
/// assert!(ts.contains("function job_create(args: {"));
/// assert!(ts.contains("prompt: string;"));
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
pub fn declarations<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> String {
    let mut out = String::from("declare namespace tools {\n");
    for tool in tools {
        for line in declaration(tool).lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('}');
    out
}

/// One tool as a TypeScript function declaration with its doc comment:
/// `function NAME(args: {…}): Promise<…>;`. Its argument type comes from the
/// input schema, its result type from the output schema (`unknown` without
/// one). A name that is not a JavaScript identifier (`my-tool`, `delete`)
/// is written as the property it is called through, `"my-tool"(args…)`,
/// inside a comment saying so.
pub fn declaration(tool: &Tool) -> String {
    let mut out = String::new();
    doc_comment(&mut out, tool.description(), "");
    let input = Types::new(tool.input_schema());
    let args = input.render(&input.root, 0);
    let output = tool.output_schema().map(Types::new);
    let result = output
        .as_ref()
        .map_or_else(|| "unknown".to_owned(), |o| o.render(&o.root, 0));
    let optional = input
        .root
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    let param = if optional { "args?" } else { "args" };
    let name = tool.name();
    let mut aliases = input.aliases();
    if let Some(o) = &output {
        aliases.extend(o.aliases());
    }
    for alias in aliases {
        out.push_str(&alias);
        out.push('\n');
    }
    if is_identifier(name) {
        let _ = write!(out, "function {name}({param}: {args}): Promise<{result}>;");
    } else {
        // Every line of a declaration the language cannot parse stays a
        // comment; the first says how to call it.
        let _ = write!(out, "// call as tools[\"{name}\"](args)");
        for line in format!("\"{name}\"({param}: {args}): Promise<{result}>;").lines() {
            let _ = write!(out, "\n// {line}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recursive_types_become_aliases() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }}}
        });
        let tool = Tool::from_dynamic(crate::DynamicTool::new("tree", "A tree.", schema));
        let ts = declaration(&tool);
        assert!(ts.contains("type Node = {"), "{ts}");
        assert!(ts.contains("children?: Node[];"), "{ts}");
        assert!(
            ts.contains("function tree(args: {\n  root: Node;\n}): Promise<unknown>;"),
            "{ts}"
        );
    }

    #[test]
    fn names_that_are_not_identifiers_are_called_by_property() {
        let tool = Tool::from_dynamic(crate::DynamicTool::new(
            "my-tool",
            "Does it.",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        ));
        let ts = declaration(&tool);
        assert!(ts.contains("// call as tools[\"my-tool\"](args)"), "{ts}");
        assert!(ts.lines().skip(1).all(|l| l.starts_with("//")), "{ts}");
        assert!(!is_identifier("delete") && !is_identifier("9lives") && is_identifier("github__x"));
    }
}
