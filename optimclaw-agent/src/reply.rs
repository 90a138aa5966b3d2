//! A model reply as the loop reads it, and the helpers both wire formats
//! use to read one.

use serde_json::Value;

use super::{RequestUsage, ToolCallRequest};
use optimclaw::schema::json_type_name;

/// A parsed model reply.
pub(super) struct ModelReply {
    pub(super) text: String,
    pub(super) calls: Vec<ToolCallRequest>,
    pub(super) native: Option<Value>,
    pub(super) usage: RequestUsage,
    /// Anthropic's `pause_turn`: send the reply back and let it go on.
    pub(super) paused: bool,
    /// Reading stopped where the text went into a loop.
    pub(super) repetition: Option<super::repetition::Repetition>,
}

/// Parses tool-call arguments sent as a JSON text.
pub(super) fn parse_arguments(raw: &str) -> Result<Value, String> {
    let raw = if raw.trim().is_empty() { "{}" } else { raw };
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(other) => Err(format!("got {}", json_type_name(&other))),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

pub(super) fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert!(parse_arguments("").unwrap().is_object());
        assert_eq!(parse_arguments("[1]").unwrap_err(), "got an array");
        assert!(
            parse_arguments("{\"a\":")
                .unwrap_err()
                .starts_with("invalid JSON")
        );
    }
}
