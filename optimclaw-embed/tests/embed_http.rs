//! `HttpEmbedder` (feature `embed-http`) against a local stand-in of an
//! OpenAI-compatible `/v1/embeddings` endpoint: request shape, key, order,
//! batching, and errors that say what went wrong.

use std::sync::{Arc, Mutex};

use optimclaw::embed::Embedder;
use optimclaw_embed::HttpEmbedder;
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

/// An answer: its status and its body made from the request's body.
type Answer = (u16, fn(&Value) -> Value);
/// Each request's authorization header and body.
type Seen = Arc<Mutex<Vec<(Option<String>, Value)>>>;

/// Serves `answers` in turn; records what each request carried.
fn serve(answers: Vec<Answer>) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    let mut answers = answers.into_iter();
    let endpoint = FakeEndpoint::start(move |request| {
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("POST", "/v1/embeddings")
        );
        let body = request.json();
        let (status, answer) = answers.next().expect("no more requests than answers");
        let reply = answer(&body);
        let auth = request.header("authorization").map(str::to_owned);
        log.lock().unwrap().push((auth, body));
        Reply::json(status, &reply)
    });
    (endpoint.url("/v1"), seen)
}

/// One vector per input, `[len, index]`, listed in reverse order with
/// their indexes (clients must sort).
fn vectors(body: &Value) -> Value {
    let inputs = body["input"].as_array().unwrap();
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": [t.as_str().unwrap().len() as f32, i as f32]}))
        .collect();
    json!({"object": "list", "data": data, "model": body["model"]})
}

#[test]
fn vectors_come_back_in_input_order_with_the_key_sent() {
    let (base, seen) = serve(vec![(200, vectors)]);
    let embedder = HttpEmbedder::new(&base, "nomic-embed-text").with_api_key("sk-embed");
    let v = embedder.embed(&["a", "bbb"]).unwrap();
    assert_eq!(v, vec![vec![1.0, 0.0], vec![3.0, 1.0]]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0.as_deref(), Some("Bearer sk-embed"));
    assert_eq!(
        seen[0].1,
        json!({"model": "nomic-embed-text", "input": ["a", "bbb"]})
    );
    assert!(!format!("{embedder:?}").contains("sk-embed"));
}

#[test]
fn many_texts_go_in_batches() {
    let (base, seen) = serve(vec![(200, vectors), (200, vectors)]);
    let texts: Vec<String> = (0..200).map(|i| format!("tool {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let v = HttpEmbedder::new(&base, "m").embed(&refs).unwrap();
    assert_eq!(v.len(), 200);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].1["input"].as_array().unwrap().len(), 128);
}

#[test]
fn failures_say_what_went_wrong() {
    fn error(_: &Value) -> Value {
        json!({"error": {"message": "model not found"}})
    }
    fn short(_: &Value) -> Value {
        json!({"data": [{"embedding": [1.0]}]})
    }
    fn garbage(_: &Value) -> Value {
        json!({"vectors": []})
    }
    let (base, _) = serve(vec![(404, error), (200, short), (200, garbage)]);
    let embedder = HttpEmbedder::new(&base, "m");
    let e = embedder.embed(&["a"]).unwrap_err().to_string();
    assert!(
        e.contains("answered 404") && e.contains("model not found"),
        "{e}"
    );
    let e = embedder.embed(&["a", "b"]).unwrap_err().to_string();
    assert!(e.contains("1 vectors for 2 texts"), "{e}");
    let e = embedder.embed(&["a"]).unwrap_err().to_string();
    assert!(e.contains("is not {\"data\""), "{e}");
    let e = HttpEmbedder::new("http://127.0.0.1:9/v1", "m")
        .embed(&["a"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("embeddings request to http://127.0.0.1:9/v1/embeddings failed"),
        "{e}"
    );
}

/// Inside async code too (a registry built in `async fn main`): the
/// requests run on the client's own thread, so blocking here is safe.
#[tokio::test]
async fn it_works_inside_a_runtime() {
    let (base, _) = serve(vec![(200, vectors)]);
    let v = HttpEmbedder::new(&base, "m").embed(&["abc"]).unwrap();
    assert_eq!(v, vec![vec![3.0, 0.0]]);
}
