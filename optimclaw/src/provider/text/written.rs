//! JSON as small models write it in their calls: strict JSON, or JSON
//! with strings in single quotes or with a backslash JSON does not take.
//! Qwen2.5-Coder-1.5B writes a JSON document passed as a string argument
//! in single quotes, in every task set it was run on (`"document":
//! '{"book": {"pages": 412}}'`); the 0.5B writes a regex's backslash once
//! (`"pattern": "\d{4}"`).

use serde_json::Value;

/// `text` as one JSON value the way a model wrote it: strict JSON, else
/// the same text with its strings mended ([`mend`]). Nothing else is
/// repaired: a text that is still no JSON is `None`.
pub(super) fn parse(text: &str) -> Option<Value> {
    match serde_json::from_str(text) {
        Ok(value) => Some(value),
        Err(_) => serde_json::from_str(&mend(text)?).ok(),
    }
}

/// A JSON value written alone, bare or as the only thing in one fenced
/// block (` ```json ` or plain): what a reply that is nothing but a call,
/// or nothing but its arguments, holds. `None` for anything with prose
/// around it, or that is no JSON once the slips small models make in
/// strings are mended: strings in single quotes (`'{"a": 1}'`), a
/// backslash before a character JSON does not escape (`"\d{4}"`, the
/// regex `\d{4}`), `\'` for a quote, a line break or tab written inside a
/// string. Nothing else is repaired.
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

/// `text` with the slips small models make in JSON strings mended, or
/// `None` when it has none or a string is not closed:
///
/// - a single-quoted string outside double-quoted ones is rewritten in
///   double quotes (`'a "b" c'` is `"a \"b\" c"`, `\'` inside one is a
///   quote);
/// - a backslash before a character JSON does not escape is a backslash
///   (`"\d{4}"` is the regex `\d{4}`, as models write one; JSON would
///   need `"\\d{4}"`), but `\'` is a quote. Escapes JSON has (`\n`,
///   `\"`, `\u00e9`, …) mean what they mean;
/// - a line break or tab inside a string is that character.
///
/// Written by hand rather than taken from a JSON5 crate: these slips are
/// what models make, JSON5 takes neither a stray backslash nor a tab, and its other
/// forms (unquoted keys, comments, trailing commas) would let more prose
/// read as a call.
pub(super) fn mend(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    let mut changed = false;
    while let Some(c) = chars.next() {
        let quote = match c {
            '"' | '\'' => c,
            other => {
                out.push(other);
                continue;
            }
        };
        changed |= quote == '\'';
        out.push('"');
        let mut closed = false;
        while let Some(c) = chars.next() {
            match c {
                _ if c == quote => {
                    closed = true;
                    break;
                }
                '"' => out.push_str("\\\""),
                // A line break or tab written as it is.
                '\n' | '\r' | '\t' => {
                    changed = true;
                    out.push_str(match c {
                        '\n' => "\\n",
                        '\r' => "\\r",
                        _ => "\\t",
                    });
                }
                '\\' => match chars.next()? {
                    '\'' => {
                        changed = true;
                        out.push('\'');
                    }
                    escape @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') => {
                        out.push('\\');
                        out.push(escape);
                    }
                    // No escape JSON has: the backslash is the text's own.
                    other => {
                        changed = true;
                        out.push_str("\\\\");
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
    fn a_backslash_json_does_not_escape_is_the_texts_own() {
        // The 0.5B's regex call, as it wrote it.
        let written =
            r#"{"name": "regex_find", "arguments": {"pattern": "\d{4}", "text": "born 1984"}}"#;
        assert_eq!(
            parse(written).unwrap()["arguments"]["pattern"],
            json!(r"\d{4}")
        );
        // Escapes JSON has keep their meaning beside it; `\'` is a quote.
        assert_eq!(
            parse(r#"{"a": "\.com\n\"x\" \u00e9 it\'s"}"#),
            Some(json!({"a": "\\.com\n\"x\" é it's"}))
        );
        // A line break written inside a string.
        assert_eq!(
            parse("{\"csv\": \"a,b\n1,2\"}"),
            Some(json!({"csv": "a,b\n1,2"}))
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
        assert_eq!(mend(r#"{"a": "no single quotes"}"#), None);
    }
}
