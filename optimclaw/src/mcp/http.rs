//! Serving MCP over streamable HTTP: the accept loop (`TCP_NODELAY` on every
//! connection), the limits a server holds under load (live sessions, idle
//! time, request size, tool calls in flight) and the stateless mode that
//! lets replicas sit behind an ordinary load balancer.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::auth::{HttpAuth, Refusal};
use super::server::McpServer;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// How much an HTTP server holds at once, for
/// [`McpServer::serve_http_with`](super::McpServer::serve_http_with). The
/// defaults keep a flood of `initialize` requests under about 0.5 GB and
/// release it as sessions expire; raise them for servers with many
/// long-lived clients, or run stateless replicas behind a load balancer.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Live sessions at most (clients on protocol versions with sessions).
    /// A new session over the limit is refused with HTTP 503, a
    /// `Retry-After` and a JSON-RPC error naming the limit; live sessions
    /// are never evicted for it. Default 10,000.
    pub max_sessions: usize,
    /// A session with no request for this long is closed. Default 10 min.
    pub session_idle: Duration,
    /// Largest request body; a larger one gets HTTP 413. Default 4 MiB.
    pub max_body_bytes: usize,
    /// No session state at all: every request is answered on its own, as
    /// JSON, so any number of replicas can serve one client. Default off.
    pub stateless: bool,
    /// What a refused client is told to wait before retrying. Default 5 s.
    pub retry_after: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_sessions: 10_000,
            session_idle: Duration::from_secs(600),
            max_body_bytes: 4 << 20,
            stateless: false,
            retry_after: Duration::from_secs(5),
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
}

/// Accepts one connection and turns Nagle's algorithm off on it: the
/// answers are small SSE or JSON writes, and with Nagle's algorithm each
/// waits for the client's delayed ACK (about 40 ms per call).
pub(super) async fn accept(listener: &TcpListener) -> std::io::Result<TcpStream> {
    let (stream, _) = listener.accept().await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// The accept loop of [`McpServer::serve_http_with`].
pub(super) async fn serve(
    template: McpServer,
    listener: TcpListener,
    shutdown: CancellationToken,
    limits: HttpLimits,
    auth: HttpAuth,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    if auth.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "refusing to serve MCP over HTTP on {local} without an access key: anyone who reaches the address could call every tool; add one with HttpAuth::key (or HttpAuth::token)"
            ),
        ));
    }
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    // Host-header check: the address we listen on, plus the loopback names.
    config.allowed_hosts.push(local.to_string());
    config.allowed_hosts.push(local.ip().to_string());
    config.max_request_body_bytes = limits.max_body_bytes;
    config.legacy_session_mode = !limits.stateless;
    config.json_response = limits.stateless;
    // Ended sessions' peers are dropped every few seconds.
    let pruner = template.clone();
    let stop_pruning = shutdown.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tokio::select! {
                _ = tick.tick() => pruner.prune_closed_peers(),
                () = stop_pruning.cancelled() => return,
            }
        }
    });
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(limits.session_idle);
    let manager = Arc::new(manager);
    let service = StreamableHttpService::new(
        move || Ok(template.for_new_connection()),
        Arc::clone(&manager),
        config,
    );
    let front = Arc::new(Front {
        service,
        manager,
        limits,
        auth,
    });
    loop {
        let stream = tokio::select! {
            accepted = accept(&listener) => match accepted {
                Ok(stream) => stream,
                // A connection that failed before it was ours (reset,
                // too many open files) is not the server's end.
                Err(e) if is_per_connection(&e) => continue,
                Err(e) => return Err(e),
            },
            () = shutdown.cancelled() => return Ok(()),
        };
        let front = Arc::clone(&front);
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let front = Arc::clone(&front);
                async move { Ok::<_, Infallible>(front.handle(req).await) }
            });
            let builder =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
            let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
            tokio::select! {
                _ = conn => {}
                () = stop.cancelled() => {}
            }
        });
    }
}

fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted, WouldBlock};
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) || e.raw_os_error() == Some(24) // EMFILE: wait for descriptors to free up
}

/// What stands before rmcp's service: the access key and the session
/// limit.
struct Front {
    service: StreamableHttpService<McpServer, LocalSessionManager>,
    manager: Arc<LocalSessionManager>,
    limits: HttpLimits,
    auth: HttpAuth,
}

impl Front {
    async fn handle(&self, mut req: Request<Incoming>) -> Response<Body> {
        match self.auth.check(req.headers()) {
            // rmcp hands the request's parts, extensions included, to the
            // handler, which reads the scope from there.
            Ok(scope) => {
                req.extensions_mut().insert(scope);
            }
            Err(refusal) => return unauthorized(refusal),
        }
        let opens_session = !self.limits.stateless
            && req.method() == Method::POST
            && !req.headers().contains_key("mcp-session-id");
        if !opens_session || self.live_sessions().await < self.limits.max_sessions {
            return self.service.handle(req).await;
        }
        // Full: read the body (within the size limit) to see whether this
        // request would open a session; anything else goes through.
        let (parts, body) = req.into_parts();
        let bytes = match Limited::new(body, self.limits.max_body_bytes)
            .collect()
            .await
        {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "the request body is larger than {} bytes",
                        self.limits.max_body_bytes
                    ),
                );
            }
        };
        if let Some(id) = legacy_initialize(&bytes) {
            return self.refuse(id);
        }
        self.service
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await
    }

    async fn live_sessions(&self) -> usize {
        self.manager.sessions.read().await.len()
    }

    fn refuse(&self, id: Value) -> Response<Body> {
        let secs = self.limits.retry_after.as_secs().max(1);
        let message = format!(
            "the server holds its limit of {} live MCP sessions; retry in {secs} s, or end a session you no longer use with HTTP DELETE",
            self.limits.max_sessions
        );
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": -32000, "message": message, "data": {"max_sessions": self.limits.max_sessions}},
        });
        let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
        let headers = response.headers_mut();
        headers.insert(hyper::header::RETRY_AFTER, secs.into());
        headers.insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        response
    }
}

/// The id of an `initialize` request on a protocol version with sessions
/// (before 2026-07-28), which would open a session.
fn legacy_initialize(body: &[u8]) -> Option<Value> {
    let message: Value = serde_json::from_slice(body).ok()?;
    if message.get("method").and_then(Value::as_str) != Some("initialize") {
        return None;
    }
    let version = message
        .pointer("/params/protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    // Versions are dates; those from 2026-07-28 on have no sessions.
    (version < "2026-07-28").then(|| message.get("id").cloned().unwrap_or(Value::Null))
}

/// HTTP 401 with the `WWW-Authenticate` challenge of RFC 6750.
fn unauthorized(refusal: Refusal) -> Response<Body> {
    let (challenge, message) = match refusal {
        Refusal::Missing => (
            r#"Bearer realm="optimclaw""#,
            "this MCP server needs an access key: send `Authorization: Bearer TOKEN`",
        ),
        Refusal::Invalid => (
            r#"Bearer realm="optimclaw", error="invalid_token""#,
            "the access key is not valid for this MCP server",
        ),
    };
    let body = json!({"error": "unauthorized", "message": message});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static(challenge),
    );
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move { TcpStream::connect(addr).await.unwrap() });
        let accepted = accept(&listener).await.unwrap();
        assert!(accepted.nodelay().unwrap());
        drop(client.await.unwrap());
    }

    #[test]
    fn only_legacy_initialize_opens_a_session() {
        let init = |v: &str| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": v}})
                .to_string()
        };
        assert_eq!(
            legacy_initialize(init("2025-06-18").as_bytes()),
            Some(json!(7))
        );
        assert_eq!(legacy_initialize(init("2026-07-28").as_bytes()), None);
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
        assert_eq!(legacy_initialize(list.as_bytes()), None);
        assert_eq!(legacy_initialize(b"not json"), None);
    }
}
