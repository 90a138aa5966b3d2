//! `OPTIMCLAW_LAZY_TOOLS` and the rest of the lazy-loading settings.

use std::fmt;
use std::path::{Path, PathBuf};

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
}

/// How deferred tools reach the model once `tool_info` found them. Chosen
/// for the provider's prompt cache: providers render tools first, so a
/// `tools` array that changes re-bills the whole conversation after it.
///
/// The default is [`Bridge`](Self::Bridge), the cheapest measured on
/// whole conversations under each provider's caching, for both wire
/// formats, short and long (with tools attached before the model asks;
/// BENCHMARKS.md §8). Earlier releases defaulted to
/// [`Append`](Self::Append), which stays available: use it where the
/// endpoint caches nothing and calls must be schema-constrained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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

    /// Sets the note budget in characters.
    #[must_use]
    pub fn with_note_budget(mut self, chars: usize) -> Self {
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
            Some((v, source)) => parse_flag(&v).ok_or(ConfigError::InvalidValue {
                variable: LAZY_TOOLS_VAR,
                value: v,
                source,
            })?,
        };
        Ok(LazyConfig {
            enabled,
            ..Self::default()
        })
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
            });
        }
    };
    let mut found = None;
    for item in iter {
        let (key, value) = item.map_err(|e| ConfigError::Dotenv {
            path: path.to_owned(),
            message: e.to_string(),
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
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// A variable has a value outside the accepted ones.
    InvalidValue {
        /// The variable.
        variable: &'static str,
        /// What it was set to.
        value: String,
        /// Where it was set.
        source: String,
    },
    /// A `.env` file could not be read.
    Dotenv {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::InvalidValue {
                variable,
                value,
                source,
            } => write!(
                f,
                "{variable}={value:?} (from {source}) is not a valid value; accepted: {ACCEPTED}"
            ),
            ConfigError::Dotenv { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for ConfigError {}
