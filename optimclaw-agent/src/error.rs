//! What can go wrong talking to a model.

use std::path::PathBuf;

use optimclaw::provider::SchemaError;

/// What went wrong talking to the model. The transcript is kept whatever
/// the error: show it to the user, then [`Agent::resume`](crate::Agent::resume)
/// or send the next message; [`kind`](Self::kind) tells retryable network
/// trouble from a key or request the endpoint refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// No key configured for the provider's own endpoint.
    #[error(
        "no API key: set {variable} in the environment{} (a local OpenAI-compatible server needs no key: point the model's base URL at it)",
        dotenv.as_ref().map(|p| format!(" or add `{variable}=...` to {}", p.display())).unwrap_or_default()
    )]
    MissingKey {
        /// The variable to set.
        variable: &'static str,
        /// The `.env` file also read.
        dotenv: Option<PathBuf>,
    },
    /// A setting is wrong.
    #[error("{0}")]
    Config(String),
    /// The endpoint refused the key (401/403).
    #[error("the endpoint refused the API key (HTTP {status}): {message}; check {variable}")]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The endpoint's message (key removed).
        message: String,
        /// The variable holding the key.
        variable: &'static str,
    },
    /// The endpoint refused the request (another 4xx).
    #[error("the endpoint rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The endpoint's message.
        message: String,
    },
    /// Retries ran out on 429s, 5xx, network errors or malformed replies.
    #[error("the model endpoint failed {attempts} time(s); last: {message}")]
    Unavailable {
        /// The last failure.
        message: String,
        /// Requests made.
        attempts: u32,
    },
    /// The model was still calling tools after this many requests.
    #[error(
        "the model was still calling tools after {steps} requests; stopped (the conversation is kept: send another message or resume)"
    )]
    StepLimit {
        /// The limit.
        steps: usize,
    },
    /// The model sent the same failing call again
    /// ([`AgentOptions::stop_when_stuck`](crate::AgentOptions::stop_when_stuck)).
    #[error(
        "the model sent the same failing call of `{tool}` twice in a row; stopped (the conversation is kept). The call's error: {error}"
    )]
    NoProgress {
        /// The tool it kept calling.
        tool: String,
        /// The error the call got each time.
        error: String,
    },
    /// The model's reply went into a loop, the same text over and over
    /// (read on local servers, where small models do this until the token
    /// cap); reading stopped there.
    #[error(
        "the model's reply went into a loop, repeating \"{block}\" to the end; stopped reading it after {chars} characters (the conversation is kept)"
    )]
    Repetition {
        /// The start of the repeated text.
        block: String,
        /// The characters read before reading stopped.
        chars: usize,
    },
    /// [`CancelHandle::cancel`](crate::CancelHandle::cancel) was called.
    #[error("cancelled")]
    Cancelled,
    /// A tool cannot be described in the wire format's dialect.
    #[error("{0}")]
    Schema(#[from] SchemaError),
}

impl AgentError {
    /// A short, stable name of the kind of error (the `error.type` of the
    /// request's `chat` span).
    pub fn kind(&self) -> &'static str {
        match self {
            AgentError::MissingKey { .. } => "missing_key",
            AgentError::Config(_) => "config",
            AgentError::Auth { .. } => "auth",
            AgentError::Rejected { .. } => "rejected",
            AgentError::Unavailable { .. } => "unavailable",
            AgentError::StepLimit { .. } => "step_limit",
            AgentError::NoProgress { .. } => "no_progress",
            AgentError::Repetition { .. } => "repetition",
            AgentError::Cancelled => "cancelled",
            AgentError::Schema(_) => "schema",
        }
    }
}

/// A reqwest error as one line (what failed, then each cause), without the
/// URL: its query may hold credentials.
pub(crate) fn describe_http_error(err: &reqwest::Error) -> String {
    let mut msg = if err.is_timeout() {
        "the request timed out".to_owned()
    } else if err.is_redirect() {
        "a redirect was refused".to_owned()
    } else if err.is_connect() {
        "could not connect".to_owned()
    } else {
        "the request failed".to_owned()
    };
    msg.push_str(&optimclaw::error_causes(err));
    msg
}
