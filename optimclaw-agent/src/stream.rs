//! Streamed replies: server-sent events read as they arrive, text handed
//! out as deltas, tool calls assembled from their pieces, and the whole
//! reply rebuilt in the shape of a non-streamed one (so one parser reads
//! both).
//!
//! OpenAI chat completions stream `data: {chunk}` lines ending with
//! `data: [DONE]`: `choices[0].delta` carries `content` and `tool_calls`
//! pieces by `index` (the id and name first, the arguments in parts), and,
//! with `stream_options.include_usage`, a last chunk carries `usage`.
//! Anthropic streams named events: `message_start` (with input usage),
//! `content_block_start` / `content_block_delta` (`text_delta`,
//! `input_json_delta`) / `content_block_stop` by `index`,
//! `message_delta` (stop reason, output usage), `message_stop`; `ping`
//! between; `error` on failure.
//!
//! A stream that ends before its last event, an event that is not JSON,
//! or no byte for the idle time is a failed attempt: nothing has run yet
//! (tools run only on a complete reply), so the request is retried.
//!
//! The SSE framing is written here rather than taken from a crate: it is
//! a few lines over `reqwest::Response::chunk`, and the crates that do it
//! (`eventsource-stream`, `reqwest-eventsource`) bring a `futures` stream
//! stack and their own retry policy, where the loop has its own.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::WireFormat;
use super::repetition::{Repetition, repetition};

/// One server-sent event.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Event {
    pub(super) name: Option<String>,
    pub(super) data: String,
}

/// Splits bytes into events as they arrive.
#[derive(Default)]
pub(super) struct Sse {
    pending: Vec<u8>,
    name: Option<String>,
    data: Vec<String>,
}

impl Sse {
    /// The events completed by `bytes`.
    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() || self.name.is_some() {
                    out.push(Event {
                        name: self.name.take(),
                        data: std::mem::take(&mut self.data).join("\n"),
                    });
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.name = Some(value.to_owned()),
                "data" => self.data.push(value.to_owned()),
                _ => {}
            }
        }
        out
    }
}

/// Why a stream did not give a reply.
#[derive(Debug)]
pub(super) enum StreamError {
    /// Worth another attempt (cut, malformed, idle, overloaded).
    Retry(String),
    /// The endpoint refused the request in the stream.
    Fatal(String),
}

/// Assembles a reply from its events.
pub(super) enum Assembler {
    OpenAi(OpenAiParts),
    Anthropic(AnthropicParts),
}

#[derive(Default)]
pub(super) struct OpenAiParts {
    text: String,
    /// By index: id, name, arguments so far.
    calls: BTreeMap<u64, (String, String, String)>,
    finish: Option<String>,
    usage: Option<Value>,
    /// llama.cpp's per-chunk `timings` (with `timings_per_token`): the
    /// prompt tokens of a reply whose stream was closed early.
    timings: Option<Value>,
    done: bool,
}

#[derive(Default)]
pub(super) struct AnthropicParts {
    message: Map<String, Value>,
    blocks: BTreeMap<u64, Value>,
    /// `input_json_delta` text of each tool-use block.
    json: BTreeMap<u64, String>,
    usage: Map<String, Value>,
    stop: Option<Value>,
    done: bool,
}

impl Assembler {
    pub(super) fn new(format: WireFormat) -> Self {
        match format {
            WireFormat::OpenAiChat => Assembler::OpenAi(OpenAiParts::default()),
            WireFormat::AnthropicMessages => Assembler::Anthropic(AnthropicParts::default()),
        }
    }

    /// Takes one event; returns text to show, if any.
    pub(super) fn take(&mut self, event: &Event) -> Result<Option<String>, StreamError> {
        match self {
            Assembler::OpenAi(parts) => parts.take(event),
            Assembler::Anthropic(parts) => parts.take(event),
        }
    }

    /// Whether the last event arrived.
    pub(super) fn is_done(&self) -> bool {
        match self {
            Assembler::OpenAi(parts) => parts.done,
            Assembler::Anthropic(parts) => parts.done,
        }
    }

    /// The reply in the shape of a non-streamed one.
    pub(super) fn finish(self) -> Value {
        match self {
            Assembler::OpenAi(parts) => parts.finish(),
            Assembler::Anthropic(parts) => parts.finish(),
        }
    }
}

fn json_of(event: &Event) -> Result<Value, StreamError> {
    serde_json::from_str(&event.data).map_err(|e| {
        let start: String = event.data.chars().take(120).collect();
        StreamError::Retry(format!("a streamed event is not JSON ({e}): {start}"))
    })
}

impl OpenAiParts {
    fn take(&mut self, event: &Event) -> Result<Option<String>, StreamError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let chunk = json_of(event)?;
        if let Some(message) = chunk.pointer("/error/message").and_then(Value::as_str) {
            return Err(StreamError::Fatal(format!(
                "an error in the stream: {message}"
            )));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| !u.is_null()) {
            self.usage = Some(usage.clone());
        }
        if let Some(timings) = chunk.get("timings").filter(|t| t.is_object()) {
            self.timings = Some(timings.clone());
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(None);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(reason.to_owned());
        }
        let delta = &choice["delta"];
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap_or(0);
            let entry = self.calls.entry(index).or_default();
            if let Some(id) = call["id"].as_str() {
                entry.0.push_str(id);
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                entry.1.push_str(name);
            }
            if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                entry.2.push_str(args);
            }
        }
        match delta["content"].as_str() {
            Some(text) if !text.is_empty() => {
                self.text.push_str(text);
                Ok(Some(text.to_owned()))
            }
            _ => Ok(None),
        }
    }

    /// Ends the reply where its text went into a loop ([`repetition`]):
    /// the text is kept up to the end of the block's first copy.
    fn cut_at_repetition(&mut self) -> Option<Repetition> {
        let (end, period) = repetition(&self.text)?;
        let block: String = self.text[end - period..end].chars().take(60).collect();
        let chars = self.text.chars().count();
        self.text.truncate(end);
        self.finish = Some("length".to_owned());
        self.usage_from_timings();
        Some(Repetition {
            block,
            period,
            chars,
        })
    }

    /// Ends the reply at its first complete call, when it holds one: a
    /// native call whose arguments are a whole JSON object (the calls
    /// complete by then are kept, a call still being written is dropped),
    /// or text that `text_cut` cuts after a call it holds.
    fn cut_at_first_call(&mut self, text_cut: &TextCut<'_>) -> bool {
        let complete = |(_, name, args): &(String, String, String)| {
            !name.is_empty() && serde_json::from_str::<Value>(args).is_ok_and(|v| v.is_object())
        };
        if self.calls.values().any(complete) {
            self.calls.retain(|_, call| complete(call));
        } else if let Some(text) = text_cut(&self.text) {
            self.text = text;
        } else {
            return false;
        }
        self.finish = Some(
            if self.calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .to_owned(),
        );
        self.usage_from_timings();
        true
    }

    /// The usage of a reply whose stream is closed before its usage
    /// chunk: llama.cpp's `timings` of the last chunk.
    fn usage_from_timings(&mut self) {
        if self.usage.is_none()
            && let Some(t) = &self.timings
        {
            let (cached, processed, predicted) = (
                t["cache_n"].as_u64().unwrap_or(0),
                t["prompt_n"].as_u64().unwrap_or(0),
                t["predicted_n"].as_u64().unwrap_or(0),
            );
            self.usage = Some(json!({
                "prompt_tokens": cached + processed,
                "completion_tokens": predicted,
                "prompt_tokens_details": {"cached_tokens": cached},
            }));
        }
    }

    fn finish(self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .into_values()
            .map(|(id, name, args)| {
                json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
            })
            .collect();
        let mut message = json!({"role": "assistant", "content": self.text});
        if !calls.is_empty() {
            message["tool_calls"] = Value::Array(calls);
        }
        let mut reply =
            json!({"choices": [{"index": 0, "message": message, "finish_reason": self.finish}]});
        if let Some(usage) = self.usage {
            reply["usage"] = usage;
        }
        reply
    }
}

impl AnthropicParts {
    fn take(&mut self, event: &Event) -> Result<Option<String>, StreamError> {
        let data = json_of(event)?;
        let kind = event
            .name
            .clone()
            .or_else(|| data["type"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let index = data["index"].as_u64().unwrap_or(0);
        match kind.as_str() {
            "message_start" => {
                if let Some(Value::Object(m)) = data.get("message") {
                    self.message = m.clone();
                    if let Some(Value::Object(u)) = m.get("usage") {
                        self.usage.extend(u.clone());
                    }
                }
            }
            "content_block_start" => {
                let mut block = data["content_block"].clone();
                if block["type"] == "tool_use" {
                    self.json.insert(index, String::new());
                    block["input"] = json!({});
                }
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let text = delta["text"].as_str().unwrap_or_default();
                        if let Some(block) = self.blocks.get_mut(&index) {
                            let mut now = block["text"].as_str().unwrap_or_default().to_owned();
                            now.push_str(text);
                            block["text"] = Value::String(now);
                        }
                        return Ok((!text.is_empty()).then(|| text.to_owned()));
                    }
                    Some("input_json_delta") => {
                        let piece = delta["partial_json"].as_str().unwrap_or_default();
                        self.json.entry(index).or_default().push_str(piece);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(text) = self.json.remove(&index)
                    && let Some(block) = self.blocks.get_mut(&index)
                {
                    block["input"] = if text.trim().is_empty() {
                        json!({})
                    } else {
                        serde_json::from_str(&text).map_err(|e| {
                            StreamError::Retry(format!(
                                "the streamed arguments of a tool call are not JSON ({e})"
                            ))
                        })?
                    };
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason") {
                    self.stop = Some(reason.clone());
                }
                if let Some(Value::Object(u)) = data.get("usage") {
                    self.usage.extend(u.clone());
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let kind = data
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or("error");
                let message = data
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)");
                let text = format!("{kind} in the stream: {message}");
                return Err(match kind {
                    "overloaded_error" | "api_error" | "rate_limit_error" => {
                        StreamError::Retry(text)
                    }
                    _ => StreamError::Fatal(text),
                });
            }
            _ => {}
        }
        Ok(None)
    }

    fn finish(self) -> Value {
        if !self.json.is_empty() {
            // A tool call whose arguments never closed: not a reply.
            return json!({"type": "error", "error": {"message": "a streamed tool call did not finish"}});
        }
        let mut message = self.message;
        message.insert("type".into(), json!("message"));
        message.insert(
            "content".into(),
            Value::Array(self.blocks.into_values().collect()),
        );
        message.insert("usage".into(), Value::Object(self.usage));
        if let Some(stop) = self.stop {
            message.insert("stop_reason".into(), stop);
        }
        Value::Object(message)
    }
}

/// Cuts a reply's text after the first call written in it, or `None`
/// while it holds none.
pub(super) type TextCut<'a> = dyn Fn(&str) -> Option<String> + Send + Sync + 'a;

/// A streamed reply rebuilt in the shape of a non-streamed one, and
/// whether reading stopped at a loop.
pub(super) struct Streamed {
    pub(super) value: Value,
    pub(super) repetition: Option<Repetition>,
}

/// Reads a streamed reply from `response`, handing text to `on_text`.
/// With `first_call`, reading stops once the reply holds a complete call
/// ([`FirstCall`](crate::FirstCall)): its text is cut by that function;
/// and once its text goes into a loop ([`repetition`](super::repetition)).
pub(super) async fn read(
    mut response: reqwest::Response,
    format: WireFormat,
    idle: Duration,
    max_bytes: usize,
    first_call: Option<&TextCut<'_>>,
    mut on_text: impl FnMut(&str),
) -> Result<Streamed, StreamError> {
    let mut sse = Sse::default();
    let mut parts = Assembler::new(format);
    let mut read = 0usize;
    let whole = |value| Streamed {
        value,
        repetition: None,
    };
    loop {
        let chunk = match tokio::time::timeout(idle, response.chunk()).await {
            Err(_) => {
                return Err(StreamError::Retry(format!(
                    "the stream sent nothing for {:.1} s",
                    idle.as_secs_f64()
                )));
            }
            Ok(Err(err)) => {
                return Err(StreamError::Retry(format!(
                    "the stream broke: {}",
                    super::error::describe_http_error(&err)
                )));
            }
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        read += chunk.len();
        if read > max_bytes {
            return Err(StreamError::Retry(format!(
                "the streamed reply is larger than {} MiB",
                max_bytes >> 20
            )));
        }
        for event in sse.push(&chunk) {
            if let Some(text) = parts.take(&event)? {
                on_text(&text);
            }
            // Dropping `response` closes the connection, which ends the
            // generation on the server.
            if let (Some(cut), Assembler::OpenAi(openai)) = (first_call, &mut parts) {
                if openai.cut_at_first_call(cut) {
                    return Ok(whole(parts.finish()));
                }
                if let Some(repetition) = openai.cut_at_repetition() {
                    return Ok(Streamed {
                        value: parts.finish(),
                        repetition: Some(repetition),
                    });
                }
            }
        }
        if parts.is_done() {
            break;
        }
    }
    // A last event without its blank line.
    for event in sse.push(b"\n\n") {
        if let Some(text) = parts.take(&event)? {
            on_text(&text);
        }
    }
    if !parts.is_done() {
        let last = match format {
            WireFormat::OpenAiChat => "data: [DONE]",
            WireFormat::AnthropicMessages => "message_stop",
        };
        return Err(StreamError::Retry(format!(
            "the stream ended before {last}: the reply is incomplete"
        )));
    }
    Ok(whole(parts.finish()))
}

#[cfg(test)]
mod tests;
