//! Which model endpoint to talk to: wire formats, API keys (never shown),
//! and [`ModelConfig`] from flags, the environment and `~/.optimclaw/.env`.

use std::fmt;

use optimclaw::config::{default_dotenv_path, read_dotenv};
use optimclaw::provider::Dialect;

use super::AgentError;

/// The wire format of a model endpoint: [`OpenAiChat`](Self::OpenAiChat)
/// for OpenAI and the servers that copy its API (vLLM, llama.cpp, Ollama),
/// [`AnthropicMessages`](Self::AnthropicMessages) for Anthropic.
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

    pub(super) fn endpoint(self, base: &str) -> String {
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

    /// The key itself, for the request header only.
    pub(super) fn expose(&self) -> &str {
        &self.0
    }

    pub(super) fn redact(&self, text: &str) -> String {
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

/// Which endpoint, model and key. [`from_env`](Self::from_env) reads what
/// users expect (`OPENAI_API_KEY`, `OPENAI_BASE_URL`…); build one with
/// [`new`](Self::new) when the program holds its own configuration.
#[derive(Clone, Debug)]
#[non_exhaustive]
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
    /// The most tokens one reply may have (default 2,048): `max_tokens`
    /// of each Anthropic request; for chat completions
    /// `max_completion_tokens` on OpenAI's own API and `max_tokens`
    /// elsewhere (llama.cpp, vLLM, Ollama read that one). Without a cap a
    /// small model that starts repeating itself runs for minutes.
    pub max_tokens: u32,
    /// Whether the endpoint is the provider's own API; `None` (the
    /// default) decides from the base URL's host
    /// ([`is_first_party`](Self::is_first_party)). Set it for a gateway or
    /// stand-in that behaves exactly like the provider's API.
    pub first_party: Option<bool>,
    /// Fields added to every request body, for what a server takes beyond
    /// the wire format (llama.cpp's `timings_per_token`, vLLM's
    /// `top_k`…). A field the loop writes itself (`model`, `messages`,
    /// `tools`, `stream`…) keeps the loop's value. Default none.
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

impl ModelConfig {
    /// Sets [`format`](Self::format).
    #[must_use]
    pub fn with_format(mut self, format: WireFormat) -> Self {
        self.format = format;
        self
    }

    /// Sets [`base_url`](Self::base_url).
    #[must_use]
    pub fn with_base_url(mut self, base_url: String) -> Self {
        self.base_url = base_url;
        self
    }

    /// Sets [`model`](Self::model).
    #[must_use]
    pub fn with_model(mut self, model: String) -> Self {
        self.model = model;
        self
    }

    /// Sets [`max_tokens`](Self::max_tokens).
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Adds a field to [`extra_body`](Self::extra_body).
    #[must_use]
    pub fn with_extra_field(mut self, name: impl Into<String>, value: serde_json::Value) -> Self {
        self.extra_body.insert(name.into(), value);
        self
    }
}

impl ModelConfig {
    /// A configuration without a key.
    pub fn new(format: WireFormat, base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ModelConfig {
            format,
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            max_tokens: 2048,
            first_party: None,
            extra_body: serde_json::Map::new(),
        }
    }

    /// Whether this is the provider's own API (`api.openai.com`,
    /// `api.anthropic.com`) rather than another server speaking its wire
    /// format.
    pub fn is_first_party(&self) -> bool {
        if let Some(first_party) = self.first_party {
            return first_party;
        }
        matches!(self.host(), "api.openai.com" | "api.anthropic.com")
    }

    /// Whether the endpoint is on this machine or a private network:
    /// `localhost`, a loopback, private (RFC 1918, IPv6 unique-local) or
    /// link-local address. Small models are served there.
    pub fn is_local(&self) -> bool {
        let host = self.host();
        if host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost") {
            return true;
        }
        match host.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(ip)) => {
                ip.is_loopback() || ip.is_private() || ip.is_link_local()
            }
            Ok(std::net::IpAddr::V6(ip)) => {
                let first = ip.segments()[0];
                ip.is_loopback()
                    || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
                    || (first & 0xffc0) == 0xfe80 // link local, fe80::/10
            }
            Err(_) => false,
        }
    }

    /// The host of [`base_url`](Self::base_url), without port or brackets.
    fn host(&self) -> &str {
        let rest = self
            .base_url
            .split_once("://")
            .map_or(self.base_url.as_str(), |(_, rest)| rest);
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        if let Some(v6) = authority.strip_prefix('[') {
            return v6.split(']').next().unwrap_or("");
        }
        authority.split(':').next().unwrap_or("")
    }

    /// Sets [`first_party`](Self::first_party).
    #[must_use]
    pub fn with_first_party(mut self, first_party: bool) -> Self {
        self.first_party = Some(first_party);
        self
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn local_endpoints_are_this_machine_and_private_networks() {
        let at = |url: &str| ModelConfig::new(WireFormat::OpenAiChat, url, "m");
        for url in [
            "http://127.0.0.1:8088/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:8000/v1",
            "http://10.0.0.5/v1",
            "http://172.16.3.4:8080",
            "http://[fd00::5]:8000/v1",
            "http://user:pw@127.0.0.1:8088/v1",
        ] {
            assert!(at(url).is_local(), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://api.groq.com/openai/v1",
            "http://8.8.8.8/v1",
            "http://172.32.0.1/v1",
            "https://localhost.example.com/v1",
            "http://[2001:db8::1]/v1",
        ] {
            assert!(!at(url).is_local(), "{url}");
        }
        assert!(at("https://api.openai.com/v1").is_first_party());
    }
}
