//! Which texts of a tool are searched, and in which BM25F field.

use serde_json::Value;

use crate::tool::Tool;

/// Calls `visit(field, text)` for each searchable text of a tool: name (0),
/// keywords (1), description (2), parameter names (3) and descriptions (4),
/// example calls' strings (5), example requests (6).
/// Nothing is copied: indexing 10k tools visits a million words.
pub(super) fn visit_texts(tool: &Tool, visit: &mut impl FnMut(usize, &str)) {
    visit(0, tool.name());
    for k in tool.keywords() {
        visit(1, k);
    }
    visit(2, tool.description());
    visit_params(tool.input_schema(), visit, 0);
    for example in tool.examples() {
        visit_strings(example, visit, 0);
    }
    for ask in tool.asks() {
        visit(6, ask);
    }
}

/// The string values of an example call (not its keys: those are the
/// parameter names, indexed already), a few levels deep.
fn visit_strings(value: &Value, visit: &mut impl FnMut(usize, &str), depth: usize) {
    if depth > 3 {
        return;
    }
    match value {
        Value::String(s) => visit(5, s),
        Value::Array(items) => items
            .iter()
            .for_each(|v| visit_strings(v, visit, depth + 1)),
        Value::Object(map) => map
            .values()
            .for_each(|v| visit_strings(v, visit, depth + 1)),
        _ => {}
    }
}

/// Parameter names and descriptions, including nested objects' (a few
/// levels deep; enough for real schemas, bounded for hostile ones).
fn visit_params(schema: &Value, visit: &mut impl FnMut(usize, &str), depth: usize) {
    if depth > 3 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            visit(3, name);
            if let Some(d) = prop.get("description").and_then(Value::as_str) {
                visit(4, d);
            }
            visit_params(prop, visit, depth + 1);
            if let Some(items) = prop.get("items") {
                visit_params(items, visit, depth + 1);
            }
        }
    }
}
