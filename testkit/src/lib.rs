//! Fake HTTP endpoints for the tests and benches: one kit for every
//! stand-in (a model server, an embeddings or rerank endpoint, a web page).
//!
//! A [`FakeEndpoint`] listens on a loopback port and answers each request
//! with what its handler returns, on a thread of its own per connection (a
//! stalled answer holds up no other), and records every request.
//!
//! ```
//! use optimclaw_testkit::{FakeEndpoint, Reply};
//! use serde_json::json;
//!
//! let endpoint = FakeEndpoint::script([Reply::json(200, &json!({"ok": true}))]);
//! let url = endpoint.url("/v1/chat/completions");
//! assert!(url.starts_with("http://127.0.0.1:"));
//! assert!(endpoint.requests().is_empty());
//! ```
//!
//! Written on `std::net` rather than on an HTTP server crate: it must also
//! send what real servers sometimes send (a stream that stalls half-way),
//! and it is a few lines of HTTP/1.1 with `connection: close`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// A request as the endpoint received it.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path and query, as sent (`/v1/embeddings`).
    pub path: String,
    /// The headers, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

impl Request {
    /// The first header with this name (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// What the endpoint answers.
#[derive(Clone, Debug)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Sent without a length (a stream), then the connection is held this
    /// long before it closes.
    stall: Option<Duration>,
    streamed: bool,
}

impl Reply {
    /// A JSON body.
    pub fn json(status: u16, body: &Value) -> Self {
        Reply::text(status, body.to_string()).with_header("content-type", "application/json")
    }

    /// A text body (no content type: add one with [`with_header`](Self::with_header)).
    pub fn text(status: u16, body: impl Into<String>) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: body.into().into_bytes(),
            stall: None,
            streamed: false,
        }
    }

    /// Server-sent events: `text/event-stream`, no length, the connection
    /// closed after the last byte.
    pub fn events(text: impl Into<String>) -> Self {
        let mut reply = Reply::text(200, text).with_header("content-type", "text/event-stream");
        reply.streamed = true;
        reply
    }

    /// The same reply, then the connection held open for `wait` before it
    /// closes (a server that stops sending half-way).
    pub fn stalled(mut self, wait: Duration) -> Self {
        self.streamed = true;
        self.stall = Some(wait);
        self
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The body as text.
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn write(&self, stream: &mut TcpStream) -> std::io::Result<()> {
        let mut head = format!("HTTP/1.1 {} X\r\n", self.status);
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if !self.streamed {
            head.push_str(&format!("content-length: {}\r\n", self.body.len()));
        }
        head.push_str("connection: close\r\n\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(&self.body)?;
        stream.flush()?;
        if let Some(wait) = self.stall {
            std::thread::sleep(wait);
        }
        Ok(())
    }
}

type Handler = dyn FnMut(&Request) -> Reply + Send;

/// A fake HTTP endpoint on loopback (see the [crate] docs).
#[derive(Clone, Debug)]
pub struct FakeEndpoint {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl FakeEndpoint {
    /// Answers every request with `handler`, called one request at a time.
    pub fn start(handler: impl FnMut(&Request) -> Reply + Send + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("the port's address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Mutex<Box<Handler>>> = Arc::new(Mutex::new(Box::new(handler)));
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (handler, record) = (Arc::clone(&handler), Arc::clone(&record));
                std::thread::spawn(move || serve(stream, &handler, &record));
            }
        });
        FakeEndpoint { addr, seen }
    }

    /// Answers requests with `replies` in order, then with `exhausted`.
    pub fn script(replies: impl IntoIterator<Item = Reply>) -> Self {
        let mut replies: VecDeque<Reply> = replies.into_iter().collect();
        Self::start(move |_| {
            replies.pop_front().unwrap_or_else(|| {
                Reply::json(
                    500,
                    &serde_json::json!({"error": {"message": "the test's script is exhausted"}}),
                )
            })
        })
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().expect("not poisoned").clone()
    }

    /// The JSON bodies of every request so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().iter().map(Request::json).collect()
    }
}

fn serve(stream: TcpStream, handler: &Mutex<Box<Handler>>, record: &Mutex<Vec<Request>>) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    // Recorded before the answer is made, so a test that reads the
    // requests after its client returned sees this one.
    record.lock().expect("not poisoned").push(request.clone());
    let reply = {
        let mut handler = handler.lock().unwrap_or_else(|e| e.into_inner());
        handler(&request)
    };
    let mut stream = stream;
    let _ = reply.write(&mut stream);
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn post(endpoint: &FakeEndpoint, path: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(endpoint.addr()).unwrap();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nhost: x\r\nAuthorization: Bearer k\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        stream.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn a_script_answers_in_order_and_records_each_request() {
        let endpoint = FakeEndpoint::script([
            Reply::json(200, &json!({"n": 1})),
            Reply::text(429, "slow down").with_header("retry-after", "1"),
        ]);
        let first = post(&endpoint, "/v1/a", r#"{"q": 1}"#);
        assert!(first.starts_with("HTTP/1.1 200"), "{first}");
        assert!(first.ends_with(r#"{"n":1}"#), "{first}");
        let second = post(&endpoint, "/v1/b", "plain");
        assert!(second.starts_with("HTTP/1.1 429"), "{second}");
        assert!(second.contains("retry-after: 1"), "{second}");
        let third = post(&endpoint, "/v1/c", "");
        assert!(third.starts_with("HTTP/1.1 500"), "{third}");
        let seen = endpoint.requests();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].path, "/v1/a");
        assert_eq!(seen[0].json(), json!({"q": 1}));
        assert_eq!(seen[0].header("AUTHORIZATION"), Some("Bearer k"));
        assert_eq!(seen[1].text(), "plain");
    }

    #[test]
    fn a_handler_answers_from_the_request() {
        let endpoint = FakeEndpoint::start(|request| {
            Reply::json(
                200,
                &json!({"path": request.path, "len": request.body.len()}),
            )
        });
        let out = post(&endpoint, "/echo", "abc");
        let body: Value = serde_json::from_str(out.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body, json!({"path": "/echo", "len": 3}));
    }
}
