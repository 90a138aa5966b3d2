//! `HttpReranker` and `ChatReranker` (feature `rerank-http`) against local
//! stand-ins that answer as the real endpoints do (Cohere/Jina `results`,
//! Voyage `data`, text-embeddings-inference's bare list; OpenAI chat
//! completions), and through `tool_info`: reordering, "none fits", and a
//! failing endpoint that leaves the first stage's answer with a note.

use std::sync::{Arc, Mutex};

use optimclaw::rerank::{Candidate, RerankConfig, Reranker};
use optimclaw::{DynamicTool, Registry, ToolKind};
use optimclaw_embed::rerank::{ChatReranker, HttpReranker};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

/// What each request carried: path, authorization, body.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Value)>>>;

/// What a real endpoint would answer 400 for: Cohere, Jina and Voyage need a
/// model, a non-empty query and 1 to 1,000 documents (strings), with
/// `top_n` at most their number; OpenAI chat completions needs a model and
/// messages with a known role and content, temperature within 0..=2.
fn refusal(path: &str, body: &Value) -> Option<String> {
    if body["model"].as_str().is_none_or(str::is_empty) {
        return Some("model is required".into());
    }
    if path.ends_with("/rerank") {
        if body["query"].as_str().is_none_or(str::is_empty) {
            return Some("query is required".into());
        }
        let Some(docs) = body["documents"].as_array() else {
            return Some("documents is required".into());
        };
        if docs.is_empty() || docs.len() > 1_000 || !docs.iter().all(Value::is_string) {
            return Some("documents must hold 1 to 1000 strings".into());
        }
        if body["top_n"]
            .as_u64()
            .is_some_and(|n| n as usize > docs.len())
        {
            return Some("top_n is larger than the number of documents".into());
        }
        return None;
    }
    if path.ends_with("/chat/completions") {
        let Some(messages) = body["messages"].as_array().filter(|m| !m.is_empty()) else {
            return Some("messages must be a non-empty array".into());
        };
        let roles = ["system", "developer", "user", "assistant"];
        if !messages.iter().all(|m| {
            m["role"].as_str().is_some_and(|r| roles.contains(&r)) && m["content"].is_string()
        }) {
            return Some("each message needs a known role and string content".into());
        }
        if body["temperature"]
            .as_f64()
            .is_some_and(|t| !(0.0..=2.0).contains(&t))
        {
            return Some("temperature must be within 0 and 2".into());
        }
        return None;
    }
    Some(format!("no route {path}"))
}

/// Makes an answer's body from the request's.
type Body = Box<dyn Fn(&Value) -> Value + Send>;

/// Answers each request in turn with `(status, body made from the request)`.
fn serve(answers: Vec<(u16, Body)>) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    let mut answers = answers.into_iter();
    let endpoint = FakeEndpoint::start(move |request| {
        let (status, answer) = answers.next().expect("no more requests than answers");
        let body = request.json();
        // Refused as the real endpoints refuse a malformed body.
        let reply = match refusal(&request.path, &body) {
            Some(why) => Reply::json(400, &json!({"message": why})),
            None => Reply::json(status, &answer(&body)),
        };
        let auth = request.header("authorization").map(str::to_owned);
        log.lock().unwrap().push((request.path.clone(), auth, body));
        reply
    });
    (endpoint.url(""), seen)
}

/// Scores each document by whether it mentions "weather", as a reranker
/// model would put the right tool first.
fn scores(body: &Value) -> Vec<Value> {
    body["documents"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let s = if d.as_str().unwrap().contains("weather") {
                0.93
            } else {
                0.02
            };
            json!({"index": i, "relevance_score": s})
        })
        .collect()
}

fn candidates() -> Vec<Candidate<'static>> {
    vec![
        Candidate {
            name: "stock_price",
            description: "Latest price of a stock.",
        },
        Candidate {
            name: "weather_now",
            description: "Current weather in a city.",
        },
    ]
}

#[test]
fn http_reranker_reads_every_common_answer_shape() {
    let cohere = |b: &Value| json!({"id": "x", "results": scores(b), "meta": {}});
    let voyage = |b: &Value| json!({"object": "list", "data": scores(b), "model": "m"});
    let tei = |b: &Value| {
        let list: Vec<Value> = scores(b)
            .into_iter()
            .map(|s| json!({"index": s["index"], "score": s["relevance_score"]}))
            .collect();
        json!(list)
    };
    let (base, seen) = serve(vec![
        (200, Box::new(cohere)),
        (200, Box::new(voyage)),
        (200, Box::new(tei)),
    ]);
    let reranker = HttpReranker::new(format!("{base}/v1/rerank"), "rerank-m").with_api_key("k1");
    for _ in 0..3 {
        let out = reranker.rerank("weather in Oslo", &candidates()).unwrap();
        assert_eq!(out.order, [1, 0]);
        assert_eq!(out.scores.len(), 2);
    }
    let seen = seen.lock().unwrap();
    let (path, auth, body) = &seen[0];
    assert_eq!(path, "/v1/rerank");
    assert_eq!(auth.as_deref(), Some("Bearer k1"));
    assert_eq!(body["model"], "rerank-m");
    assert_eq!(body["query"], "weather in Oslo");
    assert_eq!(body["top_n"], 2);
    assert!(
        body["documents"][1]
            .as_str()
            .unwrap()
            .starts_with("weather_now: ")
    );
    assert_eq!(body["texts"], body["documents"]);
}

#[test]
fn http_reranker_errors_name_the_endpoint_and_the_problem() {
    let (base, _) = serve(vec![
        (
            401,
            Box::new(|_: &Value| json!({"message": "invalid api token"})),
        ),
        (200, Box::new(|_: &Value| json!({"unexpected": true}))),
    ]);
    let reranker = HttpReranker::new(format!("{base}/rerank"), "m");
    let err = reranker.rerank("q", &candidates()).unwrap_err().to_string();
    assert!(
        err.contains("401") && err.contains("invalid api token"),
        "{err}"
    );
    let err = reranker.rerank("q", &candidates()).unwrap_err().to_string();
    assert!(err.contains("relevance_score"), "{err}");
    // Nothing listening: a clear error, not a hang.
    let gone = HttpReranker::new("http://127.0.0.1:9/rerank", "m");
    let err = gone.rerank("q", &candidates()).unwrap_err().to_string();
    assert!(err.contains("127.0.0.1:9"), "{err}");
}

fn chat_answer(content: &'static str) -> Body {
    Box::new(move |body: &Value| {
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128},
        })
    })
}

#[test]
fn chat_reranker_picks_or_says_none() {
    let (base, seen) = serve(vec![
        (200, chat_answer(r#"{"tools": [2]}"#)),
        (200, chat_answer(r#"{"tools": []}"#)),
    ]);
    let reranker = ChatReranker::new(&format!("{base}/v1"), "small-model").with_api_key("k2");
    let out = reranker.rerank("weather in Oslo", &candidates()).unwrap();
    assert_eq!(out.fits, Some(vec![1]));
    assert_eq!(out.tokens, Some(128));
    let out = reranker.rerank("tell me a joke", &candidates()).unwrap();
    assert_eq!(out.fits, Some(vec![]));
    let seen = seen.lock().unwrap();
    let (path, auth, body) = &seen[0];
    assert_eq!(path, "/v1/chat/completions");
    assert_eq!(auth.as_deref(), Some("Bearer k2"));
    assert_eq!(body["temperature"], 0);
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("1. stock_price") && user.contains("2. weather_now"),
        "{user}"
    );
}

fn catalog(reranker: Arc<dyn Reranker>) -> Registry {
    let tool = |name: &str, description: &str| {
        DynamicTool::new(name, description, json!({"type": "object"})).kind(ToolKind::Deferred)
    };
    Registry::builder()
        .without_linked()
        .tools([
            tool("stock_price", "Latest price of a stock, and its forecast."),
            tool("weather_now", "Current weather in a city."),
            tool("sales_report", "Monthly sales report with a forecast."),
        ])
        .reranker(RerankConfig::new(reranker))
        .build()
        .unwrap()
}

#[test]
fn tool_info_goes_through_the_reranker() {
    let (base, _) = serve(vec![
        (200, chat_answer(r#"{"tools": []}"#)),
        (500, chat_answer("overloaded")),
    ]);
    let registry = catalog(Arc::new(ChatReranker::new(&format!("{base}/v1"), "m")));
    // The model judged that nothing fits: no match, candidates still listed.
    let answer = registry.tool_info("stock forecast", 3).unwrap();
    assert!(answer.no_match);
    assert!(!answer.tools.is_empty());
    // The endpoint fails: the first stage answers, and says so.
    let answer = registry.tool_info("stock forecast", 3).unwrap();
    assert_eq!(answer.tools[0].name, "stock_price");
    let message = answer.message.unwrap_or_default();
    assert!(message.contains("reranking unavailable"), "{message}");
}
