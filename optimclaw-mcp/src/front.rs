//! What stands before rmcp's streamable HTTP service: the `Host` check,
//! the access key, the sessions (ours: [`Sessions`]), and the limits that
//! keep the server answering under load: live sessions (evicting unused
//! ones at the cap), each key's sessions and calls in flight, and the
//! request size. Each request then runs through rmcp's stateless path,
//! with its session's connection as the handler.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Body as HttpBody, Frame};
use hyper::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::auth::{HttpAuth, Refusal};
use super::hosts::{HostCheck, HostRefusal, OriginCheck};
use super::inspect::{Inspected, inspect};
use super::limits::HttpLimits;
use super::memory::{Trimmer, trim};
use super::quota::{OverQuota, Quotas};
use super::server::McpServer;
use super::sessions::{CONNECTION, Lookup, Sessions};

pub(super) type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const SESSION_HEADER: &str = "mcp-session-id";

/// How often an open `GET` stream sends a comment, so proxies and clients
/// keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The one server-initiated message a `GET` stream carries.
const LIST_CHANGED: &[u8] =
    b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n";

/// The checks and counts in front of one HTTP server's MCP service.
pub(super) struct Front {
    pub(super) service: StreamableHttpService<McpServer, NeverSessionManager>,
    /// What new sessions' connections are made from.
    pub(super) server: McpServer,
    pub(super) sessions: Arc<Sessions>,
    pub(super) limits: HttpLimits,
    pub(super) auth: HttpAuth,
    pub(super) hosts: HostCheck,
    pub(super) quotas: Quotas,
    /// The browser origins answered.
    pub(super) origins: OriginCheck,
    /// The address listened on, when known (a page there is on this
    /// machine).
    pub(super) local: Option<SocketAddr>,
    /// When ended sessions' memory goes back to the system.
    pub(super) trimmer: Trimmer,
    /// Ends open `GET` streams when the server stops.
    pub(super) shutdown: CancellationToken,
}

impl Front {
    pub(super) async fn handle<B>(&self, mut req: Request<B>) -> Response<Body>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError> + std::fmt::Display,
    {
        if let Err(refusal) = self.check_host(&req) {
            return forbidden(&refusal);
        }
        if let Some(origin) = req.headers().get(hyper::header::ORIGIN) {
            let origin = String::from_utf8_lossy(origin.as_bytes());
            if !self.origins.allows(&origin, self.local) {
                return forbidden_origin(&origin);
            }
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
            .map(str::to_owned)
            .filter(|_| !self.limits.stateless);
        match (req.method().clone(), session) {
            (Method::POST, session) => self.post(req, key, session).await,
            (Method::GET, Some(id)) => self.listen(&req, key, &id),
            (Method::DELETE, Some(id)) => self.end(key, &id),
            (Method::DELETE, None) if !self.limits.stateless => error_body(
                StatusCode::BAD_REQUEST,
                "session_id_required",
                "DELETE ends a session: send its Mcp-Session-Id header",
            ),
            // rmcp answers the rest (405 with the methods it takes).
            _ => self.service.handle(req).await,
        }
    }

    async fn post<B>(&self, req: Request<B>, key: usize, session: Option<String>) -> Response<Body>
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
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
        if let Some(id) = session {
            return match self.sessions.get(&id, key, asked.uses_session) {
                Lookup::Found(connection) => self.run(request, key, asked, Some(connection)).await,
                Lookup::Unknown => no_session(),
                Lookup::Foreign => foreign_session(),
            };
        }
        if !asked.opens_session || self.limits.stateless {
            return self.run(request, key, asked, None).await;
        }
        if let Err(max) = self.sessions.may_open(key) {
            return self.over_quota(OverQuota::Sessions(max), asked.id);
        }
        if !self.make_room() {
            return self.full(asked.id);
        }
        let connection = self.server.for_new_connection();
        let mut response = self
            .run(request, key, asked, Some(connection.clone()))
            .await;
        if response.status() == StatusCode::OK {
            let id = self.sessions.open(key, connection);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
        }
        response
    }

    /// Runs a request through rmcp, as `connection` when it belongs to a
    /// session, counting its tool calls against the key's quota.
    async fn run(
        &self,
        request: Request<Full<Bytes>>,
        key: usize,
        asked: Inspected,
        connection: Option<McpServer>,
    ) -> Response<Body> {
        let permit = if asked.calls == 0 {
            None
        } else {
            match self.quotas.calls(key, asked.calls) {
                Ok(permit) => Some(permit),
                Err(over) => return self.over_quota(over, asked.id),
            }
        };
        let response = match connection {
            Some(connection) => {
                CONNECTION
                    .scope(connection, self.service.handle(request))
                    .await
            }
            None => self.service.handle(request).await,
        };
        match permit {
            None => response,
            // Counted until the answer has been sent (an SSE stream ends
            // with the call's result) or the client went away.
            Some(permit) => response.map(|body| {
                body.map_frame(move |frame| {
                    let _held = &permit;
                    frame
                })
                .boxed()
            }),
        }
    }

    /// `GET` on a session: a stream of what the server tells the client
    /// unasked (`notifications/tools/list_changed` when the registry
    /// changes), open until the session or the server ends.
    fn listen<B>(&self, req: &Request<B>, key: usize, id: &str) -> Response<Body> {
        let accepts_sse = req
            .headers()
            .get_all(ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.contains("text/event-stream"));
        if !accepts_sse {
            return plain(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: a GET stream is text/event-stream; accept it".to_owned(),
            );
        }
        let open = match self.sessions.stream(id, key) {
            Ok(open) => open,
            Err(Lookup::Foreign) => return foreign_session(),
            Err(_) => return no_session(),
        };
        let mut changes = self.server.registry_changes();
        changes.mark_unchanged();
        let state = (
            open,
            changes,
            tokio::time::interval(KEEP_ALIVE),
            self.shutdown.clone(),
        );
        let events = stream::unfold(
            state,
            |(open, mut changes, mut tick, shutdown)| async move {
                let event: &'static [u8] = tokio::select! {
                    () = open.ended.cancelled() => return None,
                    () = shutdown.cancelled() => return None,
                    changed = changes.changed() => {
                        changed.ok()?;
                        LIST_CHANGED
                    }
                    _ = tick.tick() => b": keep-alive\n\n",
                };
                let frame = Ok::<_, Infallible>(Frame::data(Bytes::from_static(event)));
                Some((frame, (open, changes, tick, shutdown)))
            },
        );
        let mut response = Response::new(StreamBody::new(events).boxed());
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        response
    }

    /// `DELETE` on a session: it ends at once.
    fn end(&self, key: usize, id: &str) -> Response<Body> {
        match self.sessions.end(id, key) {
            Lookup::Found(_) => plain(StatusCode::OK, String::new()),
            Lookup::Unknown => no_session(),
            Lookup::Foreign => foreign_session(),
        }
    }

    fn check_host<B>(&self, req: &Request<B>) -> Result<(), HostRefusal> {
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
        host.map_or(Ok(()), |host| self.hosts.allows(&host))
    }

    /// Room for one more session: below the cap, or after ending the
    /// idle sessions, or the least recently used ones that never made a
    /// request after `initialize`.
    fn make_room(&self) -> bool {
        let max = self.limits.max_sessions;
        if self.sessions.len() < max || self.sessions.expire() < max {
            return true;
        }
        while self.sessions.evict_one() {
            self.trimmer.evicted();
            if self.sessions.len() < max {
                return true;
            }
        }
        false
    }

    /// Ends the sessions idle for longer than the idle time, and once many
    /// have ended gives their memory back to the system.
    pub(super) async fn prune(&self) {
        let count = self.sessions.expire();
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

fn forbidden_origin(origin: &str) -> Response<Body> {
    error_body(
        StatusCode::FORBIDDEN,
        "origin_not_allowed",
        &format!(
            "this MCP server does not answer pages from the origin {origin:?}: a page elsewhere must not make a visitor's browser call it. Add the origin to the server's allowed origins (HttpLimits::allowed_origins), or its host to the allowed hosts"
        ),
    )
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

/// HTTP 404 for a session id no live session has (MCP: the client starts
/// a new session).
fn no_session() -> Response<Body> {
    error_body(
        StatusCode::NOT_FOUND,
        "session_not_found",
        "no live MCP session has this id (it ended, expired or never existed); start one with initialize",
    )
}

/// HTTP 404 for another key's session: a session id is no secret from the
/// server's logs or a proxy, and it does not let another key's holder in.
fn foreign_session() -> Response<Body> {
    error_body(
        StatusCode::NOT_FOUND,
        "session_not_found",
        "no MCP session with this id belongs to this access key; start one with initialize",
    )
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
