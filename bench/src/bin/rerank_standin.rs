//! A `/rerank` endpoint on loopback that answers as Cohere's and Jina's do
//! (`{"results": [{"index", "relevance_score"}], "meta": {"billed_units"}}`,
//! best first, `top_n` honoured, HTTP 400 for what they refuse) and scores
//! with a real model: all-MiniLM-L6-v2's cosine between the query and each
//! document, floored at 0. For measuring `HttpReranker` through
//! `tool_info` (`bench/rerank.sh`): the protocol, the latency and the
//! tokens a search sends are the real endpoint's; the quality is that of
//! this small model used as a reranker, not of a cross-encoder.
//!
//! It also serves `POST …/chat/completions` as an OpenAI-compatible chat
//! model would for `ChatReranker`: it reads the request and the numbered
//! tools from the prompt `ChatReranker` writes, and answers
//! `{"tools": [numbers]}` as a judge that reads the same cosines: the tools
//! within [`CLOSE`] of the best, at most three, best first, or none when the
//! best is under [`FITS`] (`STANDIN_FITS` sets another). Usage is reported as OpenAI reports it
//! (`prompt_tokens`, `completion_tokens`, `total_tokens`, o200k), and what
//! OpenAI refuses (no model, no messages, a message without a role or
//! content) gets HTTP 400 with its error shape. The judgement is this small
//! model's, not a chat model's: what it measures is the wiring, the tokens
//! a search costs and the latency of a round trip.
//!
//! Usage: `rerank_standin MODEL_DIR PORT_FILE`: writes its port to
//! PORT_FILE, serves until killed. `GET /stats` answers the requests
//! served and the o200k tokens of their queries and documents, and the
//! chat requests with their prompt and completion tokens.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use optimclaw::embed::{Embedder, EmbeddingCache};
use optimclaw::tokens::Encoding;
use optimclaw_embed::MiniLm;
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

struct StandIn {
    model: MiniLm,
    cache: EmbeddingCache,
    requests: AtomicU64,
    tokens: AtomicU64,
    chat_requests: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    /// The judge's cosine under which no tool fits.
    fits: f32,
}

/// The stand-in judge's default cosine under which no tool fits
/// (docs/benchmarks-history.md §2d has the curve from 0.1 to 0.4).
const FITS: f32 = 0.2;
/// How far under the best a cosine may be and still be picked.
const CLOSE: f32 = 0.05;

/// What OpenAI's chat completions answer 400 for, among what a reranker
/// sends: a missing model, no messages, a message without a known role or
/// a string content.
fn chat_refusal(body: &Value) -> Option<&'static str> {
    if body["model"].as_str().is_none_or(str::is_empty) {
        return Some("you must provide a model parameter");
    }
    let Some(messages) = body["messages"].as_array().filter(|m| !m.is_empty()) else {
        return Some("messages must be a non-empty array");
    };
    let roles = ["system", "developer", "user", "assistant", "tool"];
    if !messages
        .iter()
        .all(|m| m["role"].as_str().is_some_and(|r| roles.contains(&r)) && m["content"].is_string())
    {
        return Some("each message needs a role and a string content");
    }
    None
}

/// The request and the numbered tools of `ChatReranker`'s prompt:
/// `Request: …\n\nTools:\n1. …\n2. …`.
fn read_prompt(prompt: &str) -> Option<(&str, Vec<&str>)> {
    let rest = prompt.strip_prefix("Request: ")?;
    let (request, tools) = rest.split_once("\n\nTools:\n")?;
    let docs = tools
        .lines()
        .filter_map(|line| {
            let (number, doc) = line.split_once(". ")?;
            number.parse::<usize>().ok().map(|_| doc)
        })
        .collect();
    Some((request, docs))
}

/// What Cohere and Jina answer 400 for: a missing model or query, not 1 to
/// 1,000 string documents, `top_n` over their number.
fn refusal(body: &Value) -> Option<&'static str> {
    if body["model"].as_str().is_none_or(str::is_empty) {
        return Some("model is required");
    }
    if body["query"].as_str().is_none_or(str::is_empty) {
        return Some("query is required");
    }
    let Some(docs) = body["documents"].as_array() else {
        return Some("documents is required");
    };
    if docs.is_empty() || docs.len() > 1_000 || !docs.iter().all(Value::is_string) {
        return Some("documents must hold 1 to 1000 strings");
    }
    if body["top_n"]
        .as_u64()
        .is_some_and(|n| n == 0 || n as usize > docs.len())
    {
        return Some("top_n must be from 1 to the number of documents");
    }
    None
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    dot / (norm(a) * norm(b))
}

impl StandIn {
    /// Each document's cosine with the query, best first (ties by index).
    fn ranked(&self, query: &str, docs: &[&str]) -> Result<Vec<(usize, f32)>, String> {
        let q = self
            .model
            .embed(&[query])
            .map_err(|e| e.to_string())?
            .pop()
            .ok_or("no query vector")?;
        let (vectors, _) = self
            .cache
            .embed_all(&self.model, docs)
            .map_err(|e| e.to_string())?;
        let mut scored: Vec<(usize, f32)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i, cosine(&q, v)))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(scored)
    }

    fn rerank(&self, body: &Value) -> Result<Value, String> {
        if let Some(why) = refusal(body) {
            return Err(why.to_owned());
        }
        let query = body["query"].as_str().unwrap_or_default();
        let docs: Vec<&str> = body["documents"]
            .as_array()
            .map(|d| d.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let spent = Encoding::O200kBase.count(query)
            + docs
                .iter()
                .map(|d| Encoding::O200kBase.count(d))
                .sum::<usize>();
        self.tokens.fetch_add(spent as u64, Ordering::Relaxed);
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut results: Vec<(usize, f32)> = self
            .ranked(query, &docs)?
            .into_iter()
            .map(|(i, c)| (i, c.max(0.0)))
            .collect();
        if let Some(n) = body["top_n"].as_u64() {
            results.truncate(n as usize);
        }
        Ok(json!({
            "id": format!("standin-{}", self.requests.load(Ordering::Relaxed)),
            "results": results
                .iter()
                .map(|(i, s)| json!({"index": i, "relevance_score": s}))
                .collect::<Vec<_>>(),
            "meta": {"billed_units": {"search_units": 1}},
        }))
    }

    /// A chat completion as `ChatReranker` asks for one: the judge's
    /// picks as JSON, with OpenAI's usage.
    fn chat(&self, body: &Value) -> Result<Value, String> {
        if let Some(why) = chat_refusal(body) {
            return Err(why.to_owned());
        }
        let messages = body["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let prompt = messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let (request, docs) = read_prompt(prompt)
            .ok_or("the prompt is not ChatReranker's (Request: …, Tools: 1. …)")?;
        let scored = self.ranked(request, &docs)?;
        let best = scored.first().map_or(0.0, |s| s.1);
        let picks: Vec<usize> = if best < self.fits {
            Vec::new()
        } else {
            scored
                .iter()
                .take_while(|s| s.1 >= best - CLOSE)
                .take(3)
                .map(|s| s.0 + 1)
                .collect()
        };
        let content = json!({"tools": picks}).to_string();
        // OpenAI counts a few tokens of framing per message besides the
        // contents.
        let prompt_tokens = messages
            .iter()
            .map(|m| Encoding::O200kBase.count(m["content"].as_str().unwrap_or_default()) + 3)
            .sum::<usize>()
            + 3;
        let completion_tokens = Encoding::O200kBase.count(&content);
        self.chat_requests.fetch_add(1, Ordering::Relaxed);
        self.prompt_tokens
            .fetch_add(prompt_tokens as u64, Ordering::Relaxed);
        self.completion_tokens
            .fetch_add(completion_tokens as u64, Ordering::Relaxed);
        Ok(json!({
            "id": format!("chatcmpl-standin-{}", self.chat_requests.load(Ordering::Relaxed)),
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }))
    }

    fn handle(&self, request: &optimclaw_testkit::Request) -> Reply {
        match (request.method.as_str(), request.path.as_str()) {
            ("GET", "/stats") => Reply::json(
                200,
                &json!({
                    "requests": self.requests.load(Ordering::Relaxed),
                    "tokens": self.tokens.load(Ordering::Relaxed),
                    "chat_requests": self.chat_requests.load(Ordering::Relaxed),
                    "prompt_tokens": self.prompt_tokens.load(Ordering::Relaxed),
                    "completion_tokens": self.completion_tokens.load(Ordering::Relaxed),
                }),
            ),
            ("POST", path) => {
                // Each API answers in its own shape, and refuses in it.
                type Route = fn(&StandIn, &Value) -> Result<Value, String>;
                let (route, refused): (Route, fn(&str) -> Value) = if path
                    .ends_with("/chat/completions")
                {
                    (
                        StandIn::chat,
                        |why| json!({"error": {"message": why, "type": "invalid_request_error"}}),
                    )
                } else if path.ends_with("/rerank") {
                    (StandIn::rerank, |why| json!({"message": why}))
                } else {
                    return Reply::json(404, &json!({"message": "no such route"}));
                };
                let body = serde_json::from_slice::<Value>(&request.body)
                    .map_err(|_| "invalid JSON".to_owned());
                match body.and_then(|body| route(self, &body)) {
                    Ok(answer) => Reply::json(200, &answer),
                    Err(why) => Reply::json(400, &refused(&why)),
                }
            }
            _ => Reply::json(404, &json!({"message": "no such route"})),
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (model_dir, port_file) = (
        args.next()
            .expect("usage: rerank_standin MODEL_DIR PORT_FILE"),
        args.next()
            .expect("usage: rerank_standin MODEL_DIR PORT_FILE"),
    );
    let standin = Arc::new(StandIn {
        model: MiniLm::from_dir(&model_dir).expect("the model folder loads"),
        cache: EmbeddingCache::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/embed-cache"),
        ),
        requests: AtomicU64::new(0),
        tokens: AtomicU64::new(0),
        chat_requests: AtomicU64::new(0),
        prompt_tokens: AtomicU64::new(0),
        completion_tokens: AtomicU64::new(0),
        fits: std::env::var("STANDIN_FITS")
            .map_or(FITS, |v| v.parse().expect("STANDIN_FITS is a cosine")),
    });
    let endpoint = FakeEndpoint::start(move |request| standin.handle(request));
    std::fs::write(&port_file, endpoint.addr().port().to_string())
        .expect("the port file is written");
    // Serves until killed.
    loop {
        std::thread::park();
    }
}
