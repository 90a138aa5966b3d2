//! JSON as small models write it in their calls: strict JSON, or JSON
//! with strings in single quotes. Qwen2.5-Coder-1.5B writes a JSON
//! document passed as a string argument this way, in every task set it
//! was run on: `"document": '{"book": {"pages": 412}}'`.

use serde_json::Value;

/// `text` as one JSON value the way a model wrote it: strict JSON, else
/// the same text with its single-quoted strings read as strings
/// (`'a "b" c'` is `"a \"b\" c"`, `\'` inside one is a quote). Nothing
/// else is repaired: a text that is still no JSON is `None`.
pub(super) fn parse(text: &str) -> Option<Value> {
    match serde_json::from_str(text) {
        Ok(value) => Some(value),
        Err(_) => serde_json::from_str(&requote(text)?).ok(),
    }
}

/// A JSON value written alone, bare or as the only thing in one fenced
/// block (` ```json ` or plain), as [`parse`] reads it: what a reply that
/// is nothing but a call, or nothing but its arguments, holds. `None` for
/// anything with prose around it.
///
/// ```
/// use optimclaw::provider::written_json;
/// use serde_json::json;
/// let block = "```json\n{\"document\": '{\"a\": 1}', \"query\": \"/a\"}\n```";
/// assert_eq!(
///     written_json(block),
///     Some(json!({"document": "{\"a\": 1}", "query": "/a"}))
/// );
/// assert_eq!(written_json("The call is {\"a\": 1}"), None);
/// ```
pub fn written_json(text: &str) -> Option<Value> {
    let mut body = text.trim();
    if let Some(fenced) = body.strip_prefix("```") {
        let fenced = fenced.strip_prefix("json").unwrap_or(fenced);
        body = fenced.strip_suffix("```").unwrap_or(fenced).trim();
    }
    parse(body)
}

/// `text` with each single-quoted string outside double-quoted ones
/// rewritten in double quotes, or `None` when it has none or one is not
/// closed. Written by hand rather than taken from a JSON5 crate: this one
/// slip is what models make, and JSON5's other forms (unquoted keys,
/// comments, trailing commas) would let more prose read as a call.
pub(super) fn requote(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // A double-quoted string, copied as it is.
                out.push('"');
                let mut escaped = false;
                for c in chars.by_ref() {
                    out.push(c);
                    match c {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                changed = true;
                out.push('"');
                let mut closed = false;
                while let Some(c) = chars.next() {
                    match c {
                        '\'' => {
                            closed = true;
                            break;
                        }
                        '"' => out.push_str("\\\""),
                        '\n' => out.push_str("\\n"),
                        '\\' => match chars.next()? {
                            '\'' => out.push('\''),
                            other => {
                                out.push('\\');
                                out.push(other);
                            }
                        },
                        other => out.push(other),
                    }
                }
                if !closed {
                    return None;
                }
                out.push('"');
            }
            other => out.push(other),
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn single_quoted_strings_are_read_as_strings() {
        let written = r#"{"name": "json", "arguments": {"document": '{"items": ["red", "blue"]}', "query": "$.items[1]"}}"#;
        assert_eq!(
            parse(written),
            Some(json!({"name": "json", "arguments": {
                "document": "{\"items\": [\"red\", \"blue\"]}", "query": "$.items[1]"}}))
        );
        // A quote escaped inside one, and keys in single quotes.
        assert_eq!(
            parse(r"{'text': 'it\'s here'}"),
            Some(json!({"text": "it's here"}))
        );
        // An apostrophe inside a double-quoted string is left alone.
        assert_eq!(
            parse(r#"{"text": "it's", "b": 'x'}"#),
            Some(json!({"text": "it's", "b": "x"}))
        );
    }

    #[test]
    fn nothing_else_is_repaired() {
        for text in [
            "{'text': 'never closed}",
            "{text: 'unquoted key'}",
            "{'a': 1,}",
            "It's a sunny day",
            "{\"a\": 1} and that's it",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
        assert_eq!(requote(r#"{"a": "no single quotes"}"#), None);
    }
}
