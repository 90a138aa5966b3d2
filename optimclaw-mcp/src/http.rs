//! Serving MCP over streamable HTTP: [`McpServer::serve_http`] and its
//! accept loop (`TCP_NODELAY` on every connection), with the stateless mode
//! that lets replicas sit behind an ordinary load balancer; the endpoint
//! to mount in an app of your own ([`McpServer::http_service`]), and its
//! parts ([`McpServer::http_endpoint`]): the checks of
//! [`layers`](super::layers) in front of the sessions service.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::auth::HttpAuth;
use super::front::{Front, McpSessions};
use super::layers::{
    BodyLimit, BodyLimitLayer, CallQuota, CallQuotaLayer, HostOriginGuard, HostOriginLayer,
    KeyCheck, KeyLayer, ResponseFuture,
};
use super::limits::HttpLimits;
use super::memory::Trimmer;
use super::server::McpServer;
use super::sessions::{self, Sessions};

impl McpServer {
    /// Serves streamable HTTP clients on `listener` (path `/mcp`, any path
    /// accepted) until `shutdown` is cancelled, with the default
    /// [`HttpLimits`]. Every request needs a key of `auth` (HTTP 401
    /// otherwise) and sees only its key's tools; an `auth` without keys is
    /// refused at start. Each client session gets its own loaded state;
    /// clients on the stateless `2026-07-28` protocol start every request
    /// from the listing.
    pub async fn serve_http(
        self,
        listener: TcpListener,
        shutdown: CancellationToken,
        auth: HttpAuth,
    ) -> std::io::Result<()> {
        self.serve_http_with(listener, shutdown, auth, HttpLimits::default())
            .await
    }

    /// [`serve_http`](Self::serve_http) with explicit limits (sessions and
    /// calls per key, idle time, request size, the `Host` names answered)
    /// or in stateless mode. An invalid entry of
    /// [`HttpLimits::allowed_hosts`] fails the start.
    pub async fn serve_http_with(
        self,
        listener: TcpListener,
        shutdown: CancellationToken,
        auth: HttpAuth,
        limits: HttpLimits,
    ) -> std::io::Result<()> {
        let local = listener.local_addr()?;
        let endpoint = self.endpoint(&shutdown, auth, limits, Some(local), None)?;
        serve_connections(listener, shutdown, endpoint.into_service()).await
    }

    /// The endpoint as a tower service, to mount in an HTTP app of your
    /// own (axum's `Router::route_service("/mcp", …)`, or any tower
    /// stack): the same checks as [`serve_http_with`](Self::serve_http_with)
    /// — `Host` and `Origin`, the key, the body size, the call quota, as
    /// the layers of [`http_endpoint`](Self::http_endpoint) — in front of
    /// the same sessions service. Call it inside a Tokio runtime
    /// (it starts the task that ends idle sessions, which stops when the
    /// last clone of the service is dropped). An `auth` without keys, or
    /// an invalid [`HttpLimits::allowed_hosts`] entry, is an error.
    ///
    /// ```no_run
    /// use optimclaw::{Registry, ToolContext};
    /// use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::new(Registry::from_linked()?, ToolContext::new());
    /// let auth = HttpAuth::from_env().ok_or("set OPTIMCLAW_MCP_TOKEN")??;
    /// let mcp = server.http_service(auth, HttpLimits::default())?;
    /// // e.g. axum::Router::new().route_service("/mcp", mcp)
    /// # let _ = mcp;
    /// # Ok(()) }
    /// ```
    pub fn http_service(
        self,
        auth: HttpAuth,
        limits: HttpLimits,
    ) -> std::io::Result<McpHttpService> {
        Ok(self.http_endpoint(auth, limits)?.into_service())
    }

    /// The endpoint in parts, to stack with tower layers of your own
    /// (tracing, CORS, rate limits) between the checks: each check as a
    /// [`Layer`](tower_layer::Layer), made from `auth` and `limits`, and
    /// the sessions service they guard. Outermost first:
    /// [`HostOriginLayer`], [`KeyLayer`], [`BodyLimitLayer`],
    /// [`CallQuotaLayer`], then [`McpSessions`].
    /// [`McpHttpEndpoint::into_service`] stacks them as they come (that is
    /// [`http_service`](Self::http_service)). The sessions service and the
    /// quota refuse requests that did not pass the key layer, so a stack
    /// without it answers nothing. Call it inside a Tokio runtime (the
    /// task that ends idle sessions stops when the last clone of the
    /// sessions service is dropped); errors as `http_service`.
    ///
    /// ```no_run
    /// use optimclaw::{Registry, ToolContext};
    /// use optimclaw_mcp::{HttpAuth, HttpLimits, McpServer};
    /// use tower_layer::Layer;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let server = McpServer::new(Registry::from_linked()?, ToolContext::new());
    /// let auth = HttpAuth::from_env().ok_or("set OPTIMCLAW_MCP_TOKEN")??;
    /// let parts = server.http_endpoint(auth, HttpLimits::default())?;
    /// // Your own layers go between these, e.g. a trace layer after the key.
    /// let service = parts.host_origin.layer(
    ///     parts.key.layer(parts.body.layer(parts.quota.layer(parts.sessions))),
    /// );
    /// # let _ = service;
    /// # Ok(()) }
    /// ```
    pub fn http_endpoint(
        self,
        auth: HttpAuth,
        limits: HttpLimits,
    ) -> std::io::Result<McpHttpEndpoint> {
        let stop = CancellationToken::new();
        let endpoint = self.endpoint(&stop, auth, limits, None, None)?;
        let guard = Some(Arc::new(stop.drop_guard()));
        Ok(McpHttpEndpoint {
            sessions: McpSessions {
                _stop: guard,
                ..endpoint.sessions
            },
            ..endpoint
        })
    }

    /// The checks and the sessions service, and the task that ends idle
    /// sessions until `shutdown`.
    fn endpoint(
        self,
        shutdown: &CancellationToken,
        auth: HttpAuth,
        limits: HttpLimits,
        local: Option<std::net::SocketAddr>,
        stop: Option<Arc<tokio_util::sync::DropGuard>>,
    ) -> std::io::Result<McpHttpEndpoint> {
        let key = KeyLayer::new(auth.clone()).map_err(|e| match local {
            Some(place) => std::io::Error::new(e.kind(), format!("{place}: {e}")),
            None => e,
        })?;
        let mut host_origin = HostOriginLayer::new(&limits)?;
        if let Some(local) = local {
            host_origin = host_origin.with_local_addr(local);
        }
        let body = BodyLimitLayer::new(limits.max_body_bytes);
        let quota = CallQuotaLayer::new(auth.len(), &limits);
        if limits.stateless {
            self.mark_stateless();
        }
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = shutdown.child_token();
        // The `Host` check is ours (HostOriginLayer): it answers addresses
        // and the names it is given, which rmcp's loopback-only list
        // cannot.
        config.allowed_hosts.clear();
        // So is the `Origin` check: on by default, where rmcp's checks
        // only when origins are listed.
        config.allowed_origins.clear();
        config.max_request_body_bytes = limits.max_body_bytes;
        // Sessions are ours (McpSessions): rmcp serves every request on
        // its own, as the session's connection when it has one.
        config.legacy_session_mode = false;
        config.json_response = limits.stateless;
        let template = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(sessions::current().unwrap_or_else(|| template.for_new_connection())),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let front = Arc::new(Front {
            service,
            server: self,
            sessions: Arc::new(Sessions::new(
                auth.len(),
                limits.max_sessions_per_key,
                limits.session_idle,
            )),
            limits,
            trimmer: Trimmer::default(),
            shutdown: shutdown.clone(),
        });
        // Idle sessions end every few seconds.
        let (pruned_front, stop_pruning) = (Arc::clone(&front), shutdown.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tokio::select! {
                    _ = tick.tick() => pruned_front.prune().await,
                    () = stop_pruning.cancelled() => return,
                }
            }
        });
        Ok(McpHttpEndpoint {
            host_origin,
            key,
            body,
            quota,
            sessions: McpSessions { front, _stop: stop },
        })
    }
}

/// The MCP endpoint in parts, made by [`McpServer::http_endpoint`]: its
/// checks as tower layers, outermost first, and the sessions service
/// they guard.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct McpHttpEndpoint {
    /// `Host` and `Origin` (HTTP 403).
    pub host_origin: HostOriginLayer,
    /// The access key (HTTP 401); sets the key and its tool scope.
    pub key: KeyLayer,
    /// The request size (HTTP 413); reads the body.
    pub body: BodyLimitLayer,
    /// Each key's tool calls in flight (HTTP 429).
    pub quota: CallQuotaLayer,
    /// The sessions, and rmcp's MCP service behind them.
    pub sessions: McpSessions,
}

/// The whole stack of [`McpHttpService`].
type Stack = HostOriginGuard<KeyCheck<BodyLimit<CallQuota<McpSessions>>>>;

impl McpHttpEndpoint {
    /// Every layer in its place: the service
    /// [`McpServer::http_service`] returns.
    pub fn into_service(self) -> McpHttpService {
        use tower_layer::Layer as _;
        let stack = self.host_origin.layer(
            self.key
                .layer(self.body.layer(self.quota.layer(self.sessions))),
        );
        McpHttpService { stack }
    }
}

/// The MCP endpoint as a tower [`Service`](tower_service::Service), made
/// by [`McpServer::http_service`]: mount it in an HTTP app of your own.
/// Cheap to clone; every clone serves the same sessions.
#[derive(Clone)]
pub struct McpHttpService {
    stack: Stack,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").finish_non_exhaustive()
    }
}

impl<B> tower_service::Service<hyper::Request<B>> for McpHttpService
where
    B: hyper::body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = hyper::Response<HttpBody>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        tower_service::Service::<hyper::Request<B>>::poll_ready(&mut self.stack, cx)
    }

    fn call(&mut self, req: hyper::Request<B>) -> Self::Future {
        self.stack.call(req)
    }
}

/// The body of the endpoint's answers.
pub type HttpBody = http_body_util::combinators::BoxBody<bytes::Bytes, Infallible>;

/// Accepts one connection and turns Nagle's algorithm off on it: the
/// answers are small SSE or JSON writes, and with Nagle's algorithm each
/// waits for the client's delayed ACK (about 40 ms per call).
async fn accept(listener: &TcpListener) -> std::io::Result<TcpStream> {
    let (stream, _) = listener.accept().await?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// The accept loop: each connection is served (HTTP/1.1) by `service`.
async fn serve_connections(
    listener: TcpListener,
    shutdown: CancellationToken,
    service: McpHttpService,
) -> std::io::Result<()> {
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
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        let stop = shutdown.clone();
        tokio::spawn(async move {
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
}
