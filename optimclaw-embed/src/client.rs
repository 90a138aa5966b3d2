//! The HTTP client of the embedding and rerank backends: the agent's async
//! stack (reqwest on hyper and rustls) behind the synchronous
//! [`Embedder`](optimclaw::embed::Embedder) and
//! [`Reranker`](optimclaw::rerank::Reranker) traits.
//!
//! Requests run on one background thread with a runtime of its own, and
//! the caller waits for the answer. So a call works from anywhere: a
//! registry build outside any runtime, `tool_info` on a blocking thread,
//! or a registry built inside async code (where reqwest's blocking client
//! would panic).

use std::sync::OnceLock;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use tokio::sync::mpsc;

/// An answer: its status and body (cut at the request's limit).
pub(crate) struct Answer {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) body: String,
}

/// Why there is no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// Sending failed or timed out.
    #[error("{}", describe(.0))]
    Send(#[source] reqwest::Error),
    /// Reading the answer failed or timed out.
    #[error("{}", describe(.0))]
    Read(#[source] reqwest::Error),
    /// The answer is longer than the limit.
    #[error("the answer is longer than {0} bytes")]
    TooLong(usize),
    /// The client thread could not be started.
    #[error("the HTTP client thread cannot start: {0}")]
    NoThread(String),
}

/// A reqwest error as one line (what failed, then each cause), without the
/// URL: its query may hold credentials.
fn describe(err: &reqwest::Error) -> String {
    let what = if err.is_timeout() {
        "the request timed out"
    } else if err.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    format!("{what}{}", optimclaw::error_causes(err))
}

/// A POST of a JSON body.
pub(crate) struct Post {
    pub(crate) url: String,
    pub(crate) key: Option<String>,
    pub(crate) body: Vec<u8>,
    pub(crate) timeout: Duration,
    pub(crate) limit: usize,
}

struct Job {
    post: Post,
    answer: std_mpsc::SyncSender<Result<Answer, Failure>>,
}

/// The client thread's queue, started on first use.
fn queue() -> Result<&'static mpsc::UnboundedSender<Job>, Failure> {
    static QUEUE: OnceLock<Result<mpsc::UnboundedSender<Job>, String>> = OnceLock::new();
    QUEUE
        .get_or_init(start)
        .as_ref()
        .map_err(|e| Failure::NoThread(e.clone()))
}

fn start() -> Result<mpsc::UnboundedSender<Job>, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .build()
        .map_err(|e| describe(&e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
    std::thread::Builder::new()
        .name("optimclaw-embed-http".into())
        .spawn(move || {
            runtime.block_on(async move {
                while let Some(job) = queue.recv().await {
                    let client = client.clone();
                    tokio::spawn(async move {
                        let _ = job.answer.send(send(&client, job.post).await);
                    });
                }
            });
        })
        .map_err(|e| e.to_string())?;
    Ok(jobs)
}

async fn send(client: &reqwest::Client, post: Post) -> Result<Answer, Failure> {
    let mut request = client
        .post(&post.url)
        .timeout(post.timeout)
        .header("content-type", "application/json")
        .body(post.body);
    if let Some(key) = &post.key {
        request = request.bearer_auth(key);
    }
    let mut response = request.send().await.map_err(Failure::Send)?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(Failure::Read)? {
        if body.len() + chunk.len() > post.limit {
            return Err(Failure::TooLong(post.limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Sends `post` and waits for the answer (an HTTP error status is an
/// answer, not a failure).
pub(crate) fn post(post: Post) -> Result<Answer, Failure> {
    let (answer, wait) = std_mpsc::sync_channel(1);
    queue()?
        .send(Job { post, answer })
        .map_err(|_| Failure::NoThread("the client thread has stopped".into()))?;
    wait.recv()
        .map_err(|_| Failure::NoThread("the client thread has stopped".into()))?
}
