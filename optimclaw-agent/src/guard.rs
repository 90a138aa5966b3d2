//! The search guard: after [`AgentOptions::max_searches`] `tool_info` calls
//! in a row within one message (no other tool called between them), the
//! next ones are answered without running, telling the model to use what
//! it has or to answer.
//!
//! [`AgentOptions::max_searches`]: super::AgentOptions::max_searches

use serde_json::{Value, json};

use super::ToolCallRequest;
use optimclaw::TOOL_INFO;

/// Replies in a row whose searches were refused after which one more reply
/// of searches only ends the turn ([`SearchGuard::stuck`]): two refusals
/// leave room for a model that reads the refusal late; Qwen2.5-Coder 1.5B
/// searched with the refusal itself as its query to the step limit.
const REFUSED_REPLIES: usize = 2;

/// Counts `tool_info` calls in a row through one message.
pub(super) struct SearchGuard {
    limit: usize,
    in_a_row: usize,
    /// Replies in a row with a refused search.
    refused_replies: usize,
}

impl SearchGuard {
    /// A guard allowing `limit` searches in a row (`0`: any number).
    pub(super) fn new(limit: usize) -> Self {
        SearchGuard {
            limit,
            in_a_row: 0,
            refused_replies: 0,
        }
    }

    /// For each call of a reply, in order: whether the guard answers it
    /// instead of running it. A call of any other tool resets the count.
    pub(super) fn refuse(&mut self, calls: &[ToolCallRequest]) -> Vec<bool> {
        let refused: Vec<bool> = calls
            .iter()
            .map(|call| {
                if call.name != TOOL_INFO {
                    self.in_a_row = 0;
                    self.refused_replies = 0;
                    return false;
                }
                self.in_a_row += 1;
                self.limit > 0 && self.in_a_row > self.limit
            })
            .collect();
        if refused.iter().any(|r| *r) {
            self.refused_replies += 1;
        }
        refused
    }

    /// Whether a reply of `calls` is one more search after
    /// [`REFUSED_REPLIES`] refused ones in a row: the model is stuck (the
    /// loop ends the turn, see
    /// [`AgentOptions::stop_when_stuck`](super::AgentOptions::stop_when_stuck)).
    pub(super) fn stuck(&self, calls: &[ToolCallRequest]) -> bool {
        self.refused_replies >= REFUSED_REPLIES
            && !calls.is_empty()
            && calls.iter().all(|c| c.name == TOOL_INFO)
    }

    /// What a refused call gets: a `tool_info` answer with no tools that
    /// says why and what to do ([`refusal`](Self::refusal)).
    pub(super) fn answer(&self) -> Value {
        json!({"tools": [], "no_match": true, "message": self.refusal()})
    }

    /// Why a search was refused and what to do instead.
    pub(super) fn refusal(&self) -> String {
        format!(
            "tool_info was not run: you have searched {} times in this turn without calling a tool. Use the tools you already have, or answer the user now and say what you could not find. Calling any other tool lets you search again.",
            self.limit
        )
    }
}
