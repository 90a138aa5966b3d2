//! Serving MCP over streamable HTTP: [`McpServer::serve_http`] and its
//! accept loop (`TCP_NODELAY` on every connection), with the stateless mode
//! that lets replicas sit behind an ordinary load balancer. What each
//! request passes on its way in is [`Front`]'s.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::auth::HttpAuth;
use super::front::Front;
use super::hosts::{HostCheck, OriginCheck};
use super::limits::HttpLimits;
use super::memory::Trimmer;
use super::quota::Quotas;
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
        let front = self.front(&shutdown, auth, limits, Some(local))?;
        serve_connections(listener, shutdown, front).await
    }

    /// The endpoint as a tower service, to mount in an HTTP app of your
    /// own (axum's `Router::route_service("/mcp", …)`, or any tower
    /// stack): the same checks as [`serve_http_with`](Self::serve_http_with)
    /// — `Host`, `Origin`, the key, sessions and quotas, the body size —
    /// in front of the same MCP service. Call it inside a Tokio runtime
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
        let stop = CancellationToken::new();
        let front = self.front(&stop, auth, limits, None)?;
        Ok(McpHttpService {
            front,
            _stop: Arc::new(stop.drop_guard()),
        })
    }

    /// What stands before the MCP service, and the task that ends idle
    /// sessions until `shutdown`.
    fn front(
        self,
        shutdown: &CancellationToken,
        auth: HttpAuth,
        limits: HttpLimits,
        local: Option<std::net::SocketAddr>,
    ) -> std::io::Result<Arc<Front>> {
        if auth.is_empty() {
            let place = local.map_or_else(|| "an endpoint".to_owned(), |l| l.to_string());
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "refusing to serve MCP over HTTP on {place} without an access key: anyone who reaches the address could call every tool; add one with HttpAuth::key (or HttpAuth::token)"
                ),
            ));
        }
        let hosts = HostCheck::new(&limits.allowed_hosts)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        if limits.stateless {
            self.mark_stateless();
        }
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = shutdown.child_token();
        // The `Host` check is ours (Front): it answers addresses and the
        // names it is given, which rmcp's loopback-only list cannot.
        config.allowed_hosts.clear();
        // So is the `Origin` check (Front): on by default, where rmcp's
        // checks only when origins are listed.
        config.allowed_origins.clear();
        config.max_request_body_bytes = limits.max_body_bytes;
        // Sessions are ours (Front, Sessions): rmcp serves every request
        // on its own, as the session's connection when it has one.
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
            server: self.clone(),
            sessions: Arc::new(Sessions::new(
                auth.len(),
                limits.max_sessions_per_key,
                limits.session_idle,
            )),
            quotas: Quotas::new(auth.len(), limits.max_calls_per_key),
            origins: OriginCheck::new(hosts.clone(), &limits.allowed_origins),
            limits,
            auth,
            hosts,
            local,
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
        Ok(front)
    }
}

/// The MCP endpoint as a tower [`Service`](tower_service::Service), made
/// by [`McpServer::http_service`]: mount it in an HTTP app of your own.
/// Cheap to clone; every clone serves the same sessions.
#[derive(Clone)]
pub struct McpHttpService {
    front: Arc<Front>,
    /// Ends the idle-session task when the last clone goes.
    _stop: Arc<tokio_util::sync::DropGuard>,
}

impl std::fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpService").finish_non_exhaustive()
    }
}

impl<B> tower_service::Service<hyper::Request<B>> for McpHttpService
where
    B: hyper::body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + std::fmt::Display,
{
    type Response = hyper::Response<HttpBody>;
    type Error = Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Infallible>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: hyper::Request<B>) -> Self::Future {
        let front = Arc::clone(&self.front);
        Box::pin(async move { Ok(front.handle(req).await) })
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

/// The accept loop: each connection is served (HTTP/1.1) by `front`.
async fn serve_connections(
    listener: TcpListener,
    shutdown: CancellationToken,
    front: Arc<Front>,
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
