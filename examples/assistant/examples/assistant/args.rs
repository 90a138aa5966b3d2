//! The assistant's command line: its options and commands (clap), and the
//! readers of the flags that take one of a few words.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use optimclaw_agent::{CallReading, FirstCall, ListLoaded};

#[derive(Parser, Debug)]
#[command(
    name = "assistant",
    about = "The OptimClaw tool catalog, served lazily",
    version
)]
pub(crate) struct Cli {
    /// Base folder for data, skills, secrets and config [default: $OPTIMCLAW_HOME or ~/.optimclaw].
    #[arg(long, global = true)]
    pub(crate) home: Option<PathBuf>,
    /// Workspace folder for file tools and shell [default: HOME/workspace].
    #[arg(long, global = true)]
    pub(crate) workspace: Option<PathBuf>,
    /// Allow http/web_fetch/webhooks to reach this URL prefix (repeatable; adds to HOME/allowlist.txt).
    #[arg(long = "allow", global = true)]
    pub(crate) allow: Vec<String>,
    /// Let allowlisted host names resolve to private or local addresses.
    #[arg(long = "allow-private", global = true)]
    pub(crate) allow_private: bool,
    /// Let shell commands use the network (the sandbox refuses sockets by default).
    #[arg(long = "shell-network", global = true)]
    pub(crate) shell_network: bool,
    /// Run shell commands WITHOUT the operating-system sandbox (for kernels without Landlock; not recommended).
    #[arg(long = "unsandboxed-shell", global = true)]
    pub(crate) unsandboxed_shell: bool,
    /// Add the tools of an MCP tools/list JSON file as deferred tools (repeatable).
    #[arg(long = "manifest", global = true)]
    pub(crate) manifests: Vec<PathBuf>,
    /// Import the tools of the MCP servers in this `mcpServers` JSON file as deferred `server__tool`s.
    #[arg(long = "mcp-config", global = true)]
    pub(crate) mcp_config: Option<PathBuf>,
    /// Load WebAssembly tools from this folder [default: HOME/wasm] (needs `--features wasm`).
    #[arg(long = "wasm-dir", global = true)]
    pub(crate) wasm_dir: Option<PathBuf>,
    /// Let WASM tools whose manifest asks for this environment variable see it (repeatable).
    #[arg(long = "wasm-grant-env", global = true)]
    pub(crate) wasm_grant_env: Vec<String>,
    /// Let WASM tools whose manifest asks for this folder (or one below it) see it (repeatable).
    #[arg(long = "wasm-grant-dir", global = true)]
    pub(crate) wasm_grant_dir: Vec<PathBuf>,
    /// tool_info also searches by meaning, with vectors from this OpenAI-compatible embeddings endpoint (base URL, e.g. http://127.0.0.1:11434/v1; key in $OPTIMCLAW_EMBED_API_KEY; needs --embed-model).
    #[arg(long = "embed-url", global = true)]
    pub(crate) embed_url: Option<String>,
    /// The embeddings endpoint's model (with --embed-url).
    #[arg(long = "embed-model", global = true)]
    pub(crate) embed_model: Option<String>,
    /// Code mode: the model gets run_code and writes one JavaScript program that calls tools (await tools.NAME(args)) instead of a request per call; tool_info answers with TypeScript declarations (chat, serve, report).
    #[arg(long = "code-mode", global = true)]
    pub(crate) code_mode: bool,
    /// tool_info reranks its best candidates with this /rerank endpoint (whole URL, e.g. http://127.0.0.1:8080/rerank; Cohere, Jina, Voyage and text-embeddings-inference shapes; key in $OPTIMCLAW_RERANK_API_KEY; needs --rerank-model).
    #[arg(long = "rerank-url", global = true)]
    pub(crate) rerank_url: Option<String>,
    /// tool_info asks this OpenAI-compatible chat model (base URL, e.g. http://127.0.0.1:11434/v1) to pick among its best candidates, or none (needs --rerank-model).
    #[arg(long = "rerank-chat-url", global = true)]
    pub(crate) rerank_chat_url: Option<String>,
    /// The reranking endpoint's model (with --rerank-url or --rerank-chat-url).
    #[arg(long = "rerank-model", global = true)]
    pub(crate) rerank_model: Option<String>,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// What eager and lazy loading send, in tokens (the default command).
    Report {
        /// The dialect to count [openai, openai-strict, openai-responses, anthropic, gemini, mcp, text].
        #[arg(long, default_value = "openai")]
        provider: String,
        /// Note budget in characters before names are grouped.
        #[arg(long)]
        note_budget: Option<usize>,
    },
    /// Print exactly what a first request would send.
    Prompt {
        /// Every tool in full.
        #[arg(long, conflicts_with = "lazy")]
        eager: bool,
        /// Core tools, tool_info and the note.
        #[arg(long)]
        lazy: bool,
        /// The dialect.
        #[arg(long, default_value = "openai")]
        provider: String,
        /// Use the provider's own deferral (anthropic, openai-responses).
        #[arg(long)]
        native_deferral: bool,
    },
    /// Ask tool_info, as a model would.
    ToolInfo {
        /// A tool name, names separated by commas, or keywords.
        query: String,
        /// How many tools at most.
        #[arg(long, default_value_t = 5)]
        max_results: usize,
    },
    /// Call a tool with JSON arguments.
    Call {
        /// The tool name.
        name: String,
        /// The arguments, as a JSON object.
        #[arg(default_value = "{}")]
        json: String,
    },
    /// Replay the document's example flow through a real session.
    Demo,
    /// Serve the catalog over MCP on standard input/output, or streamable HTTP.
    Serve {
        /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8931) instead of stdio.
        #[arg(long)]
        http: Option<String>,
        /// Lazy loading on for MCP clients (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long, conflicts_with = "eager")]
        lazy: bool,
        /// Every tool listed (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long)]
        eager: bool,
        /// HTTP: live sessions at most; at the cap the least recently used session that made no request after initialize is closed, and with none such a new one gets HTTP 503 with Retry-After.
        #[arg(long, default_value_t = 10_000)]
        max_sessions: usize,
        /// HTTP: live sessions one access key may hold; more get HTTP 429 with Retry-After.
        #[arg(long, default_value_t = 1_000)]
        max_sessions_per_key: usize,
        /// HTTP: tool calls one access key may have running at once; more get HTTP 429 with Retry-After.
        #[arg(long, default_value_t = 64)]
        max_calls_per_key: usize,
        /// HTTP: a Host name to answer besides IP addresses and localhost (repeatable; name or name:port; * for any), e.g. the name clients or a proxy use.
        #[arg(long = "allowed-host", value_name = "HOST")]
        allowed_hosts: Vec<String>,
        /// HTTP: a browser Origin to accept besides pages on this machine and the allowed hosts (repeatable, e.g. https://app.example.com, http://dev.example:* for any port); other Origins get HTTP 403.
        #[arg(long = "allowed-origin", value_name = "ORIGIN")]
        allowed_origins: Vec<String>,
        /// HTTP: close a session after this many seconds without a request.
        #[arg(long, default_value_t = 600)]
        session_idle: u64,
        /// HTTP: no session state; every request answered on its own (for replicas behind a load balancer).
        #[arg(long)]
        stateless: bool,
        /// Tool calls running at once over every client; more are refused at once.
        #[arg(long, default_value_t = 256)]
        max_calls: usize,
        /// HTTP: access keys, one per line: a token, then optionally the tool patterns it may use (default: OPTIMCLAW_MCP_TOKEN, every tool).
        #[arg(long)]
        token_file: Option<PathBuf>,
        /// Lists that grow per connection as tool_info loads tools, announced with list_changed (only for clients on protocol versions with sessions); default: one fixed list.
        #[arg(long)]
        list_changed: bool,
    },
    /// Talk to a model with the catalog: OpenAI-compatible chat completions
    /// (OpenAI, vLLM, llama.cpp, Ollama…) or Anthropic messages.
    Chat {
        /// Answer this one message and exit.
        #[arg(long)]
        once: Option<String>,
        /// Wire format: openai (chat completions) or anthropic (messages).
        #[arg(long, default_value = "openai")]
        format: String,
        /// Base URL, e.g. http://127.0.0.1:11434/v1 [default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's].
        #[arg(long)]
        base_url: Option<String>,
        /// Model [default: OPTIMCLAW_MODEL, else gpt-4.1-mini / claude-sonnet-4-5].
        #[arg(long)]
        model: Option<String>,
        /// Model requests per message at most.
        #[arg(long, default_value_t = 12)]
        max_steps: usize,
        /// tool_info calls in a row (no other tool between) before the model is told to use what it has; 0: no limit.
        #[arg(long, default_value_t = 3)]
        max_searches: usize,
        /// Anthropic: the provider's own tool search instead of tool_info.
        #[arg(long)]
        native_deferral: bool,
        /// Chat completions: tools in OpenAI's strict mode.
        #[arg(long)]
        strict: bool,
        /// How tools found by tool_info reach later requests: append, bridge or native [default: bridge for openai, native for anthropic].
        #[arg(long)]
        strategy: Option<String>,
        /// Lazy loading on (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long, conflicts_with = "eager")]
        lazy: bool,
        /// Every tool in full (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long)]
        eager: bool,
        /// Attach to each message the tool that matches it strongly, before the model asks (the default; needs the bridge strategy).
        #[arg(long, conflicts_with = "no_preload")]
        preload: bool,
        /// Attach nothing: the model finds tools through tool_info alone.
        #[arg(long)]
        no_preload: bool,
        /// Anthropic prompt caching: breakpoints (the default), automatic (one top-level cache_control) or off.
        #[arg(long, default_value = "breakpoints")]
        cache: String,
        /// Anthropic cache lifetime: 5m or 1h.
        #[arg(long, default_value = "5m")]
        cache_ttl: String,
        /// OpenAI: the prompt_cache_key sent with every request.
        #[arg(long)]
        prompt_cache_key: Option<String>,
        /// Show the model's answer as it streams in.
        #[arg(long)]
        stream: bool,
        /// Leave the oldest exchanges out of requests once the history passes this many tokens (default: never).
        #[arg(long)]
        compact_at: Option<usize>,
        /// What a compaction keeps of the history, in tokens [default: a third of --compact-at].
        #[arg(long, requires = "compact_at")]
        compact_to: Option<usize>,
        /// No `tools` field: tools described in the system prompt, calls read from the model's text (servers without native tool calling).
        #[arg(long)]
        text_tools: bool,
        /// Attached and loaded tools also in the request's `tools`: auto (every endpoint but OpenAI's and Anthropic's own APIs), always or never.
        #[arg(long, default_value = "auto", value_parser = list_loaded_flag)]
        list_loaded: ListLoaded,
        /// The most tokens one reply may have.
        #[arg(long, default_value_t = 2048)]
        max_tokens: u32,
        /// Read a reply only up to its first complete tool call: auto (servers on this machine or a private network), always or never.
        #[arg(long, default_value = "auto", value_parser = first_call_flag)]
        first_call: FirstCall,
        /// Who reads the model's tool calls: auto (the agent for servers on this machine or a private network, which then get `tool_choice: "none"` and never refuse a call; the server elsewhere), server or agent.
        #[arg(long, default_value = "auto", value_parser = call_reading_flag)]
        call_reading: CallReading,
        /// A JSON object of fields added to every request, for what a server takes beyond the wire format (e.g. '{"timings_per_token": true}' for llama.cpp).
        #[arg(long)]
        extra_body: Option<String>,
    },
    /// Search the tools of the given manifests (or the catalog without one).
    Search {
        /// The query (omit with --batch).
        query: Option<String>,
        /// How many tools at most.
        #[arg(long, default_value_t = 10)]
        max_results: usize,
        /// Read `{"id", "query"}` lines on stdin; write `{"id", "results"}` lines.
        #[arg(long)]
        batch: bool,
    },
}

/// `--list-loaded`: auto, always or never.
fn list_loaded_flag(value: &str) -> Result<ListLoaded, String> {
    one_of(
        value,
        &[
            ("auto", ListLoaded::Auto),
            ("always", ListLoaded::Always),
            ("never", ListLoaded::Never),
        ],
    )
}

/// `--first-call`: auto, always or never.
fn first_call_flag(value: &str) -> Result<FirstCall, String> {
    one_of(
        value,
        &[
            ("auto", FirstCall::Auto),
            ("always", FirstCall::Always),
            ("never", FirstCall::Never),
        ],
    )
}

/// `--call-reading`: auto, server or agent.
fn call_reading_flag(value: &str) -> Result<CallReading, String> {
    one_of(
        value,
        &[
            ("auto", CallReading::Auto),
            ("server", CallReading::Server),
            ("agent", CallReading::Agent),
        ],
    )
}

/// The choice named `value`, or an error listing the names.
fn one_of<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, choice)| *choice)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
            format!("unknown value {value:?}; use {}", names.join(", "))
        })
}
