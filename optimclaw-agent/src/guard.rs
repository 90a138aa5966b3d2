//! The search guard: after [`AgentOptions::max_searches`] `tool_info` calls
//! in a row within one message (no other tool called between them), the
//! next ones are answered without running, telling the model to use what
//! it has or to answer.
//!
//! [`AgentOptions::max_searches`]: super::AgentOptions::max_searches

use serde_json::{Value, json};

use super::ToolCallRequest;
use optimclaw::TOOL_INFO;

/// Counts `tool_info` calls in a row through one message.
pub(super) struct SearchGuard {
    limit: usize,
    in_a_row: usize,
}

impl SearchGuard {
    /// A guard allowing `limit` searches in a row (`0`: any number).
    pub(super) fn new(limit: usize) -> Self {
        SearchGuard { limit, in_a_row: 0 }
    }

    /// For each call of a reply, in order: whether the guard answers it
    /// instead of running it. A call of any other tool resets the count.
    pub(super) fn refuse(&mut self, calls: &[ToolCallRequest]) -> Vec<bool> {
        calls
            .iter()
            .map(|call| {
                if call.name != TOOL_INFO {
                    self.in_a_row = 0;
                    return false;
                }
                self.in_a_row += 1;
                self.limit > 0 && self.in_a_row > self.limit
            })
            .collect()
    }

    /// What a refused call gets: a `tool_info` answer with no tools that
    /// says why and what to do.
    pub(super) fn answer(&self) -> Value {
        json!({
            "tools": [],
            "no_match": true,
            "message": format!(
                "tool_info was not run: you have searched {} times in this turn without calling a tool. Use the tools you already have, or answer the user now and say what you could not find. Calling any other tool lets you search again.",
                self.limit
            ),
        })
    }
}
