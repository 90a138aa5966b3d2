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
//! # async fn run() -> Result<(), optimclaw::agent::AgentError> {
//! use optimclaw::agent::{Agent, AgentOptions, ModelConfig, WireFormat};
//! use optimclaw::{Registry, Session};
//! let session = Session::new(Registry::from_linked().unwrap());
//! let model = ModelConfig::from_env(WireFormat::OpenAiChat, None, None)?;
//! let mut agent = Agent::new(session, model, AgentOptions::default())?;
//! let reply = agent.send("What time is it in Tokyo?").await?;
//! println!("{}", reply.text);
//! # Ok(()) }
//! ```

mod anthropic;
mod openai;

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use futures_util::future::join_all;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{default_dotenv_path, read_dotenv};
use crate::provider::{Dialect, RenderOptions, SchemaError};
use crate::registry::json_type_name;
use crate::{CallOptions, Session, ToolContext, ToolError, ToolErrorKind};

/// The wire format of a model endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireFormat {
    /// OpenAI-compatible `POST {base}/chat/completions`.
    OpenAiChat,
    /// Anthropic `POST {base}/v1/messages`.
    AnthropicMessages,
}

impl WireFormat {
    /// `openai` or `anthropic`.
    pub fn name(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "openai",
            WireFormat::AnthropicMessages => "anthropic",
        }
    }

    /// Parses [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "chat" | "chat-completions" => Some(WireFormat::OpenAiChat),
            "anthropic" | "messages" => Some(WireFormat::AnthropicMessages),
            _ => None,
        }
    }

    /// The variable holding the API key.
    pub fn key_variable(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "OPENAI_API_KEY",
            WireFormat::AnthropicMessages => "ANTHROPIC_API_KEY",
        }
    }

    /// The variable holding the base URL (as the providers' SDKs name it).
    pub fn base_url_variable(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "OPENAI_BASE_URL",
            WireFormat::AnthropicMessages => "ANTHROPIC_BASE_URL",
        }
    }

    /// The provider's own endpoint.
    pub fn default_base_url(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "https://api.openai.com/v1",
            WireFormat::AnthropicMessages => "https://api.anthropic.com",
        }
    }

    /// The model used when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "gpt-4.1-mini",
            WireFormat::AnthropicMessages => "claude-sonnet-4-5",
        }
    }

    /// The dialect its tools are rendered in.
    pub fn dialect(self) -> Dialect {
        match self {
            WireFormat::OpenAiChat => Dialect::OpenAi,
            WireFormat::AnthropicMessages => Dialect::Anthropic,
        }
    }

    fn endpoint(self, base: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            WireFormat::OpenAiChat => format!("{base}/chat/completions"),
            WireFormat::AnthropicMessages => format!("{base}/v1/messages"),
        }
    }
}

impl fmt::Display for WireFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An API key. Never printed: `Debug` shows `ApiKey(***)`, and every error
/// text taken from an endpoint has the key cut out.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    fn redact(&self, text: &str) -> String {
        if self.0.len() >= 4 {
            text.replace(&self.0, "***")
        } else {
            text.to_owned()
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// The variable naming the model, for both wire formats.
pub const MODEL_VAR: &str = "OPTIMCLAW_MODEL";

/// Which endpoint, model and key.
#[derive(Clone, Debug)]
pub struct ModelConfig {
    /// The wire format.
    pub format: WireFormat,
    /// Base URL: for chat completions up to and including `/v1`
    /// (`http://127.0.0.1:11434/v1` for Ollama); for Anthropic the host
    /// (`https://api.anthropic.com`).
    pub base_url: String,
    /// The model name sent in each request.
    pub model: String,
    /// The key, if the endpoint needs one.
    pub api_key: Option<ApiKey>,
    /// `max_tokens` of each Anthropic request (required there; chat
    /// completions requests leave the length to the endpoint).
    pub max_tokens: u32,
}

impl ModelConfig {
    /// A configuration without a key.
    pub fn new(format: WireFormat, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ModelConfig {
            format,
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            max_tokens: 4096,
        }
    }

    /// Sets the key.
    #[must_use]
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Reads the key, base URL and model from the environment, then from
    /// `~/.optimclaw/.env`; `base_url` and `model` given here win.
    ///
    /// The key is required for the provider's own endpoint; with another
    /// base URL (a local server) it is optional.
    pub fn from_env(
        format: WireFormat,
        base_url: Option<String>,
        model: Option<String>,
    ) -> Result<Self, AgentError> {
        let dotenv = default_dotenv_path();
        Self::from_sources(
            format,
            base_url,
            model,
            |name| std::env::var(name).ok(),
            dotenv.as_deref(),
        )
    }

    /// [`from_env`](Self::from_env) with the environment and the `.env`
    /// file given (for tests and embedding).
    pub fn from_sources(
        format: WireFormat,
        base_url: Option<String>,
        model: Option<String>,
        env: impl Fn(&str) -> Option<String>,
        dotenv: Option<&std::path::Path>,
    ) -> Result<Self, AgentError> {
        let lookup = |name: &str| -> Result<Option<String>, AgentError> {
            if let Some(value) = env(name).filter(|v| !v.trim().is_empty()) {
                return Ok(Some(value.trim().to_owned()));
            }
            match dotenv {
                Some(path) => read_dotenv(path, name)
                    .map(|v| v.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()))
                    .map_err(|e| AgentError::Config(e.to_string())),
                None => Ok(None),
            }
        };
        let base_url = match base_url {
            Some(url) => url,
            None => lookup(format.base_url_variable())?
                .unwrap_or_else(|| format.default_base_url().to_owned()),
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(AgentError::Config(format!(
                "the base URL `{base_url}` is not an http:// or https:// URL"
            )));
        }
        let model = match model {
            Some(model) => model,
            None => lookup(MODEL_VAR)?.unwrap_or_else(|| format.default_model().to_owned()),
        };
        let key = lookup(format.key_variable())?.map(ApiKey);
        let official = base_url.trim_end_matches('/') == format.default_base_url();
        if key.is_none() && official {
            return Err(AgentError::MissingKey {
                variable: format.key_variable(),
                dotenv: dotenv.map(std::path::Path::to_path_buf),
            });
        }
        Ok(ModelConfig {
            api_key: key,
            ..ModelConfig::new(format, base_url, model)
        })
    }
}

/// How the loop behaves.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AgentOptions {
    /// Text put before the lazy note in the system prompt.
    pub system: Option<String>,
    /// Model requests per [`Agent::send`] before giving up (default 12).
    pub max_steps: usize,
    /// Time limit of each tool call (default 60 s).
    pub call_timeout: Duration,
    /// Time limit of each HTTP request (default 120 s).
    pub request_timeout: Duration,
    /// Retries of one request after a retryable failure (default 4).
    pub max_retries: u32,
    /// First backoff; doubled each retry, with jitter (default 500 ms).
    pub backoff: Duration,
    /// Longest wait between retries, `Retry-After` included (default 60 s);
    /// a longer `Retry-After` ends the retries with an error saying so.
    pub max_backoff: Duration,
    /// Anthropic only: send every tool with `defer_loading` plus the
    /// provider's tool-search tool instead of `tool_info` and the note.
    pub native_deferral: bool,
    /// Chat completions only: send tools in OpenAI's strict mode (closed
    /// objects, every field required, optional ones nullable), so the
    /// arguments always match the schema.
    pub strict: bool,
    /// A tool result longer than this many characters is cut (default
    /// 50,000), with a line saying how much was left out.
    pub max_result_chars: usize,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            system: None,
            max_steps: 12,
            call_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(120),
            max_retries: 4,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
            native_deferral: false,
            strict: false,
            max_result_chars: 50_000,
        }
    }
}

impl AgentOptions {
    /// Sets [`system`](Self::system).
    #[must_use]
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// Sets [`max_steps`](Self::max_steps).
    #[must_use]
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// Sets [`call_timeout`](Self::call_timeout).
    #[must_use]
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    #[must_use]
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = limit;
        self
    }

    /// Sets [`max_retries`](Self::max_retries), [`backoff`](Self::backoff)
    /// and [`max_backoff`](Self::max_backoff).
    #[must_use]
    pub fn retries(mut self, max_retries: u32, backoff: Duration, max_backoff: Duration) -> Self {
        self.max_retries = max_retries;
        self.backoff = backoff;
        self.max_backoff = max_backoff;
        self
    }

    /// Sets [`native_deferral`](Self::native_deferral).
    #[must_use]
    pub fn native_deferral(mut self, on: bool) -> Self {
        self.native_deferral = on;
        self
    }

    /// Sets [`strict`](Self::strict).
    #[must_use]
    pub fn strict(mut self, on: bool) -> Self {
        self.strict = on;
        self
    }

    /// Sets [`max_result_chars`](Self::max_result_chars).
    #[must_use]
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.max_result_chars = chars;
        self
    }
}

/// What went wrong talking to the model. The transcript is kept whatever
/// the error.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentError {
    /// No key configured for the provider's own endpoint.
    MissingKey {
        /// The variable to set.
        variable: &'static str,
        /// The `.env` file also read.
        dotenv: Option<PathBuf>,
    },
    /// A setting is wrong.
    Config(String),
    /// The endpoint refused the key (401/403).
    Auth {
        /// The HTTP status.
        status: u16,
        /// The endpoint's message (key removed).
        message: String,
        /// The variable holding the key.
        variable: &'static str,
    },
    /// The endpoint refused the request (another 4xx).
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The endpoint's message.
        message: String,
    },
    /// Retries ran out on 429s, 5xx, network errors or malformed replies.
    Unavailable {
        /// The last failure.
        message: String,
        /// Requests made.
        attempts: u32,
    },
    /// The model was still calling tools after this many requests.
    StepLimit {
        /// The limit.
        steps: usize,
    },
    /// [`CancelHandle::cancel`] was called.
    Cancelled,
    /// A tool cannot be described in the wire format's dialect.
    Schema(SchemaError),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::MissingKey { variable, dotenv } => {
                write!(f, "no API key: set {variable} in the environment")?;
                if let Some(path) = dotenv {
                    write!(f, " or add `{variable}=...` to {}", path.display())?;
                }
                write!(
                    f,
                    " (a local OpenAI-compatible server that needs no key: pass its --base-url)"
                )
            }
            AgentError::Config(msg) => f.write_str(msg),
            AgentError::Auth {
                status,
                message,
                variable,
            } => write!(
                f,
                "the endpoint refused the API key (HTTP {status}): {message}; check {variable}"
            ),
            AgentError::Rejected { status, message } => {
                write!(
                    f,
                    "the endpoint rejected the request (HTTP {status}): {message}"
                )
            }
            AgentError::Unavailable { message, attempts } => write!(
                f,
                "the model endpoint failed {attempts} time(s); last: {message}"
            ),
            AgentError::StepLimit { steps } => write!(
                f,
                "the model was still calling tools after {steps} requests; stopped (the conversation is kept: send another message or resume)"
            ),
            AgentError::Cancelled => f.write_str("cancelled"),
            AgentError::Schema(err) => fmt::Display::fmt(err, f),
        }
    }
}

impl std::error::Error for AgentError {}

impl From<SchemaError> for AgentError {
    fn from(err: SchemaError) -> Self {
        AgentError::Schema(err)
    }
}

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
}

/// One turn of the conversation.
#[derive(Clone, Debug, PartialEq)]
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
}

/// Token use reported by the endpoint for one request, beside what the
/// tools cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestUsage {
    /// 1-based request number within the agent.
    pub request: usize,
    /// Input tokens the endpoint reported.
    pub input_tokens: Option<u64>,
    /// Output tokens the endpoint reported.
    pub output_tokens: Option<u64>,
    /// Input tokens served from the provider's prompt cache.
    pub cached_input_tokens: Option<u64>,
    /// Tools sent with the request.
    pub tools_sent: usize,
    /// Tokens (o200k) of the tools and note this request sent.
    pub tool_tokens: Option<usize>,
    /// Tokens (o200k) the same request would have spent sending every tool.
    pub eager_tool_tokens: Option<usize>,
}

/// The model's answer to one [`Agent::send`].
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The final text.
    pub text: String,
    /// Model requests this answer took.
    pub requests: usize,
    /// Tool calls run on the way.
    pub tool_calls: usize,
}

/// Something the loop did, for a progress display.
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
    /// A tool call starts.
    ToolCall(&'a ToolCallRequest),
    /// A tool call finished.
    ToolResult(&'a ToolOutcome),
}

/// Cancels whatever [`Agent::send`] is running, from another task.
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

/// A conversation with a model, with the session's tools.
pub struct Agent {
    session: Session,
    model: ModelConfig,
    options: AgentOptions,
    http: reqwest::Client,
    ctx: ToolContext,
    transcript: Vec<Turn>,
    usage: Vec<RequestUsage>,
    cancel: CancelHandle,
    eager_tool_tokens: Option<Option<usize>>,
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
        let http = reqwest::Client::builder()
            .timeout(options.request_timeout)
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
        Agent {
            session,
            model,
            options,
            http,
            ctx: ToolContext::new(),
            transcript: Vec::new(),
            usage: Vec::new(),
            cancel: CancelHandle::default(),
            eager_tool_tokens: None,
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
        on_event: impl FnMut(AgentEvent<'_>),
    ) -> Result<Reply, AgentError> {
        self.transcript.push(Turn::User(message.to_owned()));
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
        loop {
            if requests == self.options.max_steps {
                return Err(AgentError::StepLimit {
                    steps: self.options.max_steps,
                });
            }
            requests += 1;
            let rendered = self.session.render(
                self.dialect(),
                RenderOptions {
                    native_deferral: self.options.native_deferral
                        && self.model.format == WireFormat::AnthropicMessages,
                },
            )?;
            let system = match (&self.options.system, &rendered.system) {
                (Some(a), Some(b)) => Some(format!("{a}\n\n{b}")),
                (Some(a), None) => Some(a.clone()),
                (None, b) => b.clone(),
            };
            let body = match self.model.format {
                WireFormat::OpenAiChat => openai::request(
                    &self.model,
                    system.as_deref(),
                    &rendered.tools,
                    &self.transcript,
                ),
                WireFormat::AnthropicMessages => anthropic::request(
                    &self.model,
                    system.as_deref(),
                    &rendered.tools,
                    &self.transcript,
                ),
            };
            on_event(AgentEvent::Request {
                request: self.usage.len() + 1,
                tools: rendered.tools.len(),
            });
            let reply = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AgentError::Cancelled),
                reply = self.post(&body, &mut on_event) => reply?,
            };
            let mut usage = reply.usage;
            usage.request = self.usage.len() + 1;
            usage.tools_sent = rendered.tools.len();
            self.measure_tools(&mut usage, &rendered.tools, rendered.system.as_deref());
            on_event(AgentEvent::Usage(&usage));
            self.usage.push(usage);
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
            tool_calls += reply.calls.len();
            for call in &reply.calls {
                on_event(AgentEvent::ToolCall(call));
            }
            let outcomes = self.run_calls(&reply.calls, &cancel).await;
            for outcome in &outcomes {
                on_event(AgentEvent::ToolResult(outcome));
            }
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

    #[cfg(feature = "tokens")]
    fn measure_tools(&mut self, usage: &mut RequestUsage, tools: &[Value], note: Option<&str>) {
        use crate::tokens::{Encoding, RequestTokens};
        usage.tool_tokens = Some(RequestTokens::measure(tools, note, Encoding::O200kBase).total());
        if self.eager_tool_tokens.is_none() {
            let eager = self
                .session
                .registry()
                .prompt::<&str>(&crate::LazyConfig::eager(), &[])
                .render(self.dialect(), RenderOptions::default())
                .ok()
                .map(|r| RequestTokens::measure(&r.tools, None, Encoding::O200kBase).total());
            self.eager_tool_tokens = Some(eager);
        }
        usage.eager_tool_tokens = self.eager_tool_tokens.flatten();
    }

    #[cfg(not(feature = "tokens"))]
    fn measure_tools(&mut self, _: &mut RequestUsage, _: &[Value], _: Option<&str>) {}

    async fn run_calls(
        &self,
        calls: &[ToolCallRequest],
        cancel: &CancellationToken,
    ) -> Vec<ToolOutcome> {
        let ctx = self.ctx.clone().with_cancellation(cancel.child_token());
        let options = CallOptions::timeout(self.options.call_timeout);
        let runs = calls.iter().map(|call| {
            let ctx = &ctx;
            async move {
                let started = Instant::now();
                let result = match &call.arguments {
                    Ok(args) => {
                        self.session
                            .call_with(&call.name, args.clone(), ctx, options)
                            .await
                    }
                    Err(why) => Err(ToolError::with_kind(
                        ToolErrorKind::InvalidArguments,
                        format!(
                            "the arguments of `{}` are not a JSON object ({why}); send the arguments again as one JSON object",
                            call.name
                        ),
                    )),
                };
                let (content, is_error) = match result {
                    Ok(value) => (value.to_string(), false),
                    Err(err) => (err.to_json().to_string(), true),
                };
                ToolOutcome {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    content: cap_chars(content, self.options.max_result_chars),
                    is_error,
                    elapsed: started.elapsed(),
                }
            }
        });
        join_all(runs).await
    }

    /// POSTs with retries; parses the reply.
    async fn post(
        &self,
        body: &Value,
        on_event: &mut impl FnMut(AgentEvent<'_>),
    ) -> Result<ModelReply, AgentError> {
        let url = self.model.format.endpoint(&self.model.base_url);
        let headers = self.headers()?;
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failure = match self
                .http
                .post(&url)
                .headers(headers.clone())
                .body(body.clone())
                .send()
                .await
            {
                Err(err) => Failure::retry(describe_http_error(&err), None),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = retry_after(response.headers());
                    match read_capped(response).await {
                        Err(message) => Failure::retry(message, None),
                        Ok(bytes) => match self.classify(status, &bytes, retry_after) {
                            Ok(reply) => return Ok(reply),
                            Err(Err(fatal)) => return Err(fatal),
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
                    let mut value =
                        HeaderValue::from_str(&format!("Bearer {}", key.0)).map_err(bad_key)?;
                    value.set_sensitive(true);
                    headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
            WireFormat::AnthropicMessages => {
                if let Some(key) = &self.model.api_key {
                    let mut value = HeaderValue::from_str(&key.0).map_err(bad_key)?;
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

/// A parsed model reply.
struct ModelReply {
    text: String,
    calls: Vec<ToolCallRequest>,
    native: Option<Value>,
    usage: RequestUsage,
    /// Anthropic's `pause_turn`: send the reply back and let it go on.
    paused: bool,
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

/// A reqwest error as one line (what failed, then each cause), without the
/// URL: its query may hold credentials.
pub fn describe_http_error(err: &reqwest::Error) -> String {
    let mut msg = if err.is_timeout() {
        "the request timed out".to_owned()
    } else if err.is_redirect() {
        "a redirect was refused".to_owned()
    } else if err.is_connect() {
        "could not connect".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

fn cap_chars(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text,
        Some((cut, _)) => {
            let left = text[cut..].chars().count();
            format!("{}\n[{left} more characters cut]", &text[..cut])
        }
    }
}

/// Parses tool-call arguments sent as a JSON text.
fn parse_arguments(raw: &str) -> Result<Value, String> {
    let raw = if raw.trim().is_empty() { "{}" } else { raw };
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(other) => Err(format!("got {}", json_type_name(&other))),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64)
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

    #[test]
    fn cap_keeps_short_text_and_says_what_was_cut() {
        assert_eq!(cap_chars("abc".into(), 3), "abc");
        assert_eq!(cap_chars("abcdé".into(), 3), "abc\n[2 more characters cut]");
    }

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

    #[test]
    fn keys_never_show() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(
            key.redact("bad key sk-secret-123 given"),
            "bad key *** given"
        );
    }

    #[test]
    fn missing_key_names_the_variable() {
        let err =
            ModelConfig::from_sources(WireFormat::AnthropicMessages, None, None, |_| None, None)
                .unwrap_err();
        assert!(err.to_string().contains("set ANTHROPIC_API_KEY"), "{err}");
        let local = ModelConfig::from_sources(
            WireFormat::OpenAiChat,
            Some("http://127.0.0.1:11434/v1".into()),
            Some("llama3".into()),
            |_| None,
            None,
        )
        .unwrap();
        assert!(local.api_key.is_none());
        let err = ModelConfig::from_sources(
            WireFormat::OpenAiChat,
            Some("ftp://x".into()),
            None,
            |_| None,
            None,
        )
        .unwrap_err();
        assert!(err.to_string().contains("not an http"), "{err}");
    }
}
