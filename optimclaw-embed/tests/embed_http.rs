//! `HttpEmbedder` (feature `embed-http`) against a local stand-in of an
//! OpenAI-compatible `/v1/embeddings` endpoint: request shape, key, order,
//! batching, and errors that say what went wrong.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use optimclaw::embed::Embedder;
use optimclaw_embed::HttpEmbedder;
use serde_json::{Value, json};

/// An answer: its status and its body made from the request's body.
type Answer = (u16, fn(&Value) -> Value);
/// Each request's authorization header and body.
type Seen = Arc<Mutex<Vec<(Option<String>, Value)>>>;

/// Serves `answers` in turn; records what each request carried.
fn serve(answers: Vec<Answer>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for (status, answer) in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert!(line.starts_with("POST /v1/embeddings "), "{line}");
            let (mut length, mut auth) = (0usize, None);
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                let (name, value) = header.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "authorization" => auth = Some(value.trim().to_owned()),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            let reply = answer(&body).to_string();
            log.lock().unwrap().push((auth, body));
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .unwrap();
        }
    });
    (base, seen)
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
