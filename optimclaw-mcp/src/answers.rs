//! The answers the MCP endpoint refuses with: JSON errors naming what was
//! wrong and what to do (`Host`, `Origin`, the key, quotas, the body), the
//! JSON-RPC refusals with `Retry-After`, and the body type every answer
//! has. Shared by the checks ([`layers`](super::layers)) and the sessions
//! service ([`front`](super::front)).

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::auth::Refusal;
use super::hosts::HostRefusal;
use super::quota::OverQuota;

pub(super) type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// HTTP 429 for a key over one of its quotas, as a JSON-RPC error.
pub(super) fn over_quota(over: OverQuota, id: Value, retry_secs: u64) -> Response<Body> {
    let (message, quota, max) = over.message(retry_secs);
    let mut data = serde_json::Map::new();
    data.insert(quota.to_owned(), json!(max));
    rpc_refusal(
        StatusCode::TOO_MANY_REQUESTS,
        id,
        &message,
        Value::Object(data),
        retry_secs,
    )
}

/// A JSON-RPC error answer with an HTTP status and a `Retry-After`.
pub(super) fn rpc_refusal(
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

pub(super) fn error_body(status: StatusCode, error: &str, message: &str) -> Response<Body> {
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

pub(super) fn plain(status: StatusCode, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
}

/// HTTP 401 for a request that reached the sessions or the quota without
/// passing [`KeyLayer`](super::layers::KeyLayer): a stack built without it refuses everything.
pub(super) fn no_key_layer() -> Response<Body> {
    error_body(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "this MCP endpoint checks no access key (its KeyLayer is missing), so it answers nothing",
    )
}

/// HTTP 403 naming the refused `Host` and how to allow it.
pub(super) fn forbidden_host(refusal: &HostRefusal) -> Response<Body> {
    let (status, error) = match refusal {
        HostRefusal::NotAllowed(_) => (StatusCode::FORBIDDEN, "host_not_allowed"),
        HostRefusal::Malformed(_) => (StatusCode::BAD_REQUEST, "bad_host"),
    };
    error_body(status, error, &refusal.message())
}

pub(super) fn forbidden_origin(origin: &str) -> Response<Body> {
    error_body(
        StatusCode::FORBIDDEN,
        "origin_not_allowed",
        &format!(
            "this MCP server does not answer pages from the origin {origin:?}: a page elsewhere must not make a visitor's browser call it. Add the origin to the server's allowed origins (HttpLimits::allowed_origins), or its host to the allowed hosts"
        ),
    )
}

/// HTTP 401 with the `WWW-Authenticate` challenge of RFC 6750.
pub(super) fn unauthorized(refusal: Refusal) -> Response<Body> {
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
