//! What an MCP server over HTTP holds at once and whom it answers:
//! [`HttpLimits`].

use std::time::Duration;

/// How much an HTTP server holds at once and which names it answers to,
/// for [`McpServer::serve_http_with`](super::McpServer::serve_http_with).
/// The defaults keep a flood of `initialize` requests under about 0.5 GB,
/// release it as sessions expire, and keep one access key from taking
/// what the others need; raise them for servers with many long-lived
/// clients, or run stateless replicas behind a load balancer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Live sessions at most (clients on protocol versions with sessions).
    /// At the limit, the least recently used session that never made a
    /// request after `initialize` is closed to make room; with none such,
    /// a new session is refused with HTTP 503, a `Retry-After` and a
    /// JSON-RPC error naming the limit. Default 10,000.
    pub max_sessions: usize,
    /// Live sessions one access key may hold; one more is refused with
    /// HTTP 429, a `Retry-After` and a JSON-RPC error naming the quota,
    /// while other keys are served. Default 1,000.
    pub max_sessions_per_key: usize,
    /// Tool calls one access key may have running at once over all its
    /// sessions (and in stateless mode); one more is refused with HTTP
    /// 429 as above. Default 64.
    pub max_calls_per_key: usize,
    /// A session with no request for this long is closed. Default 10 min.
    pub session_idle: Duration,
    /// Largest request body; a larger one gets HTTP 413. Default 4 MiB.
    pub max_body_bytes: usize,
    /// No session state at all: every request is answered on its own, as
    /// JSON, so any number of replicas can serve one client. Default off.
    pub stateless: bool,
    /// What a refused client is told to wait before retrying. Default 5 s.
    pub retry_after: Duration,
    /// `Host` names (with or without a port) answered besides the loopback
    /// names, the address listened on and IP addresses; `"*"` answers any.
    /// A request for another name gets HTTP 403 naming it: a DNS name the
    /// server does not know may be a rebinding attack. Add the names
    /// clients and proxies use, e.g. `mcp.example.com`. Default none.
    pub allowed_hosts: Vec<String>,
    /// Browser origins a request's `Origin` header may name besides pages
    /// on this machine (loopback names and addresses, the address listened
    /// on) and the [`allowed_hosts`](Self::allowed_hosts): scheme, host and
    /// port, e.g. `https://app.example.com`, or `http://dev.example:*` for
    /// any port. A request from any other origin gets HTTP 403 naming it
    /// (the transport's rule against pages elsewhere driving a visitor's
    /// browser). Requests without an `Origin` (programs, not browsers)
    /// pass. Default none.
    pub allowed_origins: Vec<String>,
}

impl HttpLimits {
    /// Sets [`stateless`](Self::stateless).
    #[must_use]
    pub fn with_stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_sessions: 10_000,
            max_sessions_per_key: 1_000,
            max_calls_per_key: 64,
            session_idle: Duration::from_secs(600),
            max_body_bytes: 4 << 20,
            stateless: false,
            retry_after: Duration::from_secs(5),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
        }
    }
}

impl HttpLimits {
    /// The defaults, stateless.
    pub fn stateless() -> Self {
        HttpLimits {
            stateless: true,
            ..HttpLimits::default()
        }
    }

    /// Sets [`max_sessions`](Self::max_sessions).
    #[must_use]
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Sets [`max_sessions_per_key`](Self::max_sessions_per_key).
    #[must_use]
    pub fn with_max_sessions_per_key(mut self, max: usize) -> Self {
        self.max_sessions_per_key = max;
        self
    }

    /// Sets [`max_calls_per_key`](Self::max_calls_per_key).
    #[must_use]
    pub fn with_max_calls_per_key(mut self, max: usize) -> Self {
        self.max_calls_per_key = max;
        self
    }

    /// Sets [`session_idle`](Self::session_idle).
    #[must_use]
    pub fn with_session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    #[must_use]
    pub fn with_max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// Sets [`retry_after`](Self::retry_after).
    #[must_use]
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after = wait;
        self
    }

    /// Adds names to [`allowed_hosts`](Self::allowed_hosts).
    #[must_use]
    pub fn with_allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Adds origins to [`allowed_origins`](Self::allowed_origins).
    #[must_use]
    pub fn with_allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }
}
