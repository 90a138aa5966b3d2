//! The checks in front of the MCP endpoint, each a tower [`Layer`]:
//! [`HostOriginLayer`] (DNS rebinding and foreign pages), [`KeyLayer`]
//! (the access key and its scope), [`BodyLimitLayer`] (the request size,
//! and what a JSON-RPC body asks for) and [`CallQuotaLayer`] (each key's
//! tool calls in flight), in that order before the sessions service
//! ([`McpSessions`](crate::McpSessions)).
//!
//! [`McpServer::http_endpoint`](crate::McpServer::http_endpoint) gives all
//! of them, made from one [`HttpAuth`] and [`HttpLimits`], to stack with
//! layers of your own; [`McpServer::http_service`](crate::McpServer::http_service)
//! stacks them as they come. Whatever the stack, the sessions service and
//! the quota answer a request without a key checked by [`KeyLayer`] with
//! HTTP 401: leaving the key layer out refuses everything rather than
//! letting everything in.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Body as HttpBody;
use hyper::{Method, Request, Response, StatusCode};
use tower_layer::Layer;
use tower_service::Service;

use super::answers::{
    Body, forbidden_host, forbidden_origin, no_key_layer, over_quota, plain, unauthorized,
};
use super::auth::HttpAuth;
use super::hosts::{HostCheck, HostRefusal, OriginCheck};
use super::inspect::{Inspected, inspect};
use super::limits::HttpLimits;
use super::quota::Quotas;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The future of every service here.
pub type ResponseFuture =
    Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send + 'static>>;

fn ready(response: Response<Body>) -> ResponseFuture {
    Box::pin(std::future::ready(Ok(response)))
}

/// The tower way to call a cloned inner service: the clone that was made
/// ready stays with the call, a fresh clone takes its place.
fn take_ready<S: Clone>(inner: &mut S) -> S {
    let clone = inner.clone();
    std::mem::replace(inner, clone)
}

/// Refuses a request whose `Host` is not this server's (HTTP 403, 400 for
/// a malformed one: DNS rebinding) or whose `Origin` is a page elsewhere
/// (HTTP 403). Which hosts and origins pass: [`HttpLimits::allowed_hosts`]
/// and [`HttpLimits::allowed_origins`]; loopback names and addresses, and
/// the address listened on, always do. A request without `Origin` (a
/// program, not a browser) passes.
#[derive(Clone, Debug)]
pub struct HostOriginLayer {
    hosts: HostCheck,
    origins: OriginCheck,
    local: Option<SocketAddr>,
}

impl HostOriginLayer {
    /// The check for `limits`' allowed hosts and origins; an invalid host
    /// entry is an error naming it.
    pub fn new(limits: &HttpLimits) -> std::io::Result<Self> {
        let hosts = HostCheck::new(&limits.allowed_hosts)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let origins = OriginCheck::new(hosts.clone(), &limits.allowed_origins);
        Ok(Self {
            hosts,
            origins,
            local: None,
        })
    }

    /// Also answers pages served from `local`, the address listened on.
    #[must_use]
    pub fn with_local_addr(mut self, local: SocketAddr) -> Self {
        self.local = Some(local);
        self
    }

    fn refusal<B>(&self, req: &Request<B>) -> Option<Response<Body>> {
        if let Err(refusal) = self.check_host(req) {
            return Some(forbidden_host(&refusal));
        }
        let origin = req.headers().get(hyper::header::ORIGIN)?;
        let origin = String::from_utf8_lossy(origin.as_bytes());
        (!self.origins.allows(&origin, self.local)).then(|| forbidden_origin(&origin))
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
        // No host at all: the MCP service answers 400 for it.
        host.map_or(Ok(()), |host| self.hosts.allows(&host))
    }
}

impl<S> Layer<S> for HostOriginLayer {
    type Service = HostOriginGuard<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HostOriginGuard {
            check: self.clone(),
            inner,
        }
    }
}

/// The service of [`HostOriginLayer`].
#[derive(Clone, Debug)]
pub struct HostOriginGuard<S> {
    check: HostOriginLayer,
    inner: S,
}

impl<S, B> Service<Request<B>> for HostOriginGuard<S>
where
    S: Service<Request<B>, Response = Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> ResponseFuture {
        if let Some(refused) = self.check.refusal(&req) {
            return ready(refused);
        }
        let mut inner = take_ready(&mut self.inner);
        Box::pin(async move { inner.call(req).await })
    }
}

/// A request's access key, set by [`KeyLayer`] once the key matched: what
/// the sessions and the quotas count by. Only the key layer makes one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Authorized {
    /// The key's index in the [`HttpAuth`].
    pub(crate) key: usize,
}

impl fmt::Debug for Authorized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Authorized(key {})", self.key)
    }
}

/// Refuses a request without a valid `Authorization: Bearer` key (HTTP
/// 401 with RFC 6750's challenge); a request with one goes on carrying
/// [`Authorized`] and the key's [`ToolScope`](optimclaw::ToolScope) as
/// extensions.
#[derive(Clone)]
pub struct KeyLayer {
    auth: HttpAuth,
}

impl fmt::Debug for KeyLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyLayer({} keys)", self.auth.len())
    }
}

impl KeyLayer {
    /// The check for `auth`'s keys. An `auth` without keys is an error:
    /// anyone who reached the endpoint could call every tool.
    pub fn new(auth: HttpAuth) -> std::io::Result<Self> {
        if auth.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "refusing to serve MCP over HTTP without an access key: anyone who reaches the address could call every tool; add one with HttpAuth::key (or HttpAuth::token)",
            ));
        }
        Ok(Self { auth })
    }
}

impl<S> Layer<S> for KeyLayer {
    type Service = KeyCheck<S>;

    fn layer(&self, inner: S) -> Self::Service {
        KeyCheck {
            auth: self.auth.clone(),
            inner,
        }
    }
}

/// The service of [`KeyLayer`].
#[derive(Clone)]
pub struct KeyCheck<S> {
    auth: HttpAuth,
    inner: S,
}

impl<S> fmt::Debug for KeyCheck<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyCheck").finish_non_exhaustive()
    }
}

impl<S, B> Service<Request<B>> for KeyCheck<S>
where
    S: Service<Request<B>, Response = Response<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> ResponseFuture {
        match self.auth.check(req.headers()) {
            // rmcp hands the request's parts, extensions included, to the
            // handler, which reads the scope from there.
            Ok((key, scope)) => {
                req.extensions_mut().insert(scope);
                req.extensions_mut().insert(Authorized { key });
            }
            Err(refusal) => return ready(unauthorized(refusal)),
        }
        let mut inner = take_ready(&mut self.inner);
        Box::pin(async move { inner.call(req).await })
    }
}

/// A request body read whole by [`BodyLimitLayer`], with what it asks for
/// as JSON-RPC. Only the body layer makes one; a `POST`'s body, empty for
/// every other method.
pub struct JsonRpcBody {
    bytes: Bytes,
    pub(crate) asked: Inspected,
}

impl JsonRpcBody {
    fn new(bytes: Bytes) -> Self {
        let asked = inspect(&bytes);
        Self { bytes, asked }
    }

    fn empty() -> Self {
        Self {
            bytes: Bytes::new(),
            asked: Inspected::default(),
        }
    }

    /// The body's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub(crate) fn into_bytes(self) -> Bytes {
        self.bytes
    }

    pub(crate) fn into_parts(self) -> (Bytes, Inspected) {
        (self.bytes, self.asked)
    }
}

impl fmt::Debug for JsonRpcBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonRpcBody({} bytes)", self.bytes.len())
    }
}

/// Reads a `POST` body whole, up to a size (HTTP 413 past it), and hands
/// it on as a [`JsonRpcBody`]; the body of any other method is dropped.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimitLayer {
    max_bytes: usize,
}

impl BodyLimitLayer {
    /// Bodies up to `max_bytes` (the default: [`HttpLimits::max_body_bytes`]).
    pub fn new(max_bytes: usize) -> Self {
        Self { max_bytes }
    }
}

impl<S> Layer<S> for BodyLimitLayer {
    type Service = BodyLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BodyLimit {
            max_bytes: self.max_bytes,
            inner,
        }
    }
}

/// The service of [`BodyLimitLayer`].
#[derive(Clone, Debug)]
pub struct BodyLimit<S> {
    max_bytes: usize,
    inner: S,
}

impl<S, B> Service<Request<B>> for BodyLimit<S>
where
    S: Service<Request<JsonRpcBody>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> ResponseFuture {
        let max = self.max_bytes;
        let mut inner = take_ready(&mut self.inner);
        Box::pin(async move {
            let (parts, body) = req.into_parts();
            let body = if parts.method == Method::POST {
                match Limited::new(body, max).collect().await {
                    Ok(collected) => JsonRpcBody::new(collected.to_bytes()),
                    Err(e) if e.is::<http_body_util::LengthLimitError>() => {
                        return Ok(plain(
                            StatusCode::PAYLOAD_TOO_LARGE,
                            format!("the request body is larger than {max} bytes"),
                        ));
                    }
                    Err(e) => {
                        return Ok(plain(
                            StatusCode::BAD_REQUEST,
                            format!("the request body could not be read: {e}"),
                        ));
                    }
                }
            } else {
                JsonRpcBody::empty()
            };
            inner.call(Request::from_parts(parts, body)).await
        })
    }
}

/// Refuses a body's tool calls when its key has its limit of calls
/// running (HTTP 429, a JSON-RPC error with `Retry-After`); the calls
/// count until their answer has been sent. Made by
/// [`McpServer::http_endpoint`](crate::McpServer::http_endpoint), for its
/// keys.
#[derive(Clone)]
pub struct CallQuotaLayer {
    quotas: Quotas,
    retry_secs: u64,
}

impl fmt::Debug for CallQuotaLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallQuotaLayer").finish_non_exhaustive()
    }
}

impl CallQuotaLayer {
    pub(crate) fn new(keys: usize, limits: &HttpLimits) -> Self {
        Self {
            quotas: Quotas::new(keys, limits.max_calls_per_key),
            retry_secs: limits.retry_after.as_secs().max(1),
        }
    }
}

impl<S> Layer<S> for CallQuotaLayer {
    type Service = CallQuota<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CallQuota {
            quota: self.clone(),
            inner,
        }
    }
}

/// The service of [`CallQuotaLayer`].
#[derive(Clone)]
pub struct CallQuota<S> {
    quota: CallQuotaLayer,
    inner: S,
}

impl<S> fmt::Debug for CallQuota<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallQuota").finish_non_exhaustive()
    }
}

impl<S> Service<Request<JsonRpcBody>> for CallQuota<S>
where
    S: Service<Request<JsonRpcBody>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<JsonRpcBody>) -> ResponseFuture {
        let Some(&Authorized { key }) = req.extensions().get::<Authorized>() else {
            return ready(no_key_layer());
        };
        let calls = req.body().asked.calls;
        let permit = if calls == 0 {
            None
        } else {
            match self.quota.quotas.calls(key, calls) {
                Ok(permit) => Some(permit),
                Err(over) => {
                    let id = req.body().asked.id.clone();
                    return ready(over_quota(over, id, self.quota.retry_secs));
                }
            }
        };
        let mut inner = take_ready(&mut self.inner);
        Box::pin(async move {
            let response = inner.call(req).await?;
            Ok(match permit {
                None => response,
                // Counted until the answer has been sent (an SSE stream
                // ends with the call's result) or the client went away.
                Some(permit) => response.map(|body| {
                    body.map_frame(move |frame| {
                        let _held = &permit;
                        frame
                    })
                    .boxed()
                }),
            })
        })
    }
}
