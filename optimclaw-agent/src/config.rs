//! How the agent loop behaves: [`AgentOptions`].

use std::time::Duration;

use optimclaw::config::LoadStrategy;
use optimclaw::preload::PreloadOptions;

use super::cache::{CacheTtl, PromptCache};
use super::compact::Compaction;

/// How the loop behaves. The defaults suit an interactive assistant;
/// change them with the setters:
///
/// ```
/// use std::time::Duration;
/// use optimclaw_agent::AgentOptions;
/// use optimclaw::LoadStrategy;
///
/// let options = AgentOptions::default()
///     .with_system("You are a careful assistant.")
///     .with_strategy(LoadStrategy::Bridge)
///     .with_max_steps(20)
///     .with_call_timeout(Duration::from_secs(120));
/// assert_eq!(options.max_steps, 20);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct AgentOptions {
    /// Text put before the lazy note in the system prompt.
    pub system: Option<String>,
    /// Model requests per [`Agent::send`](crate::Agent::send) before giving up (default 12).
    pub max_steps: usize,
    /// Time limit of each tool call (default 60 s).
    pub call_timeout: Duration,
    /// Time limit of each HTTP request. `None` (the default): 120 s for
    /// OpenAI's and Anthropic's own APIs, 600 s for any other endpoint,
    /// where a model on a CPU may take minutes to write its output cap
    /// (Qwen2.5-Coder 0.5B on two cores writes 2,048 tokens in about 140 s,
    /// the 1.5B in about 300 s) and a request sent again after a time-out
    /// only starts that work over.
    pub request_timeout: Option<Duration>,
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
    /// How tools found by `tool_info` reach later requests; `None` keeps
    /// the session's own ([`LazyConfig::strategy`](optimclaw::LazyConfig)).
    pub strategy: Option<LoadStrategy>,
    /// A tool result longer than this many characters is cut (default
    /// 50,000), with a line saying how much was left out.
    pub max_result_chars: usize,
    /// The search guard: after this many `tool_info` calls in one
    /// [`send`](crate::Agent::send) without any other tool call
    /// between them (default 3), the next `tool_info` call is not run; its
    /// answer tells the model to use the tools it has or to answer the
    /// user. A call of any other tool starts the count again. `0` turns
    /// the guard off. Counted in [`RequestUsage::searches_refused`](crate::RequestUsage).
    pub max_searches: usize,
    /// Anthropic: how requests ask for prompt caching (default
    /// [`PromptCache::Breakpoints`]; the API caches nothing unmarked).
    pub cache: PromptCache,
    /// Anthropic: how long a written prefix stays (default 5 minutes).
    pub cache_ttl: CacheTtl,
    /// OpenAI: the `prompt_cache_key` sent with every request of this
    /// agent, so its requests land on the same cache (e.g. one per user
    /// or per conversation). `None` sends none.
    pub prompt_cache_key: Option<String>,
    /// Tools attached to each user message before it goes out
    /// ([`Session::preload`](optimclaw::Session::preload)): the few that match
    /// it strongly, called through the bridge. Needs the bridge strategy
    /// (with another one nothing is attached, and the first request says
    /// so at `warn`). Default on, with [`PreloadOptions::default`]. The
    /// agent sets [`PreloadOptions::listed_in_tools`] itself: on where it
    /// lists attached tools in `tools` ([`list_loaded`](Self::list_loaded)).
    pub preload: Option<PreloadOptions>,
    /// Stream replies (`"stream": true`; chat completions with
    /// `stream_options.include_usage`): text reaches
    /// [`AgentEvent::TextDelta`](crate::AgentEvent) as it arrives,
    /// tool calls are assembled from their pieces. Default off.
    pub stream: bool,
    /// While streaming, a reply that sends nothing for this long is a
    /// failed attempt, retried like a dropped connection (default 60 s).
    pub stream_idle_timeout: Duration,
    /// Code mode: the model gets `run_code` and writes one program that
    /// calls tools instead of calling them one request at a time
    /// ([`optimclaw::code`]). Needs a registry built with
    /// [`LazyConfig::code_mode`](optimclaw::LazyConfig::code_mode) (it holds
    /// `run_code`); [`Agent::new`](crate::Agent::new) refuses one
    /// without. A registry in code mode is in code mode whatever this says.
    /// Default off.
    pub code_mode: bool,
    /// Leave the oldest exchanges out of requests once the history grows
    /// past a budget ([`Compaction`]); the transcript keeps them. Tools
    /// attached in what is left out may be attached again. Default off:
    /// every request carries the whole conversation.
    pub compaction: Option<Compaction>,
    /// How tool calls travel: in the request's `tools` field and the
    /// reply's `tool_calls` (default), or as text for servers without
    /// native tool calling ([`ToolCalls`]).
    pub tool_calls: ToolCalls,
    /// Whether tools attached by preload or loaded by `tool_info` also go
    /// in the request's `tools` array, so a model may call them by name
    /// ([`ListLoaded`]; default [`ListLoaded::Auto`]).
    pub list_loaded: ListLoaded,
    /// End the turn when the model stops making progress (default on):
    /// the same failing call twice in a row ends it with
    /// [`AgentError::NoProgress`](crate::AgentError::NoProgress), or with
    /// the last result of a tool that succeeded earlier in the turn as the
    /// answer when there is one; a tool
    /// called again with the same arguments after it succeeded, or fed its
    /// own last result, or a call of a tool that does not exist right after
    /// one succeeded, ends it with that result as the answer.
    pub stop_when_stuck: bool,
    /// Take the noise small models add to valid arguments (an extra field
    /// beside the required ones, a number sent as text, for a read-only
    /// tool one field under another name): see
    /// [`CallOptions::lenient`](optimclaw::CallOptions::lenient). Never
    /// changes a string value, and never fills a path, address, scope or
    /// secret from another field. Default on.
    pub lenient_arguments: bool,
    /// Read a reply only up to its first complete tool call
    /// ([`FirstCall`]; default [`FirstCall::Auto`]: on for servers on this
    /// machine or a private network).
    pub first_call: FirstCall,
    /// Who reads the model's tool calls out of its output: the server or
    /// the agent ([`CallReading`]; default [`CallReading::Auto`]: the agent,
    /// on servers on this machine or a private network).
    pub call_reading: CallReading,
}

/// How tool calls travel between the agent and the model.
///
/// Whatever this says, a reply without native calls whose text is a call
/// (a bare JSON object `{"name", "arguments"}`, a fenced `json` block,
/// `<tool_call>` tags, several of them) is read as calls: small models
/// served with their own chat template write their calls that way, and the
/// server returns them as plain text. Prose stays prose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolCalls {
    /// Tools in the request's `tools` field; calls from the reply's
    /// `tool_calls` (or its text).
    #[default]
    Native,
    /// No `tools` field at all: the tools are described in the system
    /// prompt ([`Dialect::Text`](optimclaw::provider::Dialect::Text)), calls
    /// are read from the reply's text and results go back as a user
    /// message. For servers without native tool calling.
    Text,
}

/// Whether a reply is read only up to its first complete tool call.
///
/// Given a tool's result, a small model often writes the call again, or a
/// call of a tool it made up, over and over until its output cap: minutes
/// of generation on a CPU, and on a server that parses calls against
/// `tools` (llama.cpp, vLLM) an output the server then refuses whole. When
/// on, the reply is streamed and reading stops once it holds one complete
/// call, native (`tool_calls` whose arguments are a whole JSON object) or
/// written as text, and the model writes on; closing the stream ends the
/// generation. The calls complete by then are kept, the rest dropped, so
/// a model makes one call at a time. A server reports a reply's usage at
/// its end, so a reply cut short has none, unless the server sends it on
/// the way: llama.cpp does with `timings_per_token`
/// (`ModelConfig::with_extra_field("timings_per_token", true.into())`),
/// and its per-chunk `timings` are then read as the reply's usage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FirstCall {
    /// On for OpenAI-compatible servers on this machine or a private
    /// network (`localhost`, loopback, private and link-local addresses;
    /// [`ModelConfig::is_local`](crate::ModelConfig::is_local)), where
    /// small models run, unless marked as the provider's own API
    /// ([`ModelConfig::first_party`](crate::ModelConfig::first_party));
    /// off elsewhere, where parallel calls of larger models are kept.
    #[default]
    Auto,
    /// On for every OpenAI-compatible endpoint.
    Always,
    /// Off: every reply is read whole.
    Never,
}

/// Who reads the model's tool calls out of what it wrote.
///
/// A server that parses calls (llama.cpp with a template whose calls it
/// parses, vLLM with a tool parser) checks them against the request's
/// `tools`: a call of a tool the model made up, an argument it invented,
/// or a call in a shape the parser does not take is refused whole
/// (llama.cpp: HTTP 500, "does not match the expected … format"), and the
/// model never hears why. Small models do all three. Read by the agent,
/// the request still carries `tools`, so the server's chat template shows
/// them to the model as it was trained to see them, but also
/// `tool_choice: "none"`, so the server returns what the model wrote as
/// text; the agent reads the calls in it (see [`ToolCalls`]) and answers
/// a wrong one with an error the model can act on. A server that parses
/// anyway (Ollama takes no `tool_choice`) sends `tool_calls`, read as
/// usual.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallReading {
    /// The agent on OpenAI-compatible servers on this machine or a private
    /// network ([`ModelConfig::is_local`](crate::ModelConfig::is_local))
    /// not marked as the provider's own API; the server elsewhere.
    #[default]
    Auto,
    /// The server: no `tool_choice` is sent, and calls come in
    /// `tool_calls`.
    Server,
    /// The agent, on every OpenAI-compatible endpoint with native tool
    /// calls.
    Agent,
}

/// Whether attached and loaded tools go in the request's `tools` array.
///
/// Under the bridge strategy the array never changes (the core tools,
/// `tool_info`, `call_tool`), which keeps a provider's prompt cache warm;
/// frontier models call an attached tool through `call_tool`. Small models
/// call it by name instead, and the servers they run on (llama.cpp with a
/// template whose calls it parses, vLLM, Ollama, Groq) refuse a call to a
/// tool that is not in `tools`. Listing the attached and loaded tools
/// there makes those calls valid, at the price of a `tools` array that
/// grows through the conversation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListLoaded {
    /// Listed for every endpoint but OpenAI's and Anthropic's own APIs
    /// (`api.openai.com`, `api.anthropic.com`), where the array stays fixed.
    #[default]
    Auto,
    /// Always listed.
    Always,
    /// Never listed.
    Never,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            system: None,
            max_steps: 12,
            call_timeout: Duration::from_secs(60),
            request_timeout: None,
            max_retries: 4,
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(60),
            native_deferral: false,
            strict: false,
            strategy: None,
            max_result_chars: 50_000,
            max_searches: 3,
            cache: PromptCache::default(),
            cache_ttl: CacheTtl::default(),
            prompt_cache_key: None,
            preload: Some(PreloadOptions::default()),
            stream: false,
            stream_idle_timeout: Duration::from_secs(60),
            code_mode: false,
            compaction: None,
            tool_calls: ToolCalls::Native,
            list_loaded: ListLoaded::Auto,
            stop_when_stuck: true,
            lenient_arguments: true,
            first_call: FirstCall::Auto,
            call_reading: CallReading::Auto,
        }
    }
}

impl AgentOptions {
    /// Sets [`tool_calls`](Self::tool_calls).
    #[must_use]
    pub fn with_tool_calls(mut self, calls: ToolCalls) -> Self {
        self.tool_calls = calls;
        self
    }

    /// Sets [`first_call`](Self::first_call).
    #[must_use]
    pub fn with_first_call(mut self, first_call: FirstCall) -> Self {
        self.first_call = first_call;
        self
    }

    /// Sets [`call_reading`](Self::call_reading).
    #[must_use]
    pub fn with_call_reading(mut self, reading: CallReading) -> Self {
        self.call_reading = reading;
        self
    }

    /// Sets [`list_loaded`](Self::list_loaded).
    #[must_use]
    pub fn with_list_loaded(mut self, list: ListLoaded) -> Self {
        self.list_loaded = list;
        self
    }

    /// Sets [`lenient_arguments`](Self::lenient_arguments).
    #[must_use]
    pub fn with_lenient_arguments(mut self, on: bool) -> Self {
        self.lenient_arguments = on;
        self
    }

    /// Sets [`stop_when_stuck`](Self::stop_when_stuck).
    #[must_use]
    pub fn with_stop_when_stuck(mut self, on: bool) -> Self {
        self.stop_when_stuck = on;
        self
    }

    /// Sets [`system`](Self::system).
    #[must_use]
    pub fn with_system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// Sets [`max_searches`](Self::max_searches) (`0`: no guard).
    #[must_use]
    pub fn with_max_searches(mut self, searches: usize) -> Self {
        self.max_searches = searches;
        self
    }

    /// Sets [`max_steps`](Self::max_steps).
    #[must_use]
    pub fn with_max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// Sets [`call_timeout`](Self::call_timeout).
    #[must_use]
    pub fn with_call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// The time limit of each request to `model`:
    /// [`request_timeout`](Self::request_timeout), or its default for
    /// that endpoint.
    pub(crate) fn request_timeout_for(&self, model: &crate::ModelConfig) -> Duration {
        self.request_timeout
            .unwrap_or(Duration::from_secs(if model.is_first_party() {
                120
            } else {
                600
            }))
    }

    /// Sets [`request_timeout`](Self::request_timeout).
    #[must_use]
    pub fn with_request_timeout(mut self, limit: Duration) -> Self {
        self.request_timeout = Some(limit);
        self
    }

    /// Sets [`max_retries`](Self::max_retries), [`backoff`](Self::backoff)
    /// and [`max_backoff`](Self::max_backoff).
    #[must_use]
    pub fn with_retries(
        mut self,
        max_retries: u32,
        backoff: Duration,
        max_backoff: Duration,
    ) -> Self {
        self.max_retries = max_retries;
        self.backoff = backoff;
        self.max_backoff = max_backoff;
        self
    }

    /// Sets [`native_deferral`](Self::native_deferral).
    #[must_use]
    pub fn with_native_deferral(mut self, on: bool) -> Self {
        self.native_deferral = on;
        self
    }

    /// Sets [`strategy`](Self::strategy).
    #[must_use]
    pub fn with_strategy(mut self, strategy: LoadStrategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// Sets [`strict`](Self::strict).
    #[must_use]
    pub fn with_strict(mut self, on: bool) -> Self {
        self.strict = on;
        self
    }

    /// Sets [`cache`](Self::cache) and [`cache_ttl`](Self::cache_ttl).
    #[must_use]
    pub fn with_cache(mut self, cache: PromptCache, ttl: CacheTtl) -> Self {
        self.cache = cache;
        self.cache_ttl = ttl;
        self
    }

    /// Sets [`stream`](Self::stream).
    #[must_use]
    pub fn with_stream(mut self, on: bool) -> Self {
        self.stream = on;
        self
    }

    /// Sets [`code_mode`](Self::code_mode).
    #[must_use]
    pub fn with_code_mode(mut self, on: bool) -> Self {
        self.code_mode = on;
        self
    }

    /// Sets [`stream_idle_timeout`](Self::stream_idle_timeout).
    #[must_use]
    pub fn with_stream_idle_timeout(mut self, idle: Duration) -> Self {
        self.stream_idle_timeout = idle;
        self
    }

    /// Sets [`preload`](Self::preload) (`None`: attach nothing).
    #[must_use]
    pub fn with_preload(mut self, preload: Option<PreloadOptions>) -> Self {
        self.preload = preload;
        self
    }

    /// Sets [`prompt_cache_key`](Self::prompt_cache_key).
    #[must_use]
    pub fn with_prompt_cache_key(mut self, key: impl Into<String>) -> Self {
        self.prompt_cache_key = Some(key.into());
        self
    }

    /// Sets [`compaction`](Self::compaction) (`None`: never).
    #[must_use]
    pub fn with_compaction(mut self, compaction: Option<Compaction>) -> Self {
        self.compaction = compaction;
        self
    }

    /// Sets [`max_result_chars`](Self::max_result_chars).
    #[must_use]
    pub fn with_max_result_chars(mut self, chars: usize) -> Self {
        self.max_result_chars = chars;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ModelConfig, WireFormat};

    #[test]
    fn a_local_server_gets_minutes_a_provider_two() {
        let local = ModelConfig::new(WireFormat::OpenAiChat, "http://127.0.0.1:8080/v1", "qwen");
        let openai = ModelConfig::new(WireFormat::OpenAiChat, "https://api.openai.com/v1", "gpt");
        let options = AgentOptions::default();
        assert_eq!(
            options.request_timeout_for(&local),
            Duration::from_secs(600)
        );
        assert_eq!(
            options.request_timeout_for(&openai),
            Duration::from_secs(120)
        );
        let set = options.with_request_timeout(Duration::from_secs(30));
        assert_eq!(set.request_timeout_for(&local), Duration::from_secs(30));
        assert_eq!(set.request_timeout_for(&openai), Duration::from_secs(30));
    }
}
