//! The sessions service, [`McpSessions`]: the innermost of the endpoint's
//! tower services, behind the checks in [`layers`](super::layers). It
//! keeps the sessions (ours: [`Sessions`]) and the limits that keep the
//! server answering under load: live sessions (evicting unused ones at
//! the cap) and each key's sessions. Each request then runs through
//! rmcp's stateless path, with its session's connection as the handler.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::answers::{Body, error_body, no_key_layer, over_quota, plain, rpc_refusal};
use super::layers::{Authorized, JsonRpcBody, ResponseFuture};
use super::limits::HttpLimits;
use super::memory::{Trimmer, trim};
use super::quota::OverQuota;
use super::server::McpServer;
use super::sessions::{CONNECTION, Lookup, Sessions};

const SESSION_HEADER: &str = "mcp-session-id";

/// How often an open `GET` stream sends a comment, so proxies and clients
/// keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The one server-initiated message a `GET` stream carries.
const LIST_CHANGED: &[u8] =
    b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n";

/// The endpoint's sessions service: routes each request by method and
/// session, after the checks in [`layers`](super::layers), to rmcp's
/// service as the session's connection. Made by
/// [`McpServer::http_endpoint`]; cheap to clone, every clone serving the
/// same sessions. A request that did not pass
/// [`KeyLayer`](super::layers::KeyLayer)
/// gets HTTP 401.
#[derive(Clone)]
pub struct McpSessions {
    pub(super) front: Arc<Front>,
    /// Ends the idle-session task when the last clone goes (an endpoint
    /// to mount); `serve_http` ends it with its shutdown token instead.
    pub(super) _stop: Option<Arc<tokio_util::sync::DropGuard>>,
}

impl std::fmt::Debug for McpSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSessions")
            .field("live", &self.front.sessions.len())
            .finish_non_exhaustive()
    }
}

impl tower_service::Service<Request<JsonRpcBody>> for McpSessions {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<JsonRpcBody>) -> ResponseFuture {
        let front = Arc::clone(&self.front);
        Box::pin(async move { Ok(front.handle(req).await) })
    }
}

/// The sessions and counts behind one HTTP endpoint's checks.
pub(super) struct Front {
    pub(super) service: StreamableHttpService<McpServer, NeverSessionManager>,
    /// What new sessions' connections are made from.
    pub(super) server: McpServer,
    pub(super) sessions: Arc<Sessions>,
    pub(super) limits: HttpLimits,
    /// When ended sessions' memory goes back to the system.
    pub(super) trimmer: Trimmer,
    /// Ends open `GET` streams when the server stops.
    pub(super) shutdown: CancellationToken,
}

impl Front {
    async fn handle(&self, req: Request<JsonRpcBody>) -> Response<Body> {
        let Some(&Authorized { key }) = req.extensions().get::<Authorized>() else {
            return no_key_layer();
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
            _ => {
                self.service
                    .handle(req.map(|body| Full::new(body.into_bytes())))
                    .await
            }
        }
    }

    async fn post(
        &self,
        req: Request<JsonRpcBody>,
        key: usize,
        session: Option<String>,
    ) -> Response<Body> {
        let (parts, body) = req.into_parts();
        let (bytes, asked) = body.into_parts();
        let request = Request::from_parts(parts, Full::new(bytes));
        if let Some(id) = session {
            return match self.sessions.get(&id, key, asked.uses_session) {
                Lookup::Found(connection) => self.run(request, Some(connection)).await,
                Lookup::Unknown => no_session(),
                Lookup::Foreign => foreign_session(),
            };
        }
        if !asked.opens_session || self.limits.stateless {
            return self.run(request, None).await;
        }
        if let Err(max) = self.sessions.may_open(key) {
            return over_quota(OverQuota::Sessions(max), asked.id, self.retry_secs());
        }
        if !self.make_room() {
            return self.full(asked.id);
        }
        let connection = self.server.for_new_connection();
        let mut response = self.run(request, Some(connection.clone())).await;
        if response.status() == StatusCode::OK {
            let id = self.sessions.open(key, connection);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
        }
        response
    }

    /// Runs a request through rmcp, as `connection` when it belongs to a
    /// session.
    async fn run(
        &self,
        request: Request<Full<Bytes>>,
        connection: Option<McpServer>,
    ) -> Response<Body> {
        match connection {
            Some(connection) => {
                CONNECTION
                    .scope(connection, self.service.handle(request))
                    .await
            }
            None => self.service.handle(request).await,
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
