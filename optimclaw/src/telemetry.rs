//! Tracing spans named and attributed per the OpenTelemetry semantic
//! conventions for generative AI: `execute_tool` around every tool call,
//! `chat` around every model request of the agent loop, and a `tool_info`
//! event with its hit count.
//!
//! Spans cost next to nothing without a subscriber (`tracing` checks one
//! flag per call site). Attribute names are the conventions' own
//! (`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//! `gen_ai.request.model`, `gen_ai.usage.input_tokens`, `error.type`), and
//! `otel.name` / `otel.status_code` give `tracing-opentelemetry` the span
//! name (`execute_tool shell`, `chat gpt-4.1`) and status. Export to an
//! OpenTelemetry collector by adding `tracing_opentelemetry::layer()` to the
//! subscriber (README, "Tracing").
//!
//! Arguments, results and `tool_info` queries are **not** recorded unless
//! [`record_content`] is on (or `OPTIMCLAW_TRACE_CONTENT=1`): they may hold
//! personal data. When recorded they are redacted first — values under keys
//! that name credentials (`password`, `token`, `secret`, `key`, …) become
//! `[redacted]`, the call's output filter
//! ([`ToolContext::with_output_filter`](crate::ToolContext::with_output_filter))
//! runs over the text — and cut to [`MAX_RECORDED_CHARS`].

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::Value;
use tracing::Span;
use tracing::field::Empty;

use crate::context::OutputFilter;
use crate::error::ToolError;

/// Recorded arguments and results are cut to this many characters.
pub const MAX_RECORDED_CHARS: usize = 4_096;

/// The environment variable that turns content recording on (`1`/`true`).
pub const CONTENT_ENV: &str = "OPTIMCLAW_TRACE_CONTENT";

/// 0: not decided yet (read the environment), 1: off, 2: on.
static CONTENT: AtomicU8 = AtomicU8::new(0);

/// Records tool arguments, results and `tool_info` queries on spans (off by
/// default), redacted and cut. Turn it on while debugging a conversation,
/// or where the trace store may hold users' data; leave it off otherwise.
pub fn record_content(on: bool) {
    CONTENT.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether content is recorded: [`record_content`], else [`CONTENT_ENV`].
pub fn records_content() -> bool {
    match CONTENT.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => {
            static FROM_ENV: OnceLock<bool> = OnceLock::new();
            *FROM_ENV.get_or_init(|| {
                std::env::var(CONTENT_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true"))
            })
        }
    }
}

/// Key names whose values are never recorded.
fn is_sensitive_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "key",
        "authorization",
        "cookie",
        "credential",
        "private",
        "value",
    ]
    .iter()
    .any(|word| key == *word || key.contains(word))
}

fn mask(value: &mut Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    if is_sensitive_key(key) {
                        *item = Value::String("[redacted]".to_owned());
                    } else {
                        stack.push(item);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// `value` as recorded: sensitive keys masked, the output filter applied,
/// cut to [`MAX_RECORDED_CHARS`].
pub fn redacted(value: &Value, filter: Option<&OutputFilter>) -> String {
    let mut value = value.clone();
    mask(&mut value);
    let mut text = value.to_string();
    if let Some(filter) = filter
        && let Some(clean) = filter(&text)
    {
        text = clean;
    }
    if text.chars().count() > MAX_RECORDED_CHARS {
        text = text.chars().take(MAX_RECORDED_CHARS).collect();
        text.push('…');
    }
    text
}

/// The span of one tool call.
pub(crate) fn tool_span(name: &str, call_id: Option<&str>) -> Span {
    tracing::info_span!(
        target: "optimclaw::tool",
        "execute_tool",
        otel.name = format!("execute_tool {name}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
        error.message = Empty,
    )
}

/// The span of one program run by `run_code` (inside its `execute_tool`
/// span; each tool call the program makes is an `execute_tool` span under
/// it). `tool_calls` is recorded when the program ends.
pub fn code_span() -> Span {
    tracing::info_span!(
        target: "optimclaw::code",
        "execute_code",
        otel.name = "execute_code",
        otel.kind = "internal",
        otel.status_code = Empty,
        tool_calls = Empty,
        error.message = Empty,
    )
}

/// Records the arguments on `span` when content is recorded.
pub(crate) fn record_arguments(span: &Span, args: &Value, filter: Option<&OutputFilter>) {
    if records_content() && !span.is_disabled() {
        span.record("gen_ai.tool.call.arguments", redacted(args, filter));
    }
}

/// Records the outcome of a call on its span.
pub(crate) fn record_outcome(
    span: &Span,
    result: &Result<Value, ToolError>,
    filter: Option<&OutputFilter>,
) {
    if span.is_disabled() {
        return;
    }
    match result {
        Ok(value) => {
            if records_content() {
                span.record("gen_ai.tool.call.result", redacted(value, filter));
            }
        }
        Err(err) => {
            span.record("otel.status_code", "ERROR");
            span.record("error.type", err.kind().as_str());
            if records_content() {
                span.record("error.message", err.to_string());
            }
        }
    }
}

/// The event of one `tool_info` answer (inside its `execute_tool` span):
/// `hits`, how many tools it returned, `no_match`, whether it said nothing
/// matched well, and `query` when content is recorded.
pub(crate) fn tool_info_event(query: &str, hits: usize, no_match: bool) {
    if records_content() {
        let shown = redacted(&serde_json::Value::String(query.to_owned()), None);
        tracing::info!(
            target: "optimclaw::tool_info",
            hits = hits,
            no_match = no_match,
            query = %shown,
            "tool_info answered"
        );
    } else {
        tracing::info!(
            target: "optimclaw::tool_info",
            hits = hits,
            no_match = no_match,
            "tool_info answered"
        );
    }
}

/// The span of one model request (`chat`). `provider` is the conventions'
/// `gen_ai.provider.name` (`openai`, `anthropic`).
pub fn chat_span(provider: &str, model: &str, server: &str) -> Span {
    tracing::info_span!(
        target: "optimclaw::chat",
        "chat",
        otel.name = format!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        server.address = server,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.response.tool_calls = Empty,
        error.type = Empty,
    )
}

/// Records a model request's token counts (those the endpoint reported)
/// and how many tool calls it asked for.
pub fn record_chat_usage(
    span: &Span,
    input: Option<u64>,
    output: Option<u64>,
    cached: Option<u64>,
    tool_calls: usize,
) {
    if let Some(n) = input {
        span.record("gen_ai.usage.input_tokens", n);
    }
    if let Some(n) = output {
        span.record("gen_ai.usage.output_tokens", n);
    }
    if let Some(n) = cached {
        span.record("gen_ai.usage.cache_read.input_tokens", n);
    }
    span.record("gen_ai.response.tool_calls", tool_calls);
}

/// Marks a span failed with `error.type` (a short, stable name).
pub fn record_error(span: &Span, error_type: &str) {
    span.record("otel.status_code", "ERROR");
    span.record("error.type", error_type);
}
