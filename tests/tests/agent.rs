//! The model loop against a local server on 127.0.0.1 that speaks each wire
//! format and replays scripted model turns. Every request body the loop
//! sends, and every reply it was given, is written to
//! `target/agent-bodies/` for the providers' SDKs to validate
//! (`tests/sdk/validate_agent_bodies.py`, run by `.ci/run`).

mod support;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use optimclaw::{DynamicTool, LazyConfig, LoadStrategy, Registry, Session, ToolError};
use optimclaw_agent::{
    Agent, AgentError, AgentEvent, AgentOptions, ApiKey, ModelConfig, Turn, WireFormat,
};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

const KEY: &str = "sk-test-0123456789abcdef";

/// Bytes standing for a PNG image.
const PIXEL: &[u8] = b"\x89PNG\r\n\x1a\n-a-small-image";

/// One canned HTTP answer.
struct Canned {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
}

fn ok(body: Value) -> Canned {
    Canned {
        status: 200,
        body: body.to_string(),
        headers: Vec::new(),
    }
}

fn status(status: u16, body: &str) -> Canned {
    Canned {
        status,
        body: body.to_owned(),
        headers: Vec::new(),
    }
}

/// A request the server saw.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                t.pointer("/function/name")
                    .or_else(|| t.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect()
    }
}

struct Replay {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    served: Arc<Mutex<Vec<(u16, String)>>>,
}

/// Serves `script` in order, one answer per request.
fn replay(script: Vec<Canned>) -> Replay {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let served = Arc::new(Mutex::new(Vec::new()));
    let (seen2, served2) = (Arc::clone(&seen), Arc::clone(&served));
    let mut script: VecDeque<Canned> = script.into();
    let endpoint = FakeEndpoint::start(move |request| {
        seen2.lock().unwrap().push(Seen {
            path: request.path.clone(),
            headers: request.headers.clone(),
            body: request.json(),
        });
        let canned = script
            .pop_front()
            .unwrap_or_else(|| status(500, r#"{"error":{"message":"script exhausted"}}"#));
        served2
            .lock()
            .unwrap()
            .push((canned.status, canned.body.clone()));
        let mut reply =
            Reply::text(canned.status, canned.body).with_header("content-type", "application/json");
        for (k, v) in &canned.headers {
            reply = reply.with_header(k, v);
        }
        reply
    });
    Replay {
        base: endpoint.url(""),
        seen,
        served,
    }
}

impl Replay {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Writes requests and successful replies for the SDK check.
    fn dump(&self, format: WireFormat, scenario: &str) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../target/agent-bodies")
            .join(format.name());
        std::fs::create_dir_all(&dir).unwrap();
        for (i, seen) in self.seen().iter().enumerate() {
            std::fs::write(
                dir.join(format!("{scenario}-{i}-request.json")),
                seen.body.to_string(),
            )
            .unwrap();
        }
        for (i, (status, body)) in self.served.lock().unwrap().iter().enumerate() {
            if *status == 200 && serde_json::from_str::<Value>(body).is_ok() {
                std::fs::write(dir.join(format!("{scenario}-{i}-response.json")), body).unwrap();
            }
        }
    }
}

// ---- scripted model turns --------------------------------------------------

fn openai_reply(message: Value, finish: &str) -> Canned {
    ok(json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_764_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
        "usage": {
            "prompt_tokens": 812, "completion_tokens": 31, "total_tokens": 843,
            "prompt_tokens_details": {"cached_tokens": 512}
        },
    }))
}

fn openai_text(text: &str) -> Canned {
    openai_reply(
        json!({"role": "assistant", "content": text, "refusal": null}),
        "stop",
    )
}

fn openai_calls(calls: &[(&str, &str, &str)]) -> Canned {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
        })
        .collect();
    openai_reply(
        json!({"role": "assistant", "content": null, "refusal": null, "tool_calls": calls}),
        "tool_calls",
    )
}

fn anthropic_reply(content: Value, stop: &str) -> Canned {
    ok(json!({
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {"input_tokens": 905, "output_tokens": 44, "cache_read_input_tokens": 600,
                  "cache_creation_input_tokens": 0},
    }))
}

fn anthropic_text(text: &str) -> Canned {
    anthropic_reply(json!([{"type": "text", "text": text}]), "end_turn")
}

fn anthropic_calls(calls: &[(&str, &str, Value)]) -> Canned {
    let blocks: Vec<Value> = calls
        .iter()
        .map(
            |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        )
        .collect();
    anthropic_reply(Value::Array(blocks), "tool_use")
}

// ---- the tools -------------------------------------------------------------

fn session() -> Session {
    let weather = DynamicTool::new(
        "weather_forecast",
        "Forecast the weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
    .keywords(["weather", "forecast", "rain"])
    .handler(|_ctx, args: Value| async move {
        Ok(json!({"city": args["city"], "forecast": "sunny", "high_c": 21}))
    });
    // Two calls of `rendezvous` succeed only when they run at the same time.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let rendezvous = DynamicTool::new(
        "rendezvous",
        "Meet another call of this tool.",
        json!({"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]}),
    )
    .handler(move |_ctx, args: Value| {
        let barrier = Arc::clone(&barrier);
        async move {
            tokio::time::timeout(Duration::from_secs(10), barrier.wait())
                .await
                .map_err(|_| ToolError::new("nobody came: the calls did not run in parallel"))?;
            Ok(json!({"met": args["who"]}))
        }
    });
    let sleeper = DynamicTool::new(
        "sleeper",
        "Sleep for an hour.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_ctx, _args: Value| async move {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(json!("woke"))
    });
    // A tool whose result carries an image.
    let snapshot = DynamicTool::new(
        "snapshot",
        "Take a snapshot of the screen.",
        json!({"type": "object", "properties": {}}),
    )
    .kind(optimclaw::ToolKind::Core)
    .handler(|ctx, _args: Value| async move {
        Ok(optimclaw::ToolOutput::text("the screen")
            .with_content(optimclaw::Content::image(PIXEL, "image/png"))
            .with_content(optimclaw::Content::audio([0u8; 4], "audio/wav"))
            .deliver(&ctx))
    });
    // A catalog worth deferring: lazy loading pays off with many tools.
    let fillers = (0..30).map(|i| {
        DynamicTool::new(
            format!("report_{i:02}"),
            format!("Build quarterly report number {i} with charts, tables and a summary."),
            json!({"type": "object", "properties": {
                "quarter": {"type": "string", "description": "Quarter such as 2026-Q3"},
                "format": {"type": "string", "enum": ["pdf", "html", "markdown"]},
            }, "required": ["quarter"]}),
        )
        .handler(|_ctx, args: Value| async move { Ok(json!({"built": args})) })
    });
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy().with_strategy(LoadStrategy::Append))
        .tools([weather, rendezvous, sleeper, snapshot])
        .tools(fillers)
        .build()
        .unwrap();
    Session::new(registry)
}

/// The loop's mechanics on the append strategy without preload (the
/// defaults, bridge with preload, have their own tests).
/// An Anthropic body's system text: a string, or (with caching asked
/// for) the text of its one block.
fn system_text(body: &Value) -> String {
    match &body["system"] {
        Value::String(s) => s.clone(),
        other => other[0]["text"].as_str().unwrap_or_default().to_owned(),
    }
}

fn options() -> AgentOptions {
    AgentOptions::default()
        .with_preload(None)
        .with_system("You are a test assistant.")
        .with_retries(3, Duration::from_millis(10), Duration::from_secs(2))
        .with_call_timeout(Duration::from_secs(20))
}

fn agent(replay: &Replay, format: WireFormat, options: AgentOptions) -> Agent {
    let base = match format {
        WireFormat::OpenAiChat => format!("{}/v1", replay.base),
        WireFormat::AnthropicMessages => replay.base.clone(),
    };
    let model = ModelConfig::new(format, base, "test-model").with_api_key(ApiKey::new(KEY));
    // These stand-ins play the providers' APIs, not a small local model:
    // replies are read whole, as there.
    let options = options.with_first_call(optimclaw_agent::FirstCall::Never);
    Agent::new(session(), model, options).unwrap()
}

fn tool_messages(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

// ---- OpenAI-compatible chat completions ------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn openai_tool_info_round_trip_loads_the_tool_and_records_usage() {
    let replay = replay(vec![
        openai_calls(&[(
            "call_1",
            "tool_info",
            r#"{"query": "weather forecast for a city", "max_results": 3}"#,
        )]),
        openai_calls(&[("call_2", "weather_forecast", r#"{"city": "Oslo"}"#)]),
        openai_text("Sunny in Oslo, 21 °C."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let mut lines = Vec::new();
    let reply = agent
        .send_with("Weather in Oslo?", |e| lines.push(format!("{e:?}")))
        .await
        .unwrap();
    assert_eq!(reply.text, "Sunny in Oslo, 21 °C.");
    assert_eq!((reply.requests, reply.tool_calls), (3, 2));
    let seen = replay.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(
        seen[0].header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
    // First request: core tools and tool_info, the deferred ones only named.
    let first = seen[0].tool_names();
    assert!(first.contains(&"tool_info".to_owned()), "{first:?}");
    assert!(!first.contains(&"weather_forecast".to_owned()), "{first:?}");
    let system = seen[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are a test assistant."), "{system}");
    assert!(
        system.contains("weather_forecast"),
        "the note names it: {system}"
    );
    // After tool_info, the loaded tool's schema goes out; the note does not change.
    let second = seen[1].tool_names();
    assert!(
        second.contains(&"weather_forecast".to_owned()),
        "{second:?}"
    );
    assert_eq!(seen[1].body["messages"][0], seen[0].body["messages"][0]);
    let info = &tool_messages(&seen[1].body)[0];
    assert_eq!(info["tool_call_id"], "call_1");
    assert!(
        info["content"]
            .as_str()
            .unwrap()
            .contains("weather_forecast")
    );
    let forecast = &tool_messages(&seen[2].body)[1];
    assert_eq!(forecast["tool_call_id"], "call_2");
    let result: Value = serde_json::from_str(forecast["content"].as_str().unwrap()).unwrap();
    assert_eq!(result["forecast"], "sunny");
    // The assistant turn with the call is replayed as sent.
    let replayed = &seen[2].body["messages"][4];
    assert_eq!(
        replayed["tool_calls"][0]["function"]["arguments"],
        r#"{"city": "Oslo"}"#
    );
    // Usage per request, beside what the tools cost.
    let usage = agent.usage();
    assert_eq!(usage.len(), 3);
    assert_eq!(usage[0].input_tokens, Some(812));
    assert_eq!(usage[0].cached_input_tokens, Some(512));
    let (sent, eager) = (
        usage[0].tool_tokens.unwrap(),
        usage[0].eager_tool_tokens.unwrap(),
    );
    assert!(sent < eager, "lazy {sent} vs eager {eager}");
    assert!(usage[1].tools_sent > usage[0].tools_sent);
    assert!(agent.session().is_loaded("weather_forecast"));
    assert!(lines.iter().any(|l| l.contains("ToolCall")), "{lines:?}");
    replay.dump(WireFormat::OpenAiChat, "tool_info");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_parallel_tool_calls_run_at_the_same_time() {
    let replay = replay(vec![
        openai_calls(&[
            ("call_a", "rendezvous", r#"{"who": "a"}"#),
            ("call_b", "rendezvous", r#"{"who": "b"}"#),
        ]),
        openai_text("Both met."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let reply = agent.send("Meet twice.").await.unwrap();
    assert_eq!(reply.text, "Both met.");
    let results = tool_messages(&replay.seen()[1].body);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["tool_call_id"], "call_a");
    assert_eq!(results[1]["tool_call_id"], "call_b");
    for r in &results {
        assert!(r["content"].as_str().unwrap().contains("met"), "{r}");
    }
    let Turn::ToolResults(outcomes) = &agent.transcript()[2] else {
        panic!("{:?}", agent.transcript());
    };
    assert!(outcomes.iter().all(|o| !o.is_error), "{outcomes:?}");
    replay.dump(WireFormat::OpenAiChat, "parallel");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_unknown_tool_and_invalid_arguments_go_back_to_the_model() {
    let replay = replay(vec![
        openai_calls(&[
            ("call_1", "wether_forecast", r#"{"city": "Oslo"}"#),
            ("call_2", "weather_forecast", r#"{"city": "#),
            ("call_3", "weather_forecast", r#"{"town": "Oslo"}"#),
            ("call_4", "report_03", r#"{"format": "docx"}"#),
        ]),
        openai_text("Sorry."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    assert_eq!(agent.send("Weather?").await.unwrap().text, "Sorry.");
    let results = tool_messages(&replay.seen()[1].body);
    let text = |i: usize| results[i]["content"].as_str().unwrap().to_owned();
    assert!(
        text(0).contains("unknown_tool") && text(0).contains("weather_forecast"),
        "{}",
        text(0)
    );
    assert!(
        text(1).contains("not a JSON object") && text(1).contains("invalid JSON"),
        "{}",
        text(1)
    );
    assert!(
        text(2).contains("city"),
        "names the missing field: {}",
        text(2)
    );
    // Every problem at once, with its path, in the text and the data.
    let all: Value = serde_json::from_str(&text(3)).unwrap();
    let message = all["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2 problems") && message.contains("`quarter`") && message.contains("docx"),
        "{message}"
    );
    let paths: Vec<&str> = all["error"]["data"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["quarter", "format"], "{all}");
    // The malformed arguments are replayed exactly as the model sent them.
    let replayed = &replay.seen()[1].body["messages"][2]["tool_calls"][1]["function"]["arguments"];
    assert_eq!(replayed, r#"{"city": "#);
    replay.dump(WireFormat::OpenAiChat, "bad_calls");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_401_stops_at_once_without_showing_the_key() {
    let replay = replay(vec![status(
        401,
        &format!(
            r#"{{"error": {{"message": "Incorrect API key provided: {KEY}.", "type": "invalid_request_error", "code": "invalid_api_key"}}}}"#
        ),
    )]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let err = agent.send("Hi").await.unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, AgentError::Auth { status: 401, .. }),
        "{err:?}"
    );
    assert!(
        text.contains("OPENAI_API_KEY") && text.contains("Incorrect API key"),
        "{text}"
    );
    assert!(
        !text.contains(KEY) && !format!("{err:?}").contains(KEY),
        "{text}"
    );
    assert!(!format!("{agent:?}").contains(KEY));
    assert_eq!(replay.seen().len(), 1, "no retry on 401");
    assert_eq!(
        agent.transcript(),
        [Turn::User("Hi".into())],
        "the message is kept"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_429_waits_as_told_then_succeeds() {
    let mut limited = status(429, r#"{"error": {"message": "Rate limit reached"}}"#);
    limited.headers.push(("retry-after", "0".into()));
    let mut limited_ms = status(429, r#"{"error": {"message": "Rate limit reached"}}"#);
    limited_ms.headers.push(("retry-after-ms", "20".into()));
    let replay = replay(vec![limited, limited_ms, openai_text("Hello.")]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let mut waits = Vec::new();
    let reply = agent
        .send_with("Hi", |e| {
            if let AgentEvent::Retry { wait, reason, .. } = e {
                waits.push((wait, reason.to_owned()));
            }
        })
        .await
        .unwrap();
    assert_eq!(reply.text, "Hello.");
    assert_eq!(replay.seen().len(), 3);
    assert_eq!(waits[0].0, Duration::ZERO);
    assert_eq!(waits[1].0, Duration::from_millis(20));
    assert!(
        waits[0].1.contains("429") && waits[0].1.contains("Rate limit"),
        "{waits:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_429_asking_too_long_a_wait_is_an_error_saying_so() {
    let mut limited = status(429, r#"{"error": {"message": "Rate limit reached"}}"#);
    limited.headers.push(("retry-after", "3600".into()));
    let replay = replay(vec![limited]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let err = agent.send("Hi").await.unwrap_err().to_string();
    assert!(err.contains("asks to wait 3600 s"), "{err}");
    assert_eq!(replay.seen().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_5xx_and_malformed_replies_are_retried_with_backoff() {
    let replay = replay(vec![
        status(500, r#"{"error": {"message": "The server had an error"}}"#),
        status(503, "upstream unavailable"),
        status(200, r#"{"choices": [{"message": "#),
        ok(json!({"object": "chat.completion"})),
        openai_text("Fine."),
    ]);
    let mut options = options();
    options.max_retries = 4;
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options);
    let mut reasons = Vec::new();
    let reply = agent
        .send_with("Hi", |e| {
            if let AgentEvent::Retry { reason, .. } = e {
                reasons.push(reason.to_owned());
            }
        })
        .await
        .unwrap();
    assert_eq!(reply.text, "Fine.");
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert!(reasons[0].contains("HTTP 500: The server had an error"));
    assert!(reasons[1].contains("HTTP 503: upstream unavailable"));
    assert!(reasons[2].contains("not JSON"), "{}", reasons[2]);
    assert!(reasons[3].contains("choices[0].message"), "{}", reasons[3]);
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_retries_run_out_with_the_last_failure_named() {
    let replay = replay((0..4).map(|_| status(502, "bad gateway")).collect());
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let err = agent.send("Hi").await.unwrap_err();
    assert!(
        matches!(err, AgentError::Unavailable { attempts: 4, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("HTTP 502: bad gateway"), "{err}");
    assert_eq!(replay.seen().len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_400_is_not_retried() {
    let replay = replay(vec![status(
        400,
        r#"{"error": {"message": "Invalid schema for function 'x'"}}"#,
    )]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let err = agent.send("Hi").await.unwrap_err();
    assert!(
        matches!(err, AgentError::Rejected { status: 400, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Invalid schema"), "{err}");
    assert_eq!(replay.seen().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_step_limit_keeps_the_conversation_for_the_next_message() {
    let call = || openai_calls(&[("call_x", "weather_forecast", r#"{"city": "Oslo"}"#)]);
    let replay = replay(vec![call(), call(), call(), openai_text("Done at last.")]);
    // The same call again and again: the progress guard would end it
    // first, so it is off here to reach the step limit.
    let mut agent = agent(
        &replay,
        WireFormat::OpenAiChat,
        options().with_max_steps(3).with_stop_when_stuck(false),
    );
    let err = agent.send("Loop").await.unwrap_err();
    assert!(matches!(err, AgentError::StepLimit { steps: 3 }), "{err:?}");
    assert_eq!(agent.transcript().len(), 7, "user + 3 × (call, results)");
    let reply = agent.send("Stop now.").await.unwrap();
    assert_eq!(reply.text, "Done at last.");
    let last = &replay.seen()[3].body["messages"];
    let roles: Vec<&str> = last
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "user"
        ]
    );
    replay.dump(WireFormat::OpenAiChat, "step_limit");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_searches_on_after_two_refusals_ends_the_turn() {
    // A small model searching with the guard's refusal as its query.
    let script = || {
        (1..=7)
            .map(|i| {
                openai_calls(&[(
                    &*format!("s{i}"),
                    "tool_info",
                    r#"{"query": "tool_info was not run"}"#,
                )])
            })
            .collect::<Vec<_>>()
    };
    let guarded = replay(script());
    let mut first = agent(
        &guarded,
        WireFormat::OpenAiChat,
        options().with_max_steps(12),
    );
    let err = first.send("Teleport me to Oslo").await.unwrap_err();
    assert_eq!(err.kind(), "no_progress");
    assert!(err.to_string().contains("tool_info was not run"), "{err}");
    // Three searches ran, two were refused, the sixth ended the turn.
    assert_eq!(guarded.seen().len(), 6);
    // With the guard off, the loop runs to the step limit.
    let unguarded = replay(script());
    let mut second = agent(
        &unguarded,
        WireFormat::OpenAiChat,
        options().with_max_steps(7).with_stop_when_stuck(false),
    );
    let err = second.send("Teleport me to Oslo").await.unwrap_err();
    assert_eq!(err.kind(), "step_limit");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_search_guard_stops_a_search_loop_and_counts_it() {
    let search = |id: &str, query: &str| {
        openai_calls(&[(id, "tool_info", &*format!(r#"{{"query": "{query}"}}"#))])
    };
    let replay = replay(vec![
        search("s1", "teleport a person"),
        search("s2", "teleportation service"),
        search("s3", "beam me up"),
        // The fourth search in a row is answered by the guard, and so is a
        // fifth sent in parallel with a sixth.
        search("s4", "transporter"),
        openai_calls(&[
            ("s5", "tool_info", r#"{"query": "warp"}"#),
            ("s6", "tool_info", r#"{"query": "select:weather_forecast"}"#),
        ]),
        // Another tool call starts the count again.
        openai_calls(&[("w1", "weather_forecast", r#"{"city": "Oslo"}"#)]),
        search("s7", "teleport again"),
        openai_text("I cannot teleport anyone; Oslo is sunny."),
    ]);
    let mut agent = agent(
        &replay,
        WireFormat::OpenAiChat,
        options().with_max_steps(12),
    );
    let reply = agent.send("Teleport me to Oslo").await.unwrap();
    assert_eq!(reply.text, "I cannot teleport anyone; Oslo is sunny.");
    let seen = replay.seen();
    let result_of = |request: usize, id: &str| -> Value {
        let message = tool_messages(&seen[request].body)
            .into_iter()
            .find(|m| m["tool_call_id"] == id)
            .unwrap();
        serde_json::from_str(message["content"].as_str().unwrap()).unwrap()
    };
    // The first three ran (each a real tool_info answer).
    for (request, id) in [(1, "s1"), (2, "s2"), (3, "s3")] {
        let answer = result_of(request, id);
        assert!(
            !answer["message"]
                .as_str()
                .unwrap_or("")
                .contains("was not run"),
            "{id}: {answer}"
        );
    }
    // The fourth, fifth and sixth: the guard's answer, not a search.
    for (request, id) in [(4, "s4"), (5, "s5"), (5, "s6")] {
        let answer = result_of(request, id);
        assert_eq!(answer["tools"], json!([]), "{id}: {answer}");
        assert_eq!(answer["no_match"], true);
        let message = answer["message"].as_str().unwrap();
        assert!(
            message.starts_with("tool_info was not run: you have searched 3 times in this turn"),
            "{message}"
        );
        assert!(message.contains("answer the user"), "{message}");
    }
    // After weather_forecast ran, the next search runs again.
    let answer = result_of(7, "s7");
    assert!(
        !answer["message"]
            .as_str()
            .unwrap_or("")
            .contains("was not run"),
        "{answer}"
    );
    // Counted per request in usage().
    let counts: Vec<(usize, usize)> = agent
        .usage()
        .iter()
        .map(|u| (u.searches, u.searches_refused))
        .collect();
    assert_eq!(
        counts,
        [
            (1, 0),
            (1, 0),
            (1, 0),
            (0, 1),
            (0, 2),
            (0, 0),
            (1, 0),
            (0, 0)
        ]
    );
    replay.dump(WireFormat::OpenAiChat, "search_guard");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_search_guard_can_be_turned_off_and_resets_per_message() {
    let search = |id: &str| openai_calls(&[(id, "tool_info", r#"{"query": "teleport"}"#)]);
    let mut script: Vec<Canned> = (0..5).map(|i| search(&format!("s{i}"))).collect();
    script.push(openai_text("No teleporter."));
    let replay = replay(script);
    let mut unguarded = agent(
        &replay,
        WireFormat::OpenAiChat,
        options().with_max_searches(0),
    );
    unguarded.send("Teleport me").await.unwrap();
    assert!(unguarded.usage().iter().all(|u| u.searches_refused == 0));
    assert_eq!(
        unguarded.usage().iter().map(|u| u.searches).sum::<usize>(),
        5
    );

    // With the guard at 2: two searches, then a new message, two more run.
    let replay = replay_with_two_messages();
    let mut guarded = agent(
        &replay,
        WireFormat::OpenAiChat,
        options().with_max_searches(2),
    );
    guarded.send("Teleport me").await.unwrap();
    guarded.send("Try once more").await.unwrap();
    assert!(guarded.usage().iter().all(|u| u.searches_refused == 0));
    assert_eq!(guarded.usage().iter().map(|u| u.searches).sum::<usize>(), 4);
}

fn replay_with_two_messages() -> Replay {
    let search = |id: &str| openai_calls(&[(id, "tool_info", r#"{"query": "teleport"}"#)]);
    replay(vec![
        search("a1"),
        search("a2"),
        openai_text("Nothing teleports."),
        search("b1"),
        search("b2"),
        openai_text("Still nothing."),
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_stops_running_tools_and_keeps_the_transcript_valid() {
    let replay = replay(vec![
        openai_calls(&[("call_s", "sleeper", "{}")]),
        openai_text("Cancelled, fine."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    let handle = agent.cancel_handle();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        handle.cancel();
    });
    let err = tokio::time::timeout(Duration::from_secs(10), agent.send("Sleep"))
        .await
        .expect("cancellation is honoured")
        .unwrap_err();
    assert!(matches!(err, AgentError::Cancelled), "{err:?}");
    let Some(Turn::ToolResults(outcomes)) = agent.transcript().last() else {
        panic!("{:?}", agent.transcript());
    };
    assert!(
        outcomes[0].is_error && outcomes[0].content.contains("cancel"),
        "{outcomes:?}"
    );
    // Every call has its result, so the conversation can go on.
    assert_eq!(
        agent.send("Never mind.").await.unwrap().text,
        "Cancelled, fine."
    );
    replay.dump(WireFormat::OpenAiChat, "cancel");
}

// ---- Anthropic messages ----------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_tool_info_round_trip_with_parallel_tool_use() {
    let replay = replay(vec![
        anthropic_calls(&[(
            "toolu_1",
            "tool_info",
            json!({"query": "weather forecast", "max_results": 2}),
        )]),
        anthropic_reply(
            json!([
                {"type": "text", "text": "Checking both cities."},
                {"type": "tool_use", "id": "toolu_2", "name": "weather_forecast", "input": {"city": "Oslo"}},
                {"type": "tool_use", "id": "toolu_3", "name": "weather_forecast", "input": {"city": "Rome"}},
            ]),
            "tool_use",
        ),
        anthropic_text("Sunny in both."),
        anthropic_text("You're welcome."),
    ]);
    let mut agent = agent(&replay, WireFormat::AnthropicMessages, options());
    let reply = agent.send("Weather in Oslo and Rome?").await.unwrap();
    assert_eq!(reply.text, "Sunny in both.");
    assert_eq!(reply.tool_calls, 3);
    let seen = replay.seen();
    assert_eq!(seen[0].path, "/v1/messages");
    assert_eq!(seen[0].header("x-api-key"), Some(KEY));
    assert_eq!(seen[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(seen[0].header("anthropic-beta"), None);
    assert!(system_text(&seen[0].body).contains("weather_forecast"));
    // Caching asked for: the system block carries a breakpoint.
    assert_eq!(
        seen[0].body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert!(seen[0].body["max_tokens"].as_u64().is_some());
    assert!(
        !seen[0]
            .tool_names()
            .contains(&"weather_forecast".to_owned())
    );
    assert!(
        seen[1]
            .tool_names()
            .contains(&"weather_forecast".to_owned())
    );
    // Both results in one user message, in call order.
    let messages = seen[2].body["messages"].as_array().unwrap();
    let results = &messages[4]["content"];
    assert_eq!(messages[4]["role"], "user");
    assert_eq!(results[0]["tool_use_id"], "toolu_2");
    assert_eq!(results[1]["tool_use_id"], "toolu_3");
    assert_eq!(results[1]["is_error"], false);
    assert!(results[1]["content"].as_str().unwrap().contains("Rome"));
    assert_eq!(agent.usage()[0].cached_input_tokens, Some(600));
    // The next message follows the last assistant turn.
    agent.send("Thanks!").await.unwrap();
    let roles: Vec<String> = replay.seen()[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    replay.dump(WireFormat::AnthropicMessages, "tool_info");
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_step_limit_then_a_new_message_merges_with_the_results() {
    let call = || anthropic_calls(&[("toolu_x", "weather_forecast", json!({"city": "Oslo"}))]);
    let replay = replay(vec![call(), anthropic_text("Ok.")]);
    let mut agent = agent(
        &replay,
        WireFormat::AnthropicMessages,
        options().with_max_steps(1),
    );
    assert!(matches!(
        agent.send("Go").await,
        Err(AgentError::StepLimit { steps: 1 })
    ));
    agent.send("Enough.").await.unwrap();
    let messages = replay.seen()[1].body["messages"].clone();
    let last = &messages.as_array().unwrap()[2];
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][1]["text"], "Enough.");
    replay.dump(WireFormat::AnthropicMessages, "merge");
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_native_deferral_sends_every_tool_deferred_and_replays_search_blocks() {
    let replay = replay(vec![
        anthropic_reply(
            json!([
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex",
                 "input": {"query": "weather"}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": {"type": "tool_search_tool_search_result",
                             "tool_references": [{"type": "tool_reference", "tool_name": "weather_forecast"}]}},
                {"type": "tool_use", "id": "toolu_9", "name": "weather_forecast", "input": {"city": "Lima"}},
            ]),
            "tool_use",
        ),
        anthropic_text("Sunny in Lima."),
    ]);
    let mut agent = agent(
        &replay,
        WireFormat::AnthropicMessages,
        options().with_native_deferral(true),
    );
    assert_eq!(
        agent.send("Weather in Lima?").await.unwrap().text,
        "Sunny in Lima."
    );
    let seen = replay.seen();
    // Tool search is part of the messages API (the SDK's non-beta types).
    assert_eq!(seen[0].header("anthropic-beta"), None);
    let tools = seen[0].body["tools"].as_array().unwrap();
    let weather = tools
        .iter()
        .find(|t| t["name"] == "weather_forecast")
        .unwrap();
    assert_eq!(weather["defer_loading"], true);
    assert!(
        tools
            .iter()
            .any(|t| t["type"] == "tool_search_tool_regex_20251119")
    );
    assert!(!tools.iter().any(|t| t["name"] == "tool_info"));
    assert_eq!(
        system_text(&seen[0].body),
        "You are a test assistant.",
        "no note: the provider searches"
    );
    // The server-side search blocks go back verbatim before our result.
    let assistant = &seen[1].body["messages"][1]["content"];
    assert_eq!(assistant[0]["type"], "server_tool_use");
    assert_eq!(assistant[1]["type"], "tool_search_tool_result");
    assert_eq!(
        seen[1].body["messages"][2]["content"][0]["tool_use_id"],
        "toolu_9"
    );
    replay.dump(WireFormat::AnthropicMessages, "native");
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_overloaded_is_retried_and_a_bad_request_is_not() {
    let replay = replay(vec![
        status(
            529,
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        ),
        anthropic_text("Here."),
        status(
            400,
            r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "messages: roles must alternate"}}"#,
        ),
    ]);
    let mut agent = agent(&replay, WireFormat::AnthropicMessages, options());
    assert_eq!(agent.send("Hi").await.unwrap().text, "Here.");
    let err = agent.send("Again").await.unwrap_err();
    assert!(err.to_string().contains("roles must alternate"), "{err}");
    assert_eq!(replay.seen().len(), 3);
    assert_eq!(agent.transcript().len(), 3, "both user messages kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_strict_mode_sends_strict_tools_and_nulls_mean_absent() {
    let replay = replay(vec![
        openai_calls(&[(
            "call_1",
            "tool_info",
            r#"{"query": "weather forecast", "max_results": null}"#,
        )]),
        openai_text("Done."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options().with_strict(true));
    agent.send("Find the weather tool.").await.unwrap();
    let seen = replay.seen();
    let tool_info = seen[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "tool_info")
        .unwrap()
        .clone();
    assert_eq!(tool_info["function"]["strict"], true, "{tool_info}");
    assert_eq!(
        tool_info["function"]["parameters"]["additionalProperties"],
        false
    );
    // `null` for an optional field is its default, not an error.
    let result = &tool_messages(&seen[1].body)[0];
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("weather_forecast"),
        "{result}"
    );
    replay.dump(WireFormat::OpenAiChat, "strict");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_too_large_is_refused_not_buffered() {
    let replay = replay(vec![status(200, &" ".repeat(33 << 20))]);
    let options = options().with_retries(0, Duration::from_millis(10), Duration::from_secs(1));
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options);
    let err = agent.send("Hi").await.unwrap_err();
    assert!(err.to_string().contains("larger than 32 MiB"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn every_model_request_has_a_chat_span_and_every_call_its_id() {
    let spans = support::spans::Spans::global();
    let replay = replay(vec![
        openai_calls(&[("call_7", "tool_info", r#"{"query": "weather forecast"}"#)]),
        openai_text("Done."),
    ]);
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options());
    agent.send("Weather?").await.unwrap();
    // This test's requests: the only ones to its replay server.
    let server = format!("{}/v1", replay.base);
    let chats = spans.named_with("chat", "server.address", &server);
    assert_eq!(chats.len(), 2, "{chats:?}");
    let first = &chats[0];
    assert_eq!(first.get("gen_ai.operation.name"), Some("chat"));
    assert_eq!(first.get("gen_ai.provider.name"), Some("openai"));
    assert_eq!(first.get("gen_ai.request.model"), Some("test-model"));
    assert_eq!(first.get("otel.name"), Some("chat test-model"));
    assert_eq!(first.get("gen_ai.usage.input_tokens"), Some("812"));
    assert_eq!(first.get("gen_ai.usage.output_tokens"), Some("31"));
    assert_eq!(first.get("gen_ai.response.tool_calls"), Some("1"));
    let calls = spans.named_with("execute_tool", "gen_ai.tool.call.id", "call_7");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].get("gen_ai.tool.name"), Some("tool_info"));

    // A request that fails marks its span with error.type.
    let failing = replay_failing();
    let mut agent = agent_at(&failing);
    let err = agent.send("hi").await.unwrap_err();
    assert!(matches!(err, AgentError::Auth { .. }), "{err}");
    let last = spans
        .named_with("chat", "server.address", &format!("{}/v1", failing.base))
        .pop()
        .unwrap();
    assert_eq!(last.get("error.type"), Some("auth"), "{last:?}");
    assert_eq!(last.get("otel.status_code"), Some("ERROR"));
}

fn replay_failing() -> Replay {
    replay(vec![status(401, r#"{"error": {"message": "bad key"}}"#)])
}

fn agent_at(replay: &Replay) -> Agent {
    agent(replay, WireFormat::OpenAiChat, options())
}

/// A user message of about 200 tokens, for the compaction tests.
fn long_message() -> String {
    "Tell me about the history of the lighthouse keepers' guild in great detail. ".repeat(12)
}

#[tokio::test(flavor = "multi_thread")]
async fn compaction_leaves_old_exchanges_out_keeps_the_transcript_and_attaches_again() {
    let story = long_message();
    let replay = replay(vec![
        anthropic_calls(&[(
            "toolu_1",
            "call_tool",
            json!({"name": "weather_forecast", "arguments": {"city": "Paris"}}),
        )]),
        anthropic_text("Sunny in Paris."),
        anthropic_text("The guild kept the lights."),
        anthropic_text("And kept them well."),
        anthropic_calls(&[(
            "toolu_2",
            "call_tool",
            json!({"name": "weather_forecast", "arguments": {"city": "Rome"}}),
        )]),
        anthropic_text("Sunny in Rome."),
    ]);
    let options = options()
        .with_strategy(LoadStrategy::Bridge)
        .with_preload(Some(optimclaw::preload::PreloadOptions::default()))
        .with_compaction(Some(optimclaw_agent::Compaction::new(500, 250)))
        // As on Anthropic's own API: attachments travel as text (a local
        // server would get them in `tools`, with nothing in the message).
        .with_list_loaded(optimclaw_agent::ListLoaded::Never);
    let mut agent = agent(&replay, WireFormat::AnthropicMessages, options);
    agent
        .send("What is the weather forecast in Paris?")
        .await
        .unwrap();
    agent.send(&story).await.unwrap();
    let mut compacted = Vec::new();
    agent
        .send_with(&story, |event| {
            if let AgentEvent::Compacted { turns, kept_tokens } = event {
                compacted.push((turns, kept_tokens));
            }
        })
        .await
        .unwrap();
    // The third message outgrew 500 tokens: the first two exchanges are
    // left out, at once, down to what fits in 250 (the new message).
    assert_eq!(compacted.len(), 1, "{compacted:?}");
    let (turns, kept) = compacted[0];
    assert_eq!(
        turns, 7,
        "user, attachment, call, results, text; user, text"
    );
    assert!(kept <= 250, "{kept}");
    let seen = replay.seen();
    let third = &seen[3].body["messages"];
    assert_eq!(third.as_array().unwrap().len(), 1);
    assert_eq!(third[0]["role"], "user");
    assert_eq!(third[0]["content"][0]["text"], story.as_str());
    // The transcript keeps every turn; the history is what is sent.
    assert_eq!(agent.transcript().len(), 9);
    assert_eq!(agent.history().len(), 2);
    // The attachment went with its exchange: the tool is attached again.
    agent
        .send("And the weather forecast in Rome?")
        .await
        .unwrap();
    let seen = replay.seen();
    let last = seen[4].body["messages"].as_array().unwrap();
    let asked = &last[last.len() - 1]["content"];
    assert_eq!(asked[0]["text"], "And the weather forecast in Rome?");
    assert!(
        asked[1]["text"]
            .as_str()
            .unwrap()
            .contains("\"name\":\"weather_forecast\""),
        "{asked}"
    );
    // No compaction while the history fits; the call went through.
    assert_eq!(last.len(), 3);
    assert_eq!(
        replay.seen()[5].body["messages"].as_array().unwrap().len(),
        5
    );
    replay.dump(WireFormat::AnthropicMessages, "compaction");
}

#[tokio::test(flavor = "multi_thread")]
async fn compaction_under_append_keeps_loaded_tools_in_the_tools_array() {
    let story = long_message();
    let replay = replay(vec![
        openai_calls(&[(
            "call_1",
            "tool_info",
            r#"{"query": "weather forecast", "max_results": 1}"#,
        )]),
        openai_calls(&[("call_2", "weather_forecast", r#"{"city": "Oslo"}"#)]),
        openai_text("Sunny in Oslo."),
        openai_text("The guild kept the lights."),
        openai_text("And kept them well."),
    ]);
    let options = options().with_compaction(Some(optimclaw_agent::Compaction::new(400, 250)));
    let mut agent = agent(&replay, WireFormat::OpenAiChat, options);
    agent.send("Weather in Oslo?").await.unwrap();
    agent.send(&story).await.unwrap();
    agent.send(&story).await.unwrap();
    let seen = replay.seen();
    let last = &seen[4];
    // Compacted: the system prompt and the new message only.
    let messages = last.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[1]["content"], story.as_str());
    // The loaded tool stays callable: Append keeps it in `tools`.
    assert!(last.tool_names().contains(&"weather_forecast".to_owned()));
    assert!(agent.session().is_loaded("weather_forecast"));
    replay.dump(WireFormat::OpenAiChat, "compaction");
}

// ---- images in tool results ------------------------------------------------

/// The base64 of [`PIXEL`], as the wire carries it.
fn pixel_base64() -> String {
    match optimclaw::Content::image(PIXEL, "image/png") {
        optimclaw::Content::Image { data, .. } => data,
        _ => unreachable!("an image"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_tool_results_carry_the_images_a_tool_returned() {
    let replay = replay(vec![
        anthropic_calls(&[("toolu_1", "snapshot", json!({}))]),
        anthropic_text("A screen."),
    ]);
    let mut agent = agent(&replay, WireFormat::AnthropicMessages, options());
    agent.send("What is on my screen?").await.unwrap();
    let second = &replay.seen()[1].body;
    let result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result")
        .unwrap();
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 2, "the text and the image: {blocks:?}");
    let text = blocks[0]["text"].as_str().unwrap();
    assert!(
        text.contains("the screen")
            && text.contains("[image image/png")
            && text.contains("[audio audio/wav"),
        "the text names every block: {text}"
    );
    assert_eq!(
        blocks[1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": pixel_base64()}})
    );
    replay.dump(WireFormat::AnthropicMessages, "tool-result-image");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_sends_the_images_as_a_user_message_after_the_results_on_its_own_api_only() {
    let script = || {
        vec![
            openai_calls(&[("call_1", "snapshot", "{}")]),
            openai_text("A screen."),
        ]
    };
    // OpenAI's own API: the tool message is text, the image follows.
    let first_party = replay(script());
    let model = ModelConfig::new(
        WireFormat::OpenAiChat,
        format!("{}/v1", first_party.base),
        "test-model",
    )
    .with_api_key(ApiKey::new(KEY))
    .with_first_party(true);
    let mut own = Agent::new(session(), model, options()).unwrap();
    own.send("What is on my screen?").await.unwrap();
    let messages = first_party.seen()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let tool = messages.iter().position(|m| m["role"] == "tool").unwrap();
    assert!(
        messages[tool]["content"]
            .as_str()
            .unwrap()
            .contains("[image image/png")
    );
    let images = &messages[tool + 1];
    assert_eq!(images["role"], "user");
    assert_eq!(
        images["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", pixel_base64())}})
    );
    first_party.dump(WireFormat::OpenAiChat, "tool-result-image");
    // A local server: the text names the image, nothing else is sent.
    let local = replay(script());
    let mut agent = agent(&local, WireFormat::OpenAiChat, options());
    agent.send("What is on my screen?").await.unwrap();
    let messages = local.seen()[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.last().unwrap()["role"], "tool", "{messages:?}");
}
