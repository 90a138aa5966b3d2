//! Talking HTTP to the model endpoint: the POST with retries and backoff
//! (honouring `Retry-After`), replies read up to a cap, endpoint errors
//! turned into text with the key cut out.

use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::error::describe_http_error;
use super::{Agent, AgentError, AgentEvent, ModelReply, WireFormat, anthropic, openai};

impl Agent {
    /// POSTs with retries; parses the reply.
    pub(super) async fn post(
        &self,
        request: &Value,
        on_event: &mut impl FnMut(AgentEvent<'_>),
    ) -> Result<ModelReply, AgentError> {
        let url = self.model.format.endpoint(&self.model.base_url);
        let headers = self.headers()?;
        let mut body_text = request.to_string();
        let mut attempt = 0;
        // A plain 500 to the same body is resent once, not `max_retries`
        // times: servers answer it for a request they cannot serve (a
        // template error, output that breaks their tool-call parser), and
        // the same request gets the same answer.
        let mut server_errors = 0;
        // Once the server's parser refused the model's output, every
        // request carries the tools in the system prompt: the model's
        // calls come back as text, read here, and are not refused again.
        let mut without_tools = self.parser_refused.load(Ordering::Relaxed);
        if without_tools {
            body_text = super::local::tools_in_system(request).to_string();
        }
        let first_call = self.stops_at_first_call();
        loop {
            attempt += 1;
            let body = &body_text;
            let send = self
                .http
                .post(&url)
                .headers(headers.clone())
                .body(body.clone())
                .send();
            // Streaming: the headers come at once, or the connection stalled.
            let sent = if self.options.stream {
                match tokio::time::timeout(self.options.stream_idle_timeout, send).await {
                    Ok(sent) => sent.map_err(|e| describe_http_error(&e)),
                    Err(_) => Err(format!(
                        "the stream sent nothing for {:.1} s",
                        self.options.stream_idle_timeout.as_secs_f64()
                    )),
                }
            } else {
                send.await.map_err(|e| describe_http_error(&e))
            };
            let failure = match sent {
                Err(message) => Failure::retry(message, None),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = retry_after(response.headers());
                    let streamed = response
                        .headers()
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .is_some_and(|v| v.starts_with("text/event-stream"));
                    if (self.options.stream || first_call)
                        && streamed
                        && (200..300).contains(&status)
                    {
                        let show = self.options.stream;
                        let cut = |text: &str| self.cut_after_first_call(text);
                        let read = super::stream::read(
                            response,
                            self.model.format,
                            self.options.stream_idle_timeout,
                            MAX_REPLY_BYTES,
                            first_call.then_some(&cut as &super::stream::TextCut<'_>),
                            |text| {
                                if show {
                                    on_event(AgentEvent::TextDelta(text));
                                }
                            },
                        )
                        .await;
                        let failure = match read {
                            Ok(streamed) => match self.parse_value(&streamed.value) {
                                Ok(mut reply) => {
                                    reply.repetition = streamed.repetition;
                                    return Ok(reply);
                                }
                                Err(message) => Failure::retry(message, None),
                            },
                            Err(super::stream::StreamError::Retry(message)) => {
                                Failure::retry(message, None)
                            }
                            Err(super::stream::StreamError::Fatal(message))
                                if refused_tool_call(message.as_bytes()) && !without_tools =>
                            {
                                // The parser refused the output mid-stream
                                // (no complete call came before): as below.
                                without_tools = true;
                                body_text = self.after_parser_refusal(request);
                                on_event(AgentEvent::Retry {
                                    attempt,
                                    wait: Duration::ZERO,
                                    reason: REFUSED_REASON,
                                });
                                continue;
                            }
                            Err(super::stream::StreamError::Fatal(message)) => {
                                return Err(AgentError::Rejected { status, message });
                            }
                        };
                        if attempt > self.options.max_retries {
                            return Err(AgentError::Unavailable {
                                message: failure.message,
                                attempts: attempt,
                            });
                        }
                        let wait = backoff(self.options.backoff, self.options.max_backoff, attempt);
                        on_event(AgentEvent::Retry {
                            attempt,
                            wait,
                            reason: &failure.message,
                        });
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                    match read_capped(response).await {
                        Err(message) => Failure::retry(message, None),
                        Ok(bytes) => match self.classify(status, &bytes, retry_after) {
                            Ok(reply) => return Ok(reply),
                            Err(Err(fatal)) => return Err(fatal),
                            Err(Ok(failure)) if status == 500 => {
                                if refused_tool_call(&bytes) && !without_tools {
                                    // The server's parser refused what the model
                                    // wrote (a call of a tool not in `tools`, or a
                                    // call in another shape): ask again with the
                                    // tools described in the system prompt instead,
                                    // so the output comes back as text and is read
                                    // here.
                                    without_tools = true;
                                    body_text = self.after_parser_refusal(request);
                                    on_event(AgentEvent::Retry {
                                        attempt,
                                        wait: Duration::ZERO,
                                        reason: REFUSED_REASON,
                                    });
                                    continue;
                                }
                                server_errors += 1;
                                if server_errors >= 2 {
                                    return Err(AgentError::Unavailable {
                                        message: format!(
                                            "{} (HTTP 500 twice to the same request: not resent again)",
                                            failure.message
                                        ),
                                        attempts: attempt,
                                    });
                                }
                                failure
                            }
                            Err(Ok(failure)) => failure,
                        },
                    }
                }
            };
            if attempt > self.options.max_retries {
                return Err(AgentError::Unavailable {
                    message: failure.message,
                    attempts: attempt,
                });
            }
            let wait = match failure.retry_after {
                Some(wait) if wait > self.options.max_backoff => {
                    return Err(AgentError::Unavailable {
                        message: format!(
                            "{}; the endpoint asks to wait {:.0} s, longer than the {:.0} s allowed",
                            failure.message,
                            wait.as_secs_f64(),
                            self.options.max_backoff.as_secs_f64()
                        ),
                        attempts: attempt,
                    });
                }
                Some(wait) => wait,
                None => backoff(self.options.backoff, self.options.max_backoff, attempt),
            };
            on_event(AgentEvent::Retry {
                attempt,
                wait,
                reason: &failure.message,
            });
            tokio::time::sleep(wait).await;
        }
    }

    /// Remembers for the conversation that the server's parser refused
    /// the model's output; the request again, with the tools in the
    /// system prompt.
    fn after_parser_refusal(&self, request: &Value) -> String {
        self.parser_refused.store(true, Ordering::Relaxed);
        super::local::tools_in_system(request).to_string()
    }

    /// Parses a streamed reply rebuilt in the non-streamed shape.
    fn parse_value(&self, value: &Value) -> Result<ModelReply, String> {
        match self.model.format {
            WireFormat::OpenAiChat => openai::parse(value),
            WireFormat::AnthropicMessages => anthropic::parse(value),
        }
        .map_err(|msg| format!("malformed streamed reply: {msg}"))
    }

    /// A reply, a retryable failure (`Err(Ok)`), or a final error
    /// (`Err(Err)`).
    fn classify(
        &self,
        status: u16,
        bytes: &[u8],
        retry_after: Option<Duration>,
    ) -> Result<ModelReply, Result<Failure, AgentError>> {
        let redact = |text: String| match &self.model.api_key {
            Some(key) => key.redact(&text),
            None => text,
        };
        if (200..300).contains(&status) {
            let parsed = serde_json::from_slice::<Value>(bytes)
                .map_err(|e| format!("the reply is not JSON ({e})"))
                .and_then(|v| match self.model.format {
                    WireFormat::OpenAiChat => openai::parse(&v),
                    WireFormat::AnthropicMessages => anthropic::parse(&v),
                });
            return parsed.map_err(|msg| {
                Ok(Failure::retry(
                    redact(format!(
                        "malformed reply: {msg}; it began: {}",
                        snippet(bytes)
                    )),
                    None,
                ))
            });
        }
        let message = redact(error_message(bytes));
        match status {
            401 | 403 => Err(Err(AgentError::Auth {
                status,
                message,
                variable: self.model.format.key_variable(),
            })),
            408 | 409 | 425 | 429 | 500..=599 => Err(Ok(Failure::retry(
                format!("HTTP {status}: {message}"),
                retry_after,
            ))),
            _ => Err(Err(AgentError::Rejected { status, message })),
        }
    }

    fn headers(&self) -> Result<HeaderMap, AgentError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let bad_key = |_| {
            AgentError::Config(format!(
                "{} holds characters that cannot go in an HTTP header",
                self.model.format.key_variable()
            ))
        };
        match self.model.format {
            WireFormat::OpenAiChat => {
                if let Some(key) = &self.model.api_key {
                    let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                        .map_err(bad_key)?;
                    value.set_sensitive(true);
                    headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
            WireFormat::AnthropicMessages => {
                if let Some(key) = &self.model.api_key {
                    let mut value = HeaderValue::from_str(key.expose()).map_err(bad_key)?;
                    value.set_sensitive(true);
                    headers.insert(HeaderName::from_static("x-api-key"), value);
                }
                headers.insert(
                    HeaderName::from_static("anthropic-version"),
                    HeaderValue::from_static(anthropic::VERSION),
                );
            }
        }
        Ok(headers)
    }
}

struct Failure {
    message: String,
    retry_after: Option<Duration>,
}

impl Failure {
    fn retry(message: String, retry_after: Option<Duration>) -> Self {
        Failure {
            message,
            retry_after,
        }
    }
}

/// What the loop says when it asks again after a parser's refusal.
const REFUSED_REASON: &str = "the server refused the model's output (its tool-call parser); asking again with the tools in the system prompt";

/// Whether a 500 says the model's output was refused by the server's tool
/// call parser (llama.cpp: "does not match the expected … format").
fn refused_tool_call(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).contains("does not match the expected")
}

/// The largest reply read; a longer one is a failed attempt.
const MAX_REPLY_BYTES: usize = 32 << 20;

/// Reads a reply body, refusing one larger than [`MAX_REPLY_BYTES`].
async fn read_capped(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_REPLY_BYTES {
                    return Err(format!(
                        "the reply is larger than {} MiB",
                        MAX_REPLY_BYTES >> 20
                    ));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(err) => {
                return Err(format!(
                    "reading the reply failed: {}",
                    describe_http_error(&err)
                ));
            }
        }
    }
}

/// `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or_default())
}

/// Exponential backoff with jitter: a random wait in [d/2, d], where d is
/// `base · 2^(attempt-1)` capped at `max`.
fn backoff(base: Duration, max: Duration, attempt: u32) -> Duration {
    let full = base.saturating_mul(1u32 << (attempt - 1).min(16)).min(max);
    // Jitter only needs to spread clients apart, not be unpredictable: the
    // clock's sub-second digits are enough (no RNG crate for this).
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let fraction = 0.5 + f64::from(nanos % 1000) / 2000.0;
    full.mul_f64(fraction)
}

fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(200).collect();
    if text.chars().nth(200).is_some() {
        out.push('…');
    }
    out
}

/// The message of an error body (`{"error": {"message": …}}` in both
/// formats), or the start of the body.
fn error_message(bytes: &[u8]) -> String {
    serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("error").filter(|e| e.is_string()))
                .or_else(|| v.get("message"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| {
            if bytes.is_empty() {
                "(empty body)".to_owned()
            } else {
                snippet(bytes)
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let base = Duration::from_millis(100);
        let max = Duration::from_secs(1);
        for attempt in 1..=10 {
            let d = backoff(base, max, attempt);
            let full = base.saturating_mul(1 << (attempt - 1)).min(max);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?}");
        }
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }
}
