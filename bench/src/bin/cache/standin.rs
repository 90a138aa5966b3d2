//! The stand-in model the conversations run against: it reads each request
//! body as a model would and answers by a script. A searching model calls
//! `tool_info` when it lacks the tool a message needs; a model that never
//! searches (as some open models behave) uses only what it can see: the
//! tools in the request and the tools attached to the message.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use optimclaw_agent::WireFormat;
use serde_json::{Value, json};

/// One user message: the tool it needs, what a model would search for, its
/// arguments.
#[derive(Clone)]
pub struct Task {
    pub message: String,
    pub tool: Option<&'static str>,
    pub query: &'static str,
    pub args: Value,
    /// A second tool the same message needs (tool, query, arguments):
    /// once both are in sight the model calls them in one reply.
    pub also: Option<(&'static str, &'static str, Value)>,
}

impl Task {
    /// Every tool the message needs: (tool, query, arguments).
    pub fn needs(&self) -> Vec<(&'static str, &'static str, Value)> {
        self.tool
            .map(|t| (t, self.query, self.args.clone()))
            .into_iter()
            .chain(self.also.clone())
            .collect()
    }
}

/// How the stand-in behaves when the tool it needs is not in sight.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Calls `tool_info`.
    Searches,
    /// Says it cannot help.
    NeverSearches,
    /// Calls `tool_info` even when the tool came attached (what an
    /// attachment costs when it goes unused).
    IgnoresAttached,
}

/// What the model reads in a request: the last user text, text attached
/// to it, the tools it can call now, the tool results since that message,
/// and every `tool_info` answer of the conversation.
pub struct Reading {
    pub user: String,
    pub attached: String,
    pub callable: Vec<String>,
    pub results: Vec<(String, String)>,
    pub earlier: Vec<String>,
}

/// The model's next move for a request body.
fn decide(format: WireFormat, body: &Value, tasks: &[Task], behaviour: Behaviour) -> Value {
    let r = match format {
        WireFormat::OpenAiChat => read_openai(body),
        WireFormat::AnthropicMessages => read_anthropic(body),
    };
    let Some(task) = tasks.iter().find(|t| t.message == r.user) else {
        return say(format, "(not a scripted message)");
    };
    let needs = task.needs();
    if needs.is_empty() {
        return say(format, "You are welcome.");
    }
    let ran = r.results.iter().filter(|(n, _)| n != "tool_info").count();
    if ran >= needs.len() {
        return say(format, "Done.");
    }
    // How each needed tool can be called now, if it can.
    let bridge = r.callable.iter().any(|n| n == "call_tool");
    let how = |tool: &str, args: &Value| -> Option<(String, Value)> {
        if r.callable.iter().any(|n| n == tool) {
            return Some((tool.to_owned(), args.clone()));
        }
        let named = format!("\"name\":\"{tool}\"");
        let seen = if behaviour == Behaviour::IgnoresAttached {
            r.earlier
                .iter()
                .any(|out| out.contains(tool) && !out.starts_with("[Tools attached"))
        } else {
            r.attached.contains(&named) || r.earlier.iter().any(|out| out.contains(tool))
        };
        (seen && bridge).then(|| {
            (
                "call_tool".to_owned(),
                json!({"name": tool, "arguments": args}),
            )
        })
    };
    let ready: Vec<(String, Value)> = needs
        .iter()
        .filter_map(|(tool, _, args)| how(tool, args))
        .collect();
    if ready.len() == needs.len() {
        // Every tool in sight: all calls in one reply (parallel calls).
        return calls(format, &ready);
    }
    let missing = needs
        .iter()
        .find(|(tool, _, args)| how(tool, args).is_none())
        .expect("one is not in sight");
    match behaviour {
        Behaviour::NeverSearches => say(format, "I have no tool for that."),
        Behaviour::Searches | Behaviour::IgnoresAttached => call(
            format,
            "tool_info",
            json!({"query": missing.1, "max_results": 5}),
        ),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .first()
            .and_then(|p| p["text"].as_str())
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

pub fn read_openai(body: &Value) -> Reading {
    let messages = body["messages"].as_array().unwrap();
    let last_user = messages.iter().rposition(|m| m["role"] == "user").unwrap();
    let content = &messages[last_user]["content"];
    let attached = content
        .as_array()
        .map(|parts| {
            parts[1..]
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let callable = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            t.pointer("/function/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    let mut names = HashMap::new();
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
    // A model remembers what tool_info told it, and what came attached.
    let mut earlier: Vec<String> = outputs(0)
        .into_iter()
        .filter(|(n, _)| n == "tool_info")
        .map(|(_, out)| out)
        .collect();
    for m in messages.iter().filter(|m| m["role"] == "user") {
        for part in m["content"].as_array().into_iter().flatten().skip(1) {
            earlier.push(part["text"].as_str().unwrap_or_default().to_owned());
        }
    }
    Reading {
        user: text_of(content),
        attached,
        callable,
        results: outputs(last_user),
        earlier,
    }
}

pub fn read_anthropic(body: &Value) -> Reading {
    let mut callable: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["defer_loading"] != true)
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let mut r = Reading {
        user: String::new(),
        attached: String::new(),
        callable: Vec::new(),
        results: Vec::new(),
        earlier: Vec::new(),
    };
    let mut names = HashMap::new();
    for m in body["messages"].as_array().unwrap() {
        let mut first_text = true;
        for block in m["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") => {
                    names.insert(
                        block["id"].as_str().unwrap().to_owned(),
                        block["name"].as_str().unwrap().to_owned(),
                    );
                }
                Some("text") if m["role"] == "user" => {
                    let text = block["text"].as_str().unwrap().to_owned();
                    if first_text {
                        r.user = text;
                        r.attached.clear();
                        r.results.clear();
                        first_text = false;
                    } else {
                        r.attached.push_str(&text);
                        r.earlier.push(text);
                    }
                }
                Some("tool_result") => {
                    for c in block["content"].as_array().into_iter().flatten() {
                        if c["type"] == "tool_reference" {
                            callable.push(c["tool_name"].as_str().unwrap().to_owned());
                        }
                    }
                    let name = names[block["tool_use_id"].as_str().unwrap()].clone();
                    if name == "tool_info" {
                        r.earlier.push(block["content"].to_string());
                    }
                    r.results.push((name, block["content"].to_string()));
                }
                _ => {}
            }
        }
    }
    r.callable = callable;
    r
}

pub fn say(format: WireFormat, text: &str) -> Value {
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
    calls(format, &[(name.to_owned(), args)])
}

/// A reply calling every (tool, arguments) of `list` at once.
fn calls(format: WireFormat, list: &[(String, Value)]) -> Value {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = || N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match format {
        WireFormat::OpenAiChat => {
            let calls: Vec<Value> = list
                .iter()
                .map(|(name, args)| {
                    json!({"id": format!("call_{}", id()), "type": "function",
                    "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            json!({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                "finish_reason": "tool_calls"}]})
        }
        WireFormat::AnthropicMessages => {
            let blocks: Vec<Value> = list
                .iter()
                .map(|(name, args)| {
                    json!({"type": "tool_use", "id": format!("toolu_{}", id()), "name": name, "input": args})
                })
                .collect();
            json!({"id": "m", "type": "message", "role": "assistant", "model": "m",
            "content": blocks,
            "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}})
        }
    }
}

/// Serves the stand-in on loopback; records every body.
pub async fn serve(
    format: WireFormat,
    bodies: Arc<Mutex<Vec<Value>>>,
    tasks: Vec<Task>,
    behaviour: Behaviour,
) -> String {
    serve_with(
        format,
        bodies,
        Arc::new(move |body: &Value| decide(format, body, &tasks, behaviour)),
    )
    .await
}

/// The model's next move for a request body.
pub type Decide = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// Serves a stand-in that answers each body with `decide`; records every
/// body.
pub async fn serve_with(
    format: WireFormat,
    bodies: Arc<Mutex<Vec<Value>>>,
    decide: Decide,
) -> String {
    let endpoint = optimclaw_testkit::FakeEndpoint::start(move |request| {
        let body = request.json();
        let reply = decide(&body);
        bodies.lock().unwrap().push(body);
        optimclaw_testkit::Reply::json(200, &reply)
    });
    let addr = endpoint.addr();
    match format {
        WireFormat::OpenAiChat => format!("http://{addr}/v1"),
        WireFormat::AnthropicMessages => format!("http://{addr}"),
    }
}
