//! Prompt caching as each provider defines it.
//!
//! Anthropic caches only what a request marks: `cache_control` on a tool,
//! a system block or a message block (at most 4 such breakpoints), or once
//! at the top level (automatic: one breakpoint on the last cacheable
//! block). A prefix is written at a breakpoint (billed 1.25× for the
//! 5-minute TTL, 2× for 1 hour) and read by a later request whose
//! breakpoint, or one of the 20 blocks before it, ends the same prefix
//! (billed 0.1×); a prefix shorter than the model's minimum is not cached.
//! A tool sent with `defer_loading` may not carry `cache_control`.
//!
//! OpenAI caches every prompt of 1,024 tokens or more by itself; a request
//! can only name the cache it should land in (`prompt_cache_key`).

use serde_json::{Value, json};

/// How Anthropic requests ask for caching. The default places breakpoints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PromptCache {
    /// Up to four breakpoints where they pay: the last tool that is not
    /// deferred (tools change least), the system prompt, the end of the
    /// latest message (sliding with the conversation) and the end of the
    /// message that ended the request before (so the prefix written then
    /// is found even after many parallel tool results).
    #[default]
    Breakpoints,
    /// One top-level `cache_control`: the provider marks the last
    /// cacheable block itself.
    Automatic,
    /// No caching asked for.
    Off,
}

impl PromptCache {
    /// `breakpoints`, `automatic` or `off`.
    pub fn name(self) -> &'static str {
        match self {
            PromptCache::Breakpoints => "breakpoints",
            PromptCache::Automatic => "automatic",
            PromptCache::Off => "off",
        }
    }

    /// Parses [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            PromptCache::Breakpoints,
            PromptCache::Automatic,
            PromptCache::Off,
        ]
        .into_iter()
        .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// How long Anthropic keeps a written prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheTtl {
    /// 5 minutes, refreshed by every read (writes billed 1.25×).
    #[default]
    FiveMinutes,
    /// 1 hour (writes billed 2×).
    OneHour,
}

impl CacheTtl {
    /// `5m` or `1h`, as the API writes it.
    pub fn name(self) -> &'static str {
        match self {
            CacheTtl::FiveMinutes => "5m",
            CacheTtl::OneHour => "1h",
        }
    }

    /// Parses [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "5m" => Some(CacheTtl::FiveMinutes),
            "1h" => Some(CacheTtl::OneHour),
            _ => None,
        }
    }
}

/// Anthropic: at most this many `cache_control` breakpoints per request.
const MAX_BREAKPOINTS: usize = 4;

fn marker(ttl: CacheTtl) -> Value {
    match ttl {
        CacheTtl::FiveMinutes => json!({"type": "ephemeral"}),
        CacheTtl::OneHour => json!({"type": "ephemeral", "ttl": "1h"}),
    }
}

/// Marks an Anthropic request body for caching.
pub(super) fn mark_anthropic(body: &mut Value, cache: PromptCache, ttl: CacheTtl) {
    match cache {
        PromptCache::Off => {}
        PromptCache::Automatic => body["cache_control"] = marker(ttl),
        PromptCache::Breakpoints => breakpoints(body, ttl),
    }
}

fn breakpoints(body: &mut Value, ttl: CacheTtl) {
    let mut left = MAX_BREAKPOINTS;
    if let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut)
        && let Some(tool) = tools.iter_mut().rev().find(|t| {
            t.get("defer_loading") != Some(&Value::Bool(true)) && t.get("input_schema").is_some()
        })
    {
        tool["cache_control"] = marker(ttl);
        left -= 1;
    }
    if let Some(Value::String(text)) = body.get("system").cloned() {
        body["system"] = json!([{"type": "text", "text": text, "cache_control": marker(ttl)}]);
        left -= 1;
    }
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    let n = messages.len();
    // The latest message, then the one that ended the previous request.
    for index in [n.checked_sub(1), n.checked_sub(3)].into_iter().flatten() {
        if left == 0 {
            break;
        }
        if mark_last_block(&mut messages[index], ttl) {
            left -= 1;
        }
    }
}

/// Marks the last block of a message that may carry `cache_control`.
fn mark_last_block(message: &mut Value, ttl: CacheTtl) -> bool {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return false;
    };
    let cacheable = |b: &Value| match b.get("type").and_then(Value::as_str) {
        Some("text") => b
            .get("text")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty()),
        Some("tool_use" | "tool_result" | "image" | "document") => true,
        _ => false,
    };
    match blocks.iter_mut().rev().find(|b| cacheable(b)) {
        Some(block) => {
            block["cache_control"] = marker(ttl);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Value {
        json!({
            "system": "be brief",
            "tools": [
                {"name": "a", "input_schema": {"type": "object"}},
                {"name": "b", "input_schema": {"type": "object"}},
                {"name": "c", "input_schema": {"type": "object"}, "defer_loading": true},
                {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
            ],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "a", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "x"}]},
                {"role": "assistant", "content": [{"type": "text", "text": ""}, {"type": "tool_use", "id": "2", "name": "a", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "2", "content": "y"}]}
            ]
        })
    }

    fn count(v: &Value) -> usize {
        match v {
            Value::Object(m) => {
                usize::from(m.contains_key("cache_control")) + m.values().map(count).sum::<usize>()
            }
            Value::Array(a) => a.iter().map(count).sum(),
            _ => 0,
        }
    }

    #[test]
    fn four_breakpoints_never_on_a_deferred_tool() {
        let mut b = body();
        mark_anthropic(&mut b, PromptCache::Breakpoints, CacheTtl::OneHour);
        assert_eq!(count(&b), 4);
        assert!(b["tools"][1].get("cache_control").is_some());
        assert!(b["tools"][2].get("cache_control").is_none());
        assert_eq!(b["system"][0]["cache_control"]["ttl"], "1h");
        assert!(
            b["messages"][4]["content"][0]
                .get("cache_control")
                .is_some()
        );
        assert!(
            b["messages"][2]["content"][0]
                .get("cache_control")
                .is_some()
        );
    }

    #[test]
    fn automatic_is_one_top_level_marker_and_off_is_none() {
        let mut b = body();
        mark_anthropic(&mut b, PromptCache::Automatic, CacheTtl::FiveMinutes);
        assert_eq!(count(&b), 1);
        assert_eq!(b["cache_control"], json!({"type": "ephemeral"}));
        let mut b = body();
        mark_anthropic(&mut b, PromptCache::Off, CacheTtl::FiveMinutes);
        assert_eq!(count(&b), 0);
    }
}
