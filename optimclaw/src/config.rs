//! `OPTIMCLAW_LAZY_TOOLS` and the rest of the lazy-loading settings.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The environment variable that turns lazy loading on.
pub const LAZY_TOOLS_VAR: &str = "OPTIMCLAW_LAZY_TOOLS";

const ACCEPTED: &str = "1/0, true/false, on/off, yes/no (any case)";

/// How tools are presented to a model. Held per registry and per session:
/// there is no global setting, so two registries in one process (two nodes
/// of a cluster) can differ.
///
/// Use [`LazyConfig::lazy`] when a program has more tools than a model
/// should read on every request; [`LazyConfig::from_env`] lets the user
/// decide with `OPTIMCLAW_LAZY_TOOLS`.
///
/// ```
/// use optimclaw::{LazyConfig, LoadStrategy, Registry};
///
/// let lazy = LazyConfig::lazy().with_strategy(LoadStrategy::Bridge);
/// let registry = Registry::builder().lazy(lazy).build()?;
/// assert!(registry.lazy_config().enabled);
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LazyConfig {
    /// Lazy loading on: core tools and `tool_info` are sent, other tools
    /// are listed by name in the note. Off (the default): every tool is sent.
    pub enabled: bool,
    /// Above this many characters of listed names, the note groups names by
    /// namespace prefix (`github__*: 37 tools`) so it stays bounded.
    pub note_budget_chars: usize,
    /// How tools loaded through `tool_info` reach later requests (lazy
    /// mode only).
    pub strategy: LoadStrategy,
    /// How many keyword-search hits `tool_info` returns with full schemas;
    /// lower hits come as name and first sentence (exact names always get
    /// their schemas). Every schema returned stays in the conversation's
    /// history and is re-read by every later request.
    pub full_schemas: usize,
    /// Code mode: the registry gains the core tool `run_code`, through
    /// which the model runs a JavaScript program that calls any tool in its
    /// scope (`await tools.NAME(args)`); `tool_info` answers with
    /// TypeScript declarations instead of JSON schemas, and in lazy mode the
    /// `tools` array stays core + `tool_info` + `run_code`. Needs the
    /// `code-mode` feature (the `code` module). Off by default.
    pub code_mode: bool,
    /// The limits of each `run_code` program (code mode only).
    pub code_limits: CodeLimits,
}

impl LazyConfig {
    /// Sets [`enabled`](Self::enabled).
    #[must_use]
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Sets [`full_schemas`](Self::full_schemas).
    #[must_use]
    pub fn with_full_schemas(mut self, full_schemas: usize) -> Self {
        self.full_schemas = full_schemas;
        self
    }
}

/// How deferred tools reach the model once `tool_info` found them. Chosen
/// for the provider's prompt cache: providers render tools first, so a
/// `tools` array that changes re-bills the whole conversation after it.
///
/// The default is [`Bridge`](Self::Bridge), the cheapest measured on
/// whole conversations under each provider's caching, for both wire
/// formats, short and long (with tools attached before the model asks;
/// docs/benchmarks-history.md §8). Earlier releases defaulted to
/// [`Append`](Self::Append), which stays available: use it where the
/// endpoint caches nothing and calls must be schema-constrained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadStrategy {
    /// Loaded tools' specs join the `tools` array after the core tools:
    /// calls are schema-constrained, but every discovery changes the cached
    /// prefix (one cache rewrite of the conversation per discovery).
    Append,
    /// The `tools` array never changes: core tools, `tool_info` and
    /// `call_tool(name, arguments)`, through which the model calls any
    /// deferred tool (arguments checked at dispatch; an invalid call's error
    /// carries the schema). Works in every dialect and over MCP. The
    /// default.
    #[default]
    Bridge,
    /// The provider's own deferral fed by our search: every deferred tool
    /// is sent with `defer_loading: true` and `tool_info` answers with
    /// references the provider expands in place (Anthropic `tool_reference`
    /// blocks, OpenAI Responses client `tool_search`). Other dialects fall
    /// back to [`Bridge`](Self::Bridge).
    Native,
}

impl LoadStrategy {
    /// Every strategy.
    pub const ALL: [LoadStrategy; 3] = [
        LoadStrategy::Append,
        LoadStrategy::Bridge,
        LoadStrategy::Native,
    ];

    /// `append`, `bridge` or `native`.
    pub fn name(self) -> &'static str {
        match self {
            LoadStrategy::Append => "append",
            LoadStrategy::Bridge => "bridge",
            LoadStrategy::Native => "native",
        }
    }

    /// Parses [`name`](Self::name) (any case).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

impl Default for LazyConfig {
    fn default() -> Self {
        LazyConfig {
            enabled: false,
            note_budget_chars: 4_000,
            strategy: LoadStrategy::Bridge,
            full_schemas: 2,
            code_mode: false,
            code_limits: CodeLimits::default(),
        }
    }
}

impl LazyConfig {
    /// Every tool sent eagerly.
    pub fn eager() -> Self {
        Self::default()
    }

    /// Lazy loading with the default note budget.
    pub fn lazy() -> Self {
        LazyConfig {
            enabled: true,
            ..Self::default()
        }
    }

    /// Sets the load strategy.
    #[must_use]
    pub fn with_strategy(mut self, strategy: LoadStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Turns [code mode](Self::code_mode) on or off.
    #[must_use]
    pub fn with_code_mode(mut self, on: bool) -> Self {
        self.code_mode = on;
        self
    }

    /// Sets the limits of `run_code` programs.
    #[must_use]
    pub fn with_code_limits(mut self, limits: CodeLimits) -> Self {
        self.code_limits = limits;
        self
    }

    /// Sets the note budget in characters.
    #[must_use]
    pub fn with_note_budget_chars(mut self, chars: usize) -> Self {
        self.note_budget_chars = chars;
        self
    }

    /// Reads `OPTIMCLAW_LAZY_TOOLS` from the process environment, then from
    /// `~/.optimclaw/.env` (without changing the process environment).
    pub fn from_env() -> Result<Self, ConfigError> {
        let process = std::env::var(LAZY_TOOLS_VAR).ok();
        let dotenv = default_dotenv_path();
        Self::from_sources(process.as_deref(), dotenv.as_deref())
    }

    /// Like [`from_env`](Self::from_env) with explicit sources: the process
    /// value wins; the `.env` file is read only when it is absent.
    pub fn from_sources(
        process_value: Option<&str>,
        dotenv: Option<&Path>,
    ) -> Result<Self, ConfigError> {
        let value = match process_value {
            Some(v) => Some((v.to_owned(), "the environment".to_owned())),
            None => match dotenv {
                Some(path) => {
                    read_dotenv(path, LAZY_TOOLS_VAR)?.map(|v| (v, path.display().to_string()))
                }
                None => None,
            },
        };
        let enabled = match value {
            None => false,
            Some((v, origin)) => parse_flag(&v).ok_or(ConfigError::InvalidValue {
                variable: LAZY_TOOLS_VAR,
                value: v,
                origin,
            })?,
        };
        Ok(LazyConfig {
            enabled,
            ..Self::default()
        })
    }
}

/// The limits of one `run_code` program. Every limit ends the program with
/// an error that names it (a result or logs over their size are cut, with
/// a note saying so); the process and the registry are unharmed.
///
/// ```
/// use std::time::Duration;
/// use optimclaw::CodeLimits;
///
/// let limits = CodeLimits::default().with_wall_time(Duration::from_secs(5));
/// assert_eq!(limits.memory_bytes, 64 << 20);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeLimits {
    /// Memory the interpreter may allocate (default 64 MiB).
    pub memory_bytes: usize,
    /// Stack the interpreter may use, which bounds recursion (default 1 MiB).
    pub stack_bytes: usize,
    /// Wall time of one run, tool calls included (default 30 s).
    pub wall_time: Duration,
    /// Tool calls one run may make (default 1,000).
    pub max_tool_calls: u64,
    /// Tool calls running at once (`Promise.all`; default 8).
    pub max_concurrent_calls: usize,
    /// Size of the returned value as JSON (default 64 KiB): a longer one is
    /// cut and returned as text, with a note.
    pub max_result_bytes: usize,
    /// Total size of `console.log` lines kept (default 16 KiB).
    pub max_log_bytes: usize,
    /// Length of the program's source (default 100,000 bytes).
    pub max_code_bytes: usize,
}

impl CodeLimits {
    /// Sets [`stack_bytes`](Self::stack_bytes).
    #[must_use]
    pub fn with_stack_bytes(mut self, stack_bytes: usize) -> Self {
        self.stack_bytes = stack_bytes;
        self
    }

    /// Sets [`max_code_bytes`](Self::max_code_bytes).
    #[must_use]
    pub fn with_max_code_bytes(mut self, max_code_bytes: usize) -> Self {
        self.max_code_bytes = max_code_bytes;
        self
    }
}

impl Default for CodeLimits {
    fn default() -> Self {
        CodeLimits {
            memory_bytes: 64 << 20,
            stack_bytes: 1 << 20,
            wall_time: Duration::from_secs(30),
            max_tool_calls: 1_000,
            max_concurrent_calls: 8,
            max_result_bytes: 64 << 10,
            max_log_bytes: 16 << 10,
            max_code_bytes: 100_000,
        }
    }
}

impl CodeLimits {
    /// Sets [`memory_bytes`](Self::memory_bytes).
    #[must_use]
    pub fn with_memory_bytes(mut self, bytes: usize) -> Self {
        self.memory_bytes = bytes;
        self
    }

    /// Sets [`wall_time`](Self::wall_time).
    #[must_use]
    pub fn with_wall_time(mut self, time: Duration) -> Self {
        self.wall_time = time;
        self
    }

    /// Sets [`max_tool_calls`](Self::max_tool_calls).
    #[must_use]
    pub fn with_max_tool_calls(mut self, calls: u64) -> Self {
        self.max_tool_calls = calls;
        self
    }

    /// Sets [`max_concurrent_calls`](Self::max_concurrent_calls) (at least 1).
    #[must_use]
    pub fn with_max_concurrent_calls(mut self, calls: usize) -> Self {
        self.max_concurrent_calls = calls.max(1);
        self
    }

    /// Sets [`max_result_bytes`](Self::max_result_bytes).
    #[must_use]
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// Sets [`max_log_bytes`](Self::max_log_bytes).
    #[must_use]
    pub fn with_max_log_bytes(mut self, bytes: usize) -> Self {
        self.max_log_bytes = bytes;
        self
    }
}

/// `~/.optimclaw/.env`, when a home folder is known.
pub fn default_dotenv_path() -> Option<PathBuf> {
    std::env::home_dir().map(|h| h.join(".optimclaw").join(".env"))
}

/// One variable of a `.env` file, read without touching the environment.
/// A missing file is no error; an unreadable or malformed one is.
pub fn read_dotenv(path: &Path, variable: &str) -> Result<Option<String>, ConfigError> {
    let iter = match dotenvy::from_path_iter(path) {
        Ok(iter) => iter,
        Err(dotenvy::Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ConfigError::Dotenv {
                path: path.to_owned(),
                message: e.to_string(),
                source: std::sync::Arc::new(e),
            });
        }
    };
    let mut found = None;
    for item in iter {
        let (key, value) = item.map_err(|e| ConfigError::Dotenv {
            path: path.to_owned(),
            message: e.to_string(),
            source: std::sync::Arc::new(e),
        })?;
        if key == variable {
            found = Some(value);
        }
    }
    Ok(found)
}

/// Parses an on/off flag: `1/0/true/false/on/off/yes/no` in any case.
pub fn parse_flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" | "" => Some(false),
        _ => None,
    }
}

/// A setting that could not be read: what [`LazyConfig::from_env`]
/// returns for a bad `OPTIMCLAW_LAZY_TOOLS` or an unreadable `.env` file.
/// Show it to the user; its text names the variable and the accepted values.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A variable has a value outside the accepted ones.
    #[error("{variable}={value:?} (from {origin}) is not a valid value; accepted: {ACCEPTED}")]
    InvalidValue {
        /// The variable.
        variable: &'static str,
        /// What it was set to.
        value: String,
        /// Where it was set (the environment, or a `.env` file).
        origin: String,
    },
    /// A `.env` file could not be read.
    #[error("cannot read {}: {message}", path.display())]
    Dotenv {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
        /// The cause.
        #[source]
        source: std::sync::Arc<dotenvy::Error>,
    },
}
