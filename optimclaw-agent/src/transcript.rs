//! The conversation as the loop keeps it: turns, tool calls and their
//! outcomes, replies, per-request usage, and progress events.

use std::time::Duration;

use serde_json::Value;

use crate::AgentError;

/// One tool call the model asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallRequest {
    /// The provider's call id.
    pub id: String,
    /// The tool name, as the model wrote it.
    pub name: String,
    /// The arguments as the model sent them (a JSON text for chat
    /// completions, kept even when it is not valid JSON).
    pub raw_arguments: String,
    /// The arguments parsed, or why they could not be.
    pub arguments: Result<Value, String>,
}

/// A tool call's result as sent back to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutcome {
    /// The call id it answers.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The text sent to the model (JSON).
    pub content: String,
    /// Whether it is an error.
    pub is_error: bool,
    /// How long the call took.
    pub elapsed: Duration,
    /// Content blocks sent instead of `content` where the wire format has
    /// them (Anthropic `tool_reference` blocks under native deferral).
    pub blocks: Option<Value>,
    /// Images the tool returned ([`optimclaw::ToolOutput`]), sent beside
    /// `content` where the wire format takes them (Anthropic `tool_result`
    /// image blocks; for OpenAI's own API a user message of images after
    /// the results); elsewhere `content` names them. At most
    /// [`MAX_IMAGES`](crate::MAX_IMAGES) per result, each at most
    /// [`MAX_IMAGE_BYTES`](crate::MAX_IMAGE_BYTES) of base64.
    pub images: Vec<optimclaw::Content>,
}

/// One turn of the conversation, as [`Agent::transcript`](crate::Agent::transcript)
/// returns them: store them to show or audit a conversation.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Turn {
    /// The user's message.
    User(String),
    /// The model's reply.
    Assistant {
        /// Its text (may be empty).
        text: String,
        /// The tool calls it asked for.
        calls: Vec<ToolCallRequest>,
        /// The provider's own content, replayed verbatim (Anthropic blocks,
        /// which may include server-side tool-search blocks).
        native: Option<Value>,
    },
    /// Results of the previous turn's tool calls.
    ToolResults(Vec<ToolOutcome>),
    /// Tools attached after the user's message ([`AgentOptions::preload`](crate::AgentOptions)):
    /// sent as a second content block of the same user message, so the
    /// user's own text is unchanged.
    Attached {
        /// The tools attached.
        tools: Vec<String>,
        /// The text describing them.
        text: String,
    },
}

/// Token use reported by the endpoint for one request, beside what the
/// tools cost: read [`Agent::usage`](crate::Agent::usage) to see
/// what a conversation cost and what lazy loading saved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestUsage {
    /// 1-based request number within the agent.
    pub request: usize,
    /// Input tokens the endpoint reported: for chat completions every
    /// prompt token (cached ones included); for Anthropic only those after
    /// the last cache breakpoint (reads and writes are the next fields).
    pub input_tokens: Option<u64>,
    /// Output tokens the endpoint reported.
    pub output_tokens: Option<u64>,
    /// Input tokens read from the provider's prompt cache (Anthropic
    /// `cache_read_input_tokens`, OpenAI `prompt_tokens_details.cached_tokens`).
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to the prompt cache (Anthropic
    /// `cache_creation_input_tokens`; OpenAI reports none).
    pub cache_write_tokens: Option<u64>,
    /// Tools sent with the request.
    pub tools_sent: usize,
    /// Tokens (o200k) of the tools and note this request sent.
    pub tool_tokens: Option<usize>,
    /// Tokens (o200k) the same request would have spent sending every tool.
    pub eager_tool_tokens: Option<usize>,
    /// `tool_info` calls in this request's reply that ran.
    pub searches: usize,
    /// `tool_info` calls in this request's reply that the search guard
    /// answered without running ([`AgentOptions::max_searches`](crate::AgentOptions)).
    pub searches_refused: usize,
}

/// The model's answer to one [`Agent::send`](crate::Agent::send).
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The final text.
    pub text: String,
    /// Model requests this answer took.
    pub requests: usize,
    /// Tool calls run on the way.
    pub tool_calls: usize,
}

/// Something the loop did, for a progress display: pass a closure to
/// [`Agent::send_with`](crate::Agent::send_with) to show tool calls
/// as they happen.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentEvent<'a> {
    /// A request is about to be sent.
    Request {
        /// 1-based request number.
        request: usize,
        /// Tools it carries.
        tools: usize,
    },
    /// A request failed and will be retried.
    Retry {
        /// Attempt that failed (1-based).
        attempt: u32,
        /// The wait before the next.
        wait: Duration,
        /// Why.
        reason: &'a str,
    },
    /// The endpoint's usage for a request.
    Usage(&'a RequestUsage),
    /// A piece of the model's text as it streams in
    /// ([`AgentOptions::stream`](crate::AgentOptions)). After a
    /// [`Retry`](Self::Retry) the text starts again.
    TextDelta(&'a str),
    /// A tool call starts.
    ToolCall(&'a ToolCallRequest),
    /// A tool call finished.
    ToolResult(&'a ToolOutcome),
    /// Compaction ([`AgentOptions::compaction`](crate::AgentOptions))
    /// left the oldest turns out of this and later requests.
    Compacted {
        /// Turns left out this time.
        turns: usize,
        /// Tokens of the history kept (the new message included).
        kept_tokens: usize,
    },
}

impl crate::Agent {
    /// Ends a turn that stopped making progress: with `answer` (a result in
    /// hand) as the reply, else with `error`; the model's `text` stays in
    /// the history when there is no answer. `counts` are the turn's
    /// requests and tool calls.
    pub(crate) fn end_turn(
        &mut self,
        answer: Option<String>,
        text: String,
        (requests, tool_calls): (usize, usize),
        error: impl FnOnce() -> AgentError,
    ) -> Result<Reply, AgentError> {
        match answer {
            Some(answer) => Ok(self.answer_turn(answer, (requests, tool_calls))),
            None => {
                self.transcript.push(Turn::Assistant {
                    text,
                    calls: Vec::new(),
                    native: None,
                });
                Err(error())
            }
        }
    }

    /// Ends the turn with `text` as the answer, in the history and the reply.
    pub(crate) fn answer_turn(
        &mut self,
        text: String,
        (requests, tool_calls): (usize, usize),
    ) -> Reply {
        self.transcript.push(Turn::Assistant {
            text: text.clone(),
            calls: Vec::new(),
            native: None,
        });
        Reply {
            text,
            requests,
            tool_calls,
        }
    }
}
