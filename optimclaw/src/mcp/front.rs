//! What stands before rmcp's streamable HTTP service: the `Host` check,
//! the access key, and the limits that keep the server answering under
//! load: live sessions (evicting unused ones at the cap), each key's
//! sessions and calls in flight, and the request size.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use super::auth::{HttpAuth, Refusal};
use super::hosts::{HostCheck, HostRefusal};
use super::limits::HttpLimits;
use super::memory::{Trimmer, trim};
use super::quota::{OverQuota, Quotas};
use super::server::McpServer;

pub(super) type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

const SESSION_HEADER: &str = "mcp-session-id";

/// The checks and counts in front of one HTTP server's MCP service.
pub(super) struct Front {
    pub(super) service: StreamableHttpService<McpServer, LocalSessionManager>,
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) limits: HttpLimits,
    pub(super) auth: HttpAuth,
    pub(super) hosts: HostCheck,
    pub(super) quotas: Quotas,
    /// The address listened on (its IP is always a valid `Host`).
    pub(super) local: SocketAddr,
    /// When ended sessions' memory goes back to the system.
    pub(super) trimmer: Trimmer,
}

/// What a POST body asks for, as far as the limits care.
#[derive(Debug, Default, PartialEq)]
struct Inspected {
    /// The JSON-RPC id to answer a refusal with.
    id: Value,
    /// An `initialize` on a protocol version with sessions.
    opens_session: bool,
    /// `tools/call` requests in the body.
    calls: usize,
    /// Anything but the `initialized` notification.
    uses_session: bool,
}

impl Front {
    pub(super) async fn handle(&self, mut req: Request<Incoming>) -> Response<Body> {
        if let Err(refusal) = self.check_host(&req) {
            return forbidden(&refusal);
        }
        let key = match self.auth.check(req.headers()) {
            // rmcp hands the request's parts, extensions included, to the
            // handler, which reads the scope from there.
            Ok((key, scope)) => {
                req.extensions_mut().insert(scope);
                key
            }
            Err(refusal) => return unauthorized(refusal),
        };
        let session = req
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(id) = &session
            && self.quotas.owner(id).is_some_and(|owner| owner != key)
        {
            // A session id is no secret from the server's logs or a
            // proxy; it does not let another key's holder in.
            return error_body(
                StatusCode::NOT_FOUND,
                "session_not_found",
                "no MCP session with this id belongs to this access key; start one with initialize",
            );
        }
        match *req.method() {
            Method::POST => {}
            Method::DELETE => {
                let response = self.service.handle(req).await;
                if let Some(id) = &session {
                    self.quotas.closed(id);
                }
                return response;
            }
            _ => return self.service.handle(req).await,
        }
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
        let asked = inspect(&bytes);
        let request = Request::from_parts(parts, Full::new(bytes));
        if asked.opens_session && session.is_none() && !self.limits.stateless {
            if let Err(over) = self.quotas.may_open(key) {
                return self.over_quota(over, asked.id);
            }
            if !self.make_room().await {
                return self.full(asked.id);
            }
            let response = self.service.handle(request).await;
            if let Some(id) = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
            {
                self.quotas.opened(id, key);
            }
            return response;
        }
        if let Some(id) = &session {
            self.quotas.touched(id, asked.uses_session);
        }
        if asked.calls == 0 {
            return self.service.handle(request).await;
        }
        let permit = match self.quotas.calls(key, asked.calls) {
            Ok(permit) => permit,
            Err(over) => return self.over_quota(over, asked.id),
        };
        // Counted until the answer has been sent (an SSE stream ends with
        // the call's result) or the client went away.
        self.service.handle(request).await.map(|body| {
            body.map_frame(move |frame| {
                let _held = &permit;
                frame
            })
            .boxed()
        })
    }

    fn check_host(&self, req: &Request<Incoming>) -> Result<(), HostRefusal> {
        let host = req
            .headers()
            .get(hyper::header::HOST)
            .map(|v| {
                v.to_str().map_err(|_| {
                    HostRefusal::Malformed(String::from_utf8_lossy(v.as_bytes()).into_owned())
                })
            })
            .transpose()?
            .map(str::to_owned)
            .or_else(|| req.uri().authority().map(|a| a.as_str().to_owned()));
        // No host at all: rmcp answers 400 for it.
        host.map_or(Ok(()), |host| self.hosts.allows(&host, self.local))
    }

    /// Room for one more session: below the cap, or after closing the
    /// least recently used session that never made a request after
    /// `initialize`.
    async fn make_room(&self) -> bool {
        if self.live_sessions().await < self.limits.max_sessions {
            return true;
        }
        while let Some(id) = self.quotas.evictable() {
            self.quotas.closed(&id);
            let _ = self.manager.close_session(&Arc::from(id.as_str())).await;
            self.trimmer.evicted();
            if self.live_sessions().await < self.limits.max_sessions {
                return true;
            }
        }
        false
    }

    async fn live_sessions(&self) -> usize {
        self.manager.sessions.read().await.len()
    }

    /// Forgets the sessions rmcp no longer holds (expired after the idle
    /// time, or closed), and once many have ended gives their memory back
    /// to the system.
    pub(super) async fn prune(&self) {
        let count = {
            let live = self.manager.sessions.read().await;
            self.quotas.retain(|id| live.contains_key(id));
            live.len()
        };
        if self.trimmer.should_trim(count) {
            // It walks every arena: off the runtime's threads.
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }

    fn retry_secs(&self) -> u64 {
        self.limits.retry_after.as_secs().max(1)
    }

    fn full(&self, id: Value) -> Response<Body> {
        let secs = self.retry_secs();
        let message = format!(
            "the server holds its limit of {} live MCP sessions, all in use; retry in {secs} s, or end a session you no longer use with HTTP DELETE",
            self.limits.max_sessions
        );
        rpc_refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            id,
            &message,
            json!({"max_sessions": self.limits.max_sessions}),
            secs,
        )
    }

    fn over_quota(&self, over: OverQuota, id: Value) -> Response<Body> {
        let secs = self.retry_secs();
        let (message, quota, max) = over.message(secs);
        let mut data = serde_json::Map::new();
        data.insert(quota.to_owned(), json!(max));
        rpc_refusal(
            StatusCode::TOO_MANY_REQUESTS,
            id,
            &message,
            Value::Object(data),
            secs,
        )
    }
}

/// What the limits need to know of a JSON-RPC body (one message or a
/// batch); a body that is no JSON-RPC goes on to rmcp, which answers it.
fn inspect(body: &[u8]) -> Inspected {
    let Ok(parsed) = serde_json::from_slice::<Value>(body) else {
        return Inspected {
            uses_session: true,
            ..Inspected::default()
        };
    };
    let messages = match &parsed {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let mut asked = Inspected::default();
    for message in messages {
        let method = message.get("method").and_then(Value::as_str);
        if asked.id.is_null()
            && let Some(id) = message.get("id")
        {
            asked.id = id.clone();
        }
        match method {
            Some("initialize") => {
                let version = message
                    .pointer("/params/protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                // Versions are dates; those from 2026-07-28 on have no
                // sessions.
                asked.opens_session |= version < "2026-07-28";
            }
            Some("notifications/initialized") => {}
            Some("tools/call") => {
                asked.calls += 1;
                asked.uses_session = true;
            }
            _ => asked.uses_session = true,
        }
    }
    asked
}

/// A JSON-RPC error answer with an HTTP status and a `Retry-After`.
fn rpc_refusal(
    status: StatusCode,
    id: Value,
    message: &str,
    data: Value,
    retry_secs: u64,
) -> Response<Body> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32000, "message": message, "data": data},
    });
    let mut response = json_response(status, &body);
    response
        .headers_mut()
        .insert(hyper::header::RETRY_AFTER, retry_secs.into());
    response
}

/// HTTP 403 naming the refused `Host` and how to allow it.
fn forbidden(refusal: &HostRefusal) -> Response<Body> {
    let (status, error) = match refusal {
        HostRefusal::NotAllowed(_) => (StatusCode::FORBIDDEN, "host_not_allowed"),
        HostRefusal::Malformed(_) => (StatusCode::BAD_REQUEST, "bad_host"),
    };
    error_body(status, error, &refusal.message())
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
    let mut response = error_body(StatusCode::UNAUTHORIZED, "unauthorized", message);
    response.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static(challenge),
    );
    response
}

fn error_body(status: StatusCode, error: &str, message: &str) -> Response<Body> {
    json_response(status, &json!({"error": error, "message": message}))
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
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

    #[test]
    fn bodies_are_read_for_what_the_limits_count() {
        let init = |v: &str| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": v}})
                .to_string()
        };
        let legacy = inspect(init("2025-06-18").as_bytes());
        assert!(legacy.opens_session && legacy.id == json!(7) && legacy.calls == 0);
        assert!(!inspect(init("2026-07-28").as_bytes()).opens_session);
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert!(!inspect(initialized.to_string().as_bytes()).uses_session);
        let batch = json!([
            {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "x"}},
            {"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "y"}},
            {"jsonrpc": "2.0", "id": "c", "method": "tools/list"},
        ]);
        let asked = inspect(batch.to_string().as_bytes());
        assert_eq!(
            (asked.calls, asked.id, asked.uses_session),
            (2, json!("a"), true)
        );
        let junk = inspect(b"not json");
        assert!(!junk.opens_session && junk.calls == 0 && junk.uses_session);
    }
}
