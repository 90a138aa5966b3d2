//! What whole conversations cost under prefix caching, per load strategy.
//!
//! A scripted conversation (8 user messages, 4 discoveries through
//! `tool_info`, `calculate` used three times, a core tool, a closing answer)
//! runs through the real agent loop against a stand-in model endpoint on
//! loopback, for each wire format (OpenAI chat completions, Anthropic
//! messages) and each strategy (eager, append, bridge, native). Every request
//! body is recorded and rendered in the provider's cache order (tools, then
//! system, then messages; Anthropic tools sent with `defer_loading` cost
//! nothing until a `tool_reference` expands them where it stands), then
//! priced under ideal prefix caching: the longest prefix shared with any
//! earlier request at 0.1, the rest at 1.0, in o200k tokens.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin cache`

use std::sync::{Arc, Mutex};

use optimclaw::agent::{Agent, AgentOptions, ModelConfig, WireFormat};
use optimclaw::tokens::Encoding;
use optimclaw::{LazyConfig, LoadStrategy, Registry, Session, ToolContext};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One user message: the tool it needs, what to search for, its arguments.
struct Task {
    message: &'static str,
    tool: Option<&'static str>,
    query: &'static str,
    args: Value,
}

/// The conversation: the 8 messages below, `rounds` times (later rounds
/// use tools found in the first, as long conversations do).
fn script_rounds(rounds: usize) -> Vec<Task> {
    let mut all = Vec::new();
    for round in 0..rounds {
        for mut task in script() {
            if round > 0 {
                task.message =
                    Box::leak(format!("{} (again, {})", task.message, round + 1).into_boxed_str());
            }
            all.push(task);
        }
    }
    all
}

fn script() -> Vec<Task> {
    let t = |message, tool, query, args| Task {
        message,
        tool,
        query,
        args,
    };
    vec![
        t(
            "What is 6 times 7?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "6 * 7"}),
        ),
        t(
            "Encode the word hello in base64.",
            Some("base64_encode"),
            "base64 encode text",
            json!({"text": "hello"}),
        ),
        t(
            "And 12 times 12?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "12 * 12"}),
        ),
        t(
            "How many words are in 'the quick brown fox'?",
            Some("word_count"),
            "count words in a text",
            json!({"text": "the quick brown fox"}),
        ),
        t(
            "What time is 2026-03-01T12:00:00Z in Tokyo?",
            Some("timezone_convert"),
            "convert time zone",
            json!({"datetime": "2026-03-01T12:00:00Z", "to": "Asia/Tokyo"}),
        ),
        t(
            "Echo the word done.",
            Some("echo"),
            "",
            json!({"text": "done"}),
        ),
        t(
            "What is 3 plus 4?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "3 + 4"}),
        ),
        t("Thanks, that is all.", None, "", json!({})),
    ]
}

// ------------------------------------------------------------ the stand-in

/// The model's next move for a request body.
fn decide(format: WireFormat, body: &Value, tasks: &[Task]) -> Value {
    let (user, callable, results, earlier) = match format {
        WireFormat::OpenAiChat => read_openai(body),
        WireFormat::AnthropicMessages => read_anthropic(body),
    };
    let task = tasks
        .iter()
        .find(|t| t.message == user)
        .expect("a scripted message");
    let Some(tool) = task.tool else {
        return say(format, "You are welcome.");
    };
    if results
        .iter()
        .any(|(name, _)| name == tool || name == "call_tool")
    {
        return say(format, "Done.");
    }
    if callable.iter().any(|n| n == tool) {
        return call(format, tool, task.args.clone());
    }
    // A model remembers what tool_info told it earlier in the conversation.
    let found = earlier.iter().any(|out| out.contains(tool));
    if found && callable.iter().any(|n| n == "call_tool") {
        return call(
            format,
            "call_tool",
            json!({"name": tool, "arguments": task.args}),
        );
    }
    call(
        format,
        "tool_info",
        json!({"query": task.query, "max_results": 5}),
    )
}

/// What the model reads: the last user text, the tools it can call now,
/// the tool results since that message, and every `tool_info` answer.
type Reading = (String, Vec<String>, Vec<(String, String)>, Vec<String>);

fn read_openai(body: &Value) -> Reading {
    let messages = body["messages"].as_array().unwrap();
    let last_user = messages.iter().rposition(|m| m["role"] == "user").unwrap();
    let user = messages[last_user]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let tools = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.pointer("/function/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    let mut names = std::collections::HashMap::new();
    for m in messages {
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            names.insert(
                c["id"].as_str().unwrap().to_owned(),
                c["function"]["name"].as_str().unwrap().to_owned(),
            );
        }
    }
    let outputs = |from: usize| -> Vec<(String, String)> {
        messages[from..]
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    names[m["tool_call_id"].as_str().unwrap()].clone(),
                    m["content"].to_string(),
                )
            })
            .collect()
    };
    let earlier = outputs(0)
        .into_iter()
        .filter(|(n, _)| n == "tool_info")
        .map(|(_, out)| out)
        .collect();
    (user, tools, outputs(last_user), earlier)
}

fn read_anthropic(body: &Value) -> Reading {
    let mut tools: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["defer_loading"] != true)
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let (mut user, mut results, mut names) =
        (String::new(), Vec::new(), std::collections::HashMap::new());
    let mut earlier = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        for block in m["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") => {
                    names.insert(
                        block["id"].as_str().unwrap().to_owned(),
                        block["name"].as_str().unwrap().to_owned(),
                    );
                }
                Some("text") if m["role"] == "user" => {
                    user = block["text"].as_str().unwrap().to_owned();
                    results.clear();
                }
                Some("tool_result") => {
                    for c in block["content"].as_array().into_iter().flatten() {
                        if c["type"] == "tool_reference" {
                            tools.push(c["tool_name"].as_str().unwrap().to_owned());
                        }
                    }
                    let name = names[block["tool_use_id"].as_str().unwrap()].clone();
                    if name == "tool_info" {
                        earlier.push(block["content"].to_string());
                    }
                    results.push((name, block["content"].to_string()));
                }
                _ => {}
            }
        }
    }
    (user, tools, results, earlier)
}

fn say(format: WireFormat, text: &str) -> Value {
    match format {
        WireFormat::OpenAiChat => {
            json!({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
        }
        WireFormat::AnthropicMessages => {
            json!({"id": "m", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        }
    }
}

fn call(format: WireFormat, name: &str, args: Value) -> Value {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match format {
        WireFormat::OpenAiChat => {
            json!({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("call_{id}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}]},
                "finish_reason": "tool_calls"}]})
        }
        WireFormat::AnthropicMessages => {
            json!({"id": "m", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": args}],
            "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}})
        }
    }
}

/// Serves the stand-in on loopback; records every body.
async fn stand_in(format: WireFormat, bodies: Arc<Mutex<Vec<Value>>>, rounds: usize) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let tasks = script_rounds(rounds);
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let body = loop {
                let mut chunk = [0u8; 65536];
                let n = stream.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break None;
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break serde_json::from_slice::<Value>(&buf[end + 4..end + 4 + len]).ok();
                    }
                }
            };
            let Some(body) = body else { continue };
            let reply = decide(format, &body, &tasks).to_string();
            bodies.lock().unwrap().push(body);
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        }
    });
    match format {
        WireFormat::OpenAiChat => format!("http://{addr}/v1"),
        WireFormat::AnthropicMessages => format!("http://{addr}"),
    }
}

// ------------------------------------------------------------ pricing

/// A request as the provider's cache sees it: tools, system, messages.
fn render(format: WireFormat, body: &Value) -> String {
    let mut out = String::new();
    let deferred: std::collections::HashMap<String, &Value> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["defer_loading"] == true)
        .filter_map(|t| Some((t["name"].as_str()?.to_owned(), t)))
        .collect();
    for tool in body["tools"].as_array().into_iter().flatten() {
        if tool["defer_loading"] != true {
            out.push_str(&tool.to_string());
        }
    }
    if format == WireFormat::AnthropicMessages {
        out.push_str(&body["system"].to_string());
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let mut m = m.clone();
        // A reference costs what it expands to, where it stands.
        for block in m["content"].as_array_mut().into_iter().flatten() {
            for c in block["content"].as_array_mut().into_iter().flatten() {
                if c["type"] == "tool_reference"
                    && let Some(def) = deferred.get(c["tool_name"].as_str().unwrap_or_default())
                {
                    *c = (*def).clone();
                }
            }
        }
        out.push_str(&m.to_string());
    }
    out
}

struct Priced {
    requests: usize,
    uncached: usize,
    cost: f64,
    extends: usize,
}

fn price(renders: &[String]) -> Priced {
    let enc = Encoding::O200kBase;
    let (mut uncached, mut cost, mut extends) = (0, 0.0, 0);
    for (i, text) in renders.iter().enumerate() {
        let total = enc.count(text);
        let shared = renders[..i]
            .iter()
            .map(|prev| common_prefix(prev, text))
            .max()
            .unwrap_or(0);
        let cached = enc.count(&text[..shared]);
        uncached += total;
        cost += 0.1 * cached as f64 + (total - cached) as f64;
        if i > 0 && text.starts_with(renders[i - 1].as_str()) {
            extends += 1;
        }
    }
    Priced {
        requests: renders.len(),
        uncached,
        cost,
        extends,
    }
}

/// Bytes in common at the start, cut back to a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

// ------------------------------------------------------------ the run

async fn conversation(
    format: WireFormat,
    lazy: LazyConfig,
    registry: &Registry,
    rounds: usize,
) -> (Vec<Value>, usize) {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let base = stand_in(format, Arc::clone(&bodies), rounds).await;
    let model = ModelConfig::from_env(format, Some(base), Some("stand-in".into())).expect("config");
    let session = Session::with_lazy(registry.clone(), lazy);
    let mut agent = Agent::new(session, model, AgentOptions::default())
        .expect("agent")
        .context(ToolContext::new());
    let mut done = 0;
    for task in script_rounds(rounds) {
        if agent.send(task.message).await.is_ok() {
            done += 1;
        }
    }
    let bodies = bodies.lock().unwrap().clone();
    (bodies, done)
}

/// The registry: the assistant's catalog, optionally with the 525 tools of
/// 70 real MCP servers (`mcp-live-526`, listed, not callable here).
fn registry(with_mcp: bool, full_schemas: usize) -> Registry {
    let mut builder = Registry::builder().lazy(LazyConfig {
        full_schemas,
        ..LazyConfig::lazy()
    });
    if with_mcp {
        let path = optimclaw_bench::data_dir().join("mcp-live-526/tools.json");
        let tools = optimclaw::manifest::load_manifest(
            &path,
            &optimclaw::manifest::ManifestOptions::default(),
        )
        .expect("the corpus loads");
        builder = builder.tools(tools);
    }
    builder.build().expect("the catalog is valid")
}

#[tokio::main]
async fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let full_schemas: usize = std::env::var("FULL_SCHEMAS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!("`tool_info` returns full schemas for its top {full_schemas} keyword hits.\n");
    println!(
        "| tools | messages | wire format | strategy | requests | uncached tokens | effective cost | vs eager with cache | requests extending the previous | tasks done |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (with_mcp, label) in [(false, "catalog (53)"), (true, "catalog + 525 MCP")] {
        let registry = registry(with_mcp, full_schemas);
        for rounds in [1, 3] {
            for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
                let mut eager_cost = None;
                let runs: Vec<(&str, LazyConfig)> = vec![
                    ("eager", LazyConfig::eager()),
                    (
                        "append",
                        LazyConfig::lazy().with_strategy(LoadStrategy::Append),
                    ),
                    (
                        "bridge",
                        LazyConfig::lazy().with_strategy(LoadStrategy::Bridge),
                    ),
                    (
                        "native",
                        LazyConfig::lazy().with_strategy(LoadStrategy::Native),
                    ),
                ];
                for (strategy, lazy) in runs {
                    if strategy == "native" && format == WireFormat::OpenAiChat {
                        continue; // chat completions has no deferral: native is the bridge
                    }
                    let lazy = LazyConfig {
                        full_schemas,
                        ..lazy
                    };
                    let (bodies, done) = conversation(format, lazy, &registry, rounds).await;
                    let renders: Vec<String> = bodies.iter().map(|b| render(format, b)).collect();
                    let p = price(&renders);
                    let base = *eager_cost.get_or_insert(p.cost);
                    println!(
                        "| {label} | {} | {} | {strategy} | {} | {} | {:.0} | {:.2}× | {}/{} | {done}/{} |",
                        8 * rounds,
                        format.name(),
                        p.requests,
                        p.uncached,
                        p.cost,
                        p.cost / base,
                        p.extends,
                        p.requests.saturating_sub(1),
                        8 * rounds,
                    );
                }
            }
        }
    }
}
