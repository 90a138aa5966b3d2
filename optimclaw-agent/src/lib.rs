//! A model loop over a [`Session`]: send the lazy prompt, run the tool
//! calls the model asks for (in parallel), feed the results back, repeat
//! until the model answers.
//!
//! Two wire formats: OpenAI-compatible chat completions (`/chat/completions`
//! under a base URL: OpenAI, vLLM, llama.cpp's server, Ollama…) and
//! Anthropic messages (`/v1/messages`). Requests are retried with
//! exponential backoff on 429 (honouring `Retry-After`), 5xx, network
//! errors and malformed replies; 401/403 and other 4xx stop at once with the
//! endpoint's message. Whatever happens, the transcript keeps every turn, so
//! [`Agent::resume`] or the next [`Agent::send`] goes on from there.
//!
//! ```no_run
//! # async fn run() -> Result<(), optimclaw_agent::AgentError> {
//! use optimclaw_agent::{Agent, AgentOptions, ModelConfig, WireFormat};
//! use optimclaw::{Registry, Session};
//! let session = Session::new(Registry::from_linked().unwrap());
//! let model = ModelConfig::from_env(WireFormat::OpenAiChat, None, None)?;
//! let mut agent = Agent::new(session, model, AgentOptions::default())?;
//! let reply = agent.send("What time is it in Tokyo?").await?;
//! println!("{}", reply.text);
//! # Ok(()) }
//! ```
//!
//! Files: `config.rs` (wire formats, keys, [`ModelConfig`], [`AgentOptions`]),
//! `error.rs` ([`AgentError`]), `transcript.rs` (turns, replies, usage),
//! `request.rs` (the next request's body), `cache.rs` (prompt caching as
//! each provider defines it), `compact.rs` (leaving the oldest exchanges
//! out of a long history), `http.rs` (the POST with retries, capped
//! reads, backoff), `stream.rs` (streamed replies), `reply.rs` (a parsed
//! reply), `guard.rs` (the search guard), one file per wire format
//! (`openai.rs`, `anthropic.rs`), and the loop here.

#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod anthropic;
mod cache;
mod calls;
mod compact;
mod config;
mod error;
mod guard;
mod http;
mod local;
mod measure;
mod model;
mod openai;
mod progress;
mod repetition;
mod reply;
mod request;
mod stream;
mod textcall;
mod transcript;

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use optimclaw::Session;
use optimclaw::ToolContext;
use optimclaw::config::LoadStrategy;
use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::telemetry;
use optimclaw::{RUN_CODE, TOOL_INFO};

pub use cache::{CacheTtl, PromptCache};
pub use calls::{MAX_IMAGE_BYTES, MAX_IMAGES};
pub use compact::Compaction;
pub use config::{AgentOptions, CallReading, FirstCall, ListLoaded, ToolCalls};
pub use error::AgentError;
use guard::SearchGuard;
pub use model::{ApiKey, MODEL_VAR, ModelConfig, WireFormat};
use progress::{ProgressGuard, Verdict};
use reply::{ModelReply, count, parse_arguments};
pub use transcript::{AgentEvent, Reply, RequestUsage, ToolCallRequest, ToolOutcome, Turn};

/// Cancels whatever [`Agent::send`] is running, from another task: keep
/// one in a Ctrl-C handler or a UI's stop button.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<Mutex<CancellationToken>>);

impl CancelHandle {
    /// Cancels the running turn (pending tool calls are cancelled too); the
    /// next `send` starts afresh.
    pub fn cancel(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
    }

    fn fresh(&self) -> CancellationToken {
        let mut token = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if token.is_cancelled() {
            *token = CancellationToken::new();
        }
        token.clone()
    }
}

/// A conversation with a model, with the session's tools. Use it when the
/// program talks to the model itself; an MCP host or another agent
/// framework (rig) runs its own loop. See the [module docs](self) for an
/// example.
pub struct Agent {
    session: Session,
    model: ModelConfig,
    options: AgentOptions,
    http: reqwest::Client,
    ctx: ToolContext,
    transcript: Vec<Turn>,
    /// The first turn requests carry (compaction moves it on).
    history_start: usize,
    /// Tokens of each turn counted so far ([`compact::turn_tokens`]).
    turn_sizes: Vec<usize>,
    usage: Vec<RequestUsage>,
    cancel: CancelHandle,
    /// The eager tools array's tokens, once measured (`measure.rs`).
    #[cfg(feature = "tokens")]
    eager_tool_tokens: Option<usize>,
    /// The preload-needs-the-bridge warning was given.
    preload_warned: bool,
    /// The server's tool-call parser refused an output of the model's:
    /// every later request carries the tools in the system prompt, and
    /// the model's calls come back as text.
    parser_refused: std::sync::atomic::AtomicBool,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.model)
            .field("turns", &self.transcript.len())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent with its own HTTP client.
    pub fn new(
        session: Session,
        model: ModelConfig,
        options: AgentOptions,
    ) -> Result<Self, AgentError> {
        // reqwest is built without a TLS provider of its own; ring is ours
        // (an application that installed another keeps it).
        let _ = rustls::crypto::ring::default_provider().install_default();
        if options.code_mode && session.registry().get(RUN_CODE).is_none() {
            return Err(AgentError::Config(
                "code mode needs a registry built with LazyConfig::code_mode (optimclaw's `code-mode` feature): it holds the run_code tool".into(),
            ));
        }
        if options.tool_calls == ToolCalls::Text && model.format != WireFormat::OpenAiChat {
            return Err(AgentError::Config(
                "text tool calls (ToolCalls::Text) need the chat-completions wire format; the messages API has native tool calls".into(),
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(options.request_timeout_for(&model))
            .user_agent(concat!("optimclaw/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AgentError::Config(format!("the HTTP client cannot be built: {e}")))?;
        Ok(Self::with_client(session, model, options, http))
    }

    /// An agent using `http` (its timeouts and proxies apply).
    pub fn with_client(
        session: Session,
        model: ModelConfig,
        options: AgentOptions,
        http: reqwest::Client,
    ) -> Self {
        // A strategy (or code mode) in the options wins over the session's own.
        let code_mode = options.code_mode && !session.lazy_config().code_mode;
        let session = match options.strategy {
            _ if code_mode => {
                let mut lazy = session.lazy_config().clone().with_code_mode(true);
                if let Some(strategy) = options.strategy {
                    lazy = lazy.with_strategy(strategy);
                }
                let fresh = Session::with_lazy(session.registry().clone(), lazy);
                fresh.load(session.loaded());
                fresh
            }
            Some(strategy) if strategy != session.lazy_config().strategy => {
                let lazy = session.lazy_config().clone().with_strategy(strategy);
                let fresh = Session::with_lazy(session.registry().clone(), lazy);
                fresh.load(session.loaded());
                fresh
            }
            _ => session,
        };
        Agent {
            session,
            model,
            options,
            http,
            ctx: ToolContext::new(),
            transcript: Vec::new(),
            history_start: 0,
            turn_sizes: Vec::new(),
            usage: Vec::new(),
            cancel: CancelHandle::default(),
            #[cfg(feature = "tokens")]
            eager_tool_tokens: None,
            preload_warned: false,
            parser_refused: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Uses `ctx` for tool calls (values tools take from their context).
    #[must_use]
    pub fn context(mut self, ctx: ToolContext) -> Self {
        self.ctx = ctx;
        self
    }

    /// The session (its loaded tools).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The model configuration.
    pub fn model(&self) -> &ModelConfig {
        &self.model
    }

    /// Every turn so far.
    pub fn transcript(&self) -> &[Turn] {
        &self.transcript
    }

    /// The turns requests carry now: the transcript from where compaction
    /// ([`AgentOptions::compaction`]) left it; all of it without.
    pub fn history(&self) -> &[Turn] {
        &self.transcript[self.history_start..]
    }

    /// Token use of every request so far.
    pub fn usage(&self) -> &[RequestUsage] {
        &self.usage
    }

    /// A handle that cancels the running turn.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// The dialect tools are rendered in.
    fn dialect(&self) -> Dialect {
        match self.model.format {
            _ if self.options.tool_calls == ToolCalls::Text => Dialect::Text,
            WireFormat::OpenAiChat if self.options.strict => Dialect::OpenAiStrict,
            format => format.dialect(),
        }
    }

    /// Sends a user message and runs the loop until the model answers.
    pub async fn send(&mut self, message: &str) -> Result<Reply, AgentError> {
        self.send_with(message, |_| {}).await
    }

    /// [`send`](Self::send), reporting progress to `on_event`.
    pub async fn send_with(
        &mut self,
        message: &str,
        mut on_event: impl FnMut(AgentEvent<'_>),
    ) -> Result<Reply, AgentError> {
        self.transcript.push(Turn::User(message.to_owned()));
        if let Some(compaction) = self.options.compaction {
            self.compact(&compaction, &mut on_event);
        }
        if let Some(options) = &self.options.preload {
            let lazy = self.session.lazy_config();
            if lazy.enabled && !lazy.code_mode && lazy.strategy != LoadStrategy::Bridge {
                if std::mem::replace(&mut self.preload_warned, true) {
                    return self.run(on_event).await;
                }
                tracing::warn!(
                    target: "optimclaw::agent",
                    "preload needs the bridge strategy (call_tool); with {} nothing is attached",
                    lazy.strategy.name()
                );
            } else if let Some(p) = self.session.preload(
                message,
                &options.clone().with_listed_in_tools(self.lists_loaded()),
            ) {
                self.transcript.push(Turn::Attached {
                    tools: p.tools,
                    text: p.text,
                });
            }
        }
        self.run(on_event).await
    }

    /// Goes on from the transcript as it is (after an error), without a new
    /// user message.
    pub async fn resume(
        &mut self,
        on_event: impl FnMut(AgentEvent<'_>),
    ) -> Result<Reply, AgentError> {
        self.run(on_event).await
    }

    async fn run(&mut self, mut on_event: impl FnMut(AgentEvent<'_>)) -> Result<Reply, AgentError> {
        let cancel = self.cancel.fresh();
        let mut requests = 0;
        let mut tool_calls = 0;
        let mut guard = SearchGuard::new(self.options.max_searches);
        let mut progress = ProgressGuard::default();
        loop {
            if requests == self.options.max_steps {
                return Err(AgentError::StepLimit {
                    steps: self.options.max_steps,
                });
            }
            requests += 1;
            let mut rendered = self.session.render(
                self.dialect(),
                RenderOptions::default().with_native_deferral(
                    self.options.native_deferral
                        && self.model.format == WireFormat::AnthropicMessages,
                ),
            );
            self.list_loaded(&mut rendered.tools);
            if requests == 1 {
                for degraded in &rendered.degraded {
                    tracing::warn!(target: "optimclaw::agent", "{degraded}");
                }
            }
            let system = match (&self.options.system, &rendered.system) {
                (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
                (Some(a), None) => Some(a.clone()),
                (None, b) => b.clone(),
            };
            let body = self.request_body(system.as_deref(), &rendered.tools);
            on_event(AgentEvent::Request {
                request: self.usage.len() + 1,
                tools: rendered.tools.len(),
            });
            let span = telemetry::chat_span(
                self.model.format.name(),
                &self.model.model,
                &self.model.base_url,
            );
            let reply = tokio::select! {
                biased;
                () = cancel.cancelled() => Err(AgentError::Cancelled),
                reply = self.post(&body, &mut on_event).instrument(span.clone()) => reply,
            };
            let reply = match reply {
                Ok(reply) => {
                    let u = &reply.usage;
                    telemetry::record_chat_usage(
                        &span,
                        u.input_tokens,
                        u.output_tokens,
                        u.cached_input_tokens,
                        reply.calls.len(),
                    );
                    reply
                }
                Err(err) => {
                    telemetry::record_error(&span, err.kind());
                    return Err(err);
                }
            };
            let mut reply = reply;
            if reply.calls.is_empty() && !reply.text.is_empty() {
                self.read_text_calls(&mut reply, tool_calls, progress.in_hand().is_none());
            }
            let mut usage = reply.usage;
            usage.request = self.usage.len() + 1;
            usage.tools_sent = rendered.tools.len();
            self.measure_tools(&mut usage, &rendered.tools, rendered.system.as_deref());
            on_event(AgentEvent::Usage(&usage));
            self.usage.push(usage);
            if reply.calls.is_empty()
                && let Some(repetition) = reply.repetition.take()
            {
                // A reply cut where it went into a loop: the result in hand
                // answers, or the turn ends saying so. The text up to the
                // loop's first copy stays in the history.
                let in_hand = progress.in_hand().filter(|_| self.options.stop_when_stuck);
                return self.end_turn(in_hand, reply.text, (requests, tool_calls), || {
                    AgentError::Repetition {
                        block: repetition.block,
                        chars: repetition.chars,
                    }
                });
            }
            if reply.calls.is_empty()
                && self.options.stop_when_stuck
                && let Some(result) = progress.written_again(&reply.text).or_else(|| {
                    // An empty reply after a result is no answer, nor is the
                    // chat template's call format echoed: the result is.
                    ((reply.text.trim().is_empty() && !reply.paused)
                        || progress::echoes_call_format(&reply.text))
                    .then(|| progress.in_hand())
                    .flatten()
                })
            {
                reply.text = result;
            }
            if reply.calls.is_empty() {
                let text = reply.text.clone();
                self.transcript.push(Turn::Assistant {
                    text: reply.text,
                    calls: reply.calls,
                    native: reply.native,
                });
                if reply.paused {
                    continue;
                }
                return Ok(Reply {
                    text,
                    requests,
                    tool_calls,
                });
            }
            if self.options.stop_when_stuck {
                match progress.judge(&reply.calls, |name| self.names_a_tool(name)) {
                    Verdict::Go => {}
                    Verdict::Repeated { tool, error } => {
                        return self.end_turn(None, reply.text, (requests, tool_calls), || {
                            AgentError::NoProgress { tool, error }
                        });
                    }
                    Verdict::Answered(text) => {
                        // The model's repeated call is not kept: the answer
                        // it already had closes the turn.
                        return Ok(self.answer_turn(text, (requests, tool_calls)));
                    }
                }
                if guard.stuck(&reply.calls) {
                    // Searching on after the search guard said no twice (a
                    // small model searched with the refusal as its query to
                    // the step limit): the result in hand, or the refusal.
                    return self.end_turn(
                        progress.in_hand(),
                        reply.text,
                        (requests, tool_calls),
                        || AgentError::NoProgress {
                            tool: TOOL_INFO.to_owned(),
                            error: guard.refusal(),
                        },
                    );
                }
            }
            tool_calls += reply.calls.len();
            for call in &reply.calls {
                on_event(AgentEvent::ToolCall(call));
            }
            let guarded = guard.refuse(&reply.calls);
            if let Some(usage) = self.usage.last_mut() {
                let searches = reply.calls.iter().filter(|c| c.name == TOOL_INFO).count();
                usage.searches_refused = guarded.iter().filter(|g| **g).count();
                usage.searches = searches - usage.searches_refused;
            }
            let outcomes = self
                .run_calls(&reply.calls, &guarded, &guard.answer(), &cancel)
                .await;
            for outcome in &outcomes {
                on_event(AgentEvent::ToolResult(outcome));
            }
            progress.record(&reply.calls, &outcomes);
            self.transcript.push(Turn::Assistant {
                text: reply.text,
                calls: reply.calls,
                native: reply.native,
            });
            self.transcript.push(Turn::ToolResults(outcomes));
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
        }
    }

    /// Whether `tool_info` results go back as Anthropic `tool_reference`
    /// blocks ([`LoadStrategy::Native`] on the messages API).
    fn native_references(&self) -> bool {
        let lazy = self.session.lazy_config();
        lazy.enabled
            && !lazy.code_mode
            && lazy.strategy == LoadStrategy::Native
            && self.model.format == WireFormat::AnthropicMessages
            && !self.options.native_deferral
    }
}
