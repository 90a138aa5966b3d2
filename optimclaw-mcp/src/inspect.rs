//! What a POST body asks for, as far as the checks in front of rmcp care:
//! whether it opens a session, how many tool calls it holds, whether it
//! uses its session, and the id to answer a refusal with.

use serde_json::Value;

/// What a POST body asks for, as far as the limits care.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Inspected {
    /// The JSON-RPC id to answer a refusal with.
    pub(super) id: Value,
    /// An `initialize` (which opens a session).
    pub(super) opens_session: bool,
    /// `tools/call` requests in the body.
    pub(super) calls: usize,
    /// Anything but the `initialized` notification.
    pub(super) uses_session: bool,
}

/// What the limits need to know of a JSON-RPC body (one message or a
/// batch); a body that is no JSON-RPC goes on to rmcp, which answers it.
pub(super) fn inspect(body: &[u8]) -> Inspected {
    let Ok(parsed) = serde_json::from_slice::<Value>(body) else {
        return Inspected {
            uses_session: true,
            ..Inspected::default()
        };
    };
    let messages = match &parsed {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let mut asked = Inspected::default();
    for message in messages {
        let method = message.get("method").and_then(Value::as_str);
        if asked.id.is_null()
            && let Some(id) = message.get("id")
        {
            asked.id = id.clone();
        }
        match method {
            // The handshake exists only in the protocol revisions with
            // sessions (before 2026-07-28), so an `initialize` opens one
            // whatever version it names (the answer names the revision
            // agreed on), as rmcp's own session layer does.
            Some("initialize") => asked.opens_session = true,
            Some("notifications/initialized") => {}
            Some("tools/call") => {
                asked.calls += 1;
                asked.uses_session = true;
            }
            _ => asked.uses_session = true,
        }
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_read_for_what_the_limits_count() {
        let init = |v: &str| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": v}})
                .to_string()
        };
        let legacy = inspect(init("2025-06-18").as_bytes());
        assert!(legacy.opens_session && legacy.id == json!(7) && legacy.calls == 0);
        assert!(inspect(init("2026-07-28").as_bytes()).opens_session);
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(!inspect(initialized.to_string().as_bytes()).uses_session);
        let batch = json!([
            {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}},
            {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "y"}},
            {"jsonrpc": "2.0", "id": "c", "method": "tools/list"},
        ]);
        let asked = inspect(batch.to_string().as_bytes());
        assert_eq!(
            (asked.calls, asked.id, asked.uses_session),
            (2, json!("a"), true)
        );
        let junk = inspect(b"not json");
        assert!(!junk.opens_session && junk.calls == 0 && junk.uses_session);
    }
}
