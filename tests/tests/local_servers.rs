//! The agent against a stand-in for the local servers small models run on
//! (llama.cpp's llama-server, vLLM, Ollama), as strict as they are:
//!
//! - **parsing** (a template whose calls the server parses): the model's
//!   call comes back in `tool_calls` when its tool is in the request's
//!   `tools`; a call to any other tool is refused with llama-server's
//!   HTTP 500 "…does not match the expected … format"; without `tools` the
//!   call comes back as plain text;
//! - **own template** (the model's own chat template): every call comes
//!   back as plain `content`, as the model wrote it.
//!
//! Asked to stream, it streams as llama-server does: the call's pieces as
//! they are parsed, a refusal as an `error` event in the stream (the
//! server has begun its answer by then), per-chunk `timings` when asked
//! for `timings_per_token`.
//!
//! The "model" is a script of outputs; a refused output is produced again
//! on the next request, as a real model would.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolHints, ToolKind};
use optimclaw_agent::{
    Agent, AgentError, AgentOptions, CallReading, ModelConfig, ToolCalls, Turn, WireFormat,
};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq)]
enum Server {
    Parsing,
    OwnTemplate,
}

/// What the scripted model writes.
#[derive(Clone)]
enum Output {
    /// A call, written as its template writes calls.
    Call(&'static str, Value),
    /// A call whose arguments are a text, not an object.
    TextArguments(&'static str, &'static str),
    /// A call written as a fenced json block (own template only).
    Fenced(&'static str, Value),
    /// A right call, then a call of a tool the model made up after it (a
    /// parsing server refuses the whole output).
    CallThenMadeUp(&'static str, Value),
    Text(&'static str),
    /// Text, then a block over and over until the token cap (200 times).
    Loop(&'static str, &'static str),
}

/// llama-server's answer as server-sent events: a call's pieces, or the
/// text; a refused output ends in an `error` event after its first chunk.
fn events(body: &Value, reply: Option<&Value>, first_call: Option<(&str, &Value)>) -> String {
    let timings = body["timings_per_token"] == true;
    let chunk = |delta: Value, finish: Value| {
        let mut c = json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        if timings {
            c["timings"] = json!({"cache_n": 30, "prompt_n": 70, "predicted_n": 12});
        }
        format!("data: {c}\n\n")
    };
    let mut out = chunk(json!({"role": "assistant", "content": null}), Value::Null);
    let call_chunks = |name: &str, args: &Value| {
        let text = args.to_string();
        let (head, tail) = text.split_at(text.len() / 2);
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": head}}]}),
            Value::Null,
        ) + &chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": tail}}]}),
            Value::Null,
        )
    };
    let Some(reply) = reply else {
        // Refused: what was parsed streams first, then the verdict.
        if let Some((name, args)) = first_call {
            out += &call_chunks(name, args);
        }
        out += &format!(
            "data: {}\n\n",
            json!({"error": {"code": 500, "message": "The model produced output that does not match the expected peg-native format", "type": "server_error"}})
        );
        return out;
    };
    if let Some(calls) = reply["tool_calls"].as_array() {
        let f = &calls[0]["function"];
        let args: Value = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
        out += &call_chunks(f["name"].as_str().unwrap(), &args);
        out += &chunk(json!({}), json!("tool_calls"));
    } else {
        let text = reply["content"].as_str().unwrap_or("");
        for piece in text.split_inclusive('\n') {
            out += &chunk(json!({"content": piece}), Value::Null);
        }
        out += &chunk(json!({}), json!("stop"));
    }
    out += &format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
    );
    out + "data: [DONE]\n\n"
}

struct Local {
    base: String,
    bodies: Arc<Mutex<Vec<Value>>>,
    refused: Arc<AtomicUsize>,
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

fn serve(server: Server, script: Vec<Output>) -> Local {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let refused = Arc::new(AtomicUsize::new(0));
    let (seen, refusals) = (Arc::clone(&bodies), Arc::clone(&refused));
    let mut script: VecDeque<Output> = script.into();
    let endpoint = FakeEndpoint::start(move |request| {
        let body = request.json();
        seen.lock().unwrap().push(body.clone());
        let output = script
            .front()
            .cloned()
            .unwrap_or(Output::Text("script exhausted"));
        let listed = tool_names(&body);
        // llama-server parses the history's call arguments as JSON.
        let history_ok = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
            .all(|c| {
                c.pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .is_some_and(|a| serde_json::from_str::<Value>(a).is_ok())
            });
        if !history_ok {
            refusals.fetch_add(1, Ordering::SeqCst);
            let error = json!({"error": {"code": 500, "message": "Failed to parse tool call arguments as JSON", "type": "server_error"}});
            return Reply::text(500, error.to_string())
                .with_header("content-type", "application/json");
        }
        // With `tool_choice: "none"` llama-server still renders `tools`
        // through the template but parses nothing: the output comes back
        // as the model wrote it.
        let parses = server == Server::Parsing
            && body.get("tools").is_some()
            && body["tool_choice"] != "none";
        let (status, reply) = match &output {
            Output::Call(name, args) if parses => {
                if listed.iter().any(|n| n == name) {
                    (
                        200,
                        json!({"role": "assistant", "content": null, "tool_calls": [
                            {"id": "call_1", "type": "function", "function": {"name": name, "arguments": args.to_string()}}
                        ]}),
                    )
                } else {
                    (500, Value::Null)
                }
            }
            Output::CallThenMadeUp(..) if parses => (500, Value::Null),
            Output::Call(name, args) => (
                200,
                json!({"role": "assistant", "content": json!({"name": name, "arguments": args}).to_string()}),
            ),
            Output::CallThenMadeUp(name, args) => (
                200,
                json!({"role": "assistant", "content": format!(
                    "{}\n{}",
                    json!({"name": name, "arguments": args}),
                    json!({"name": "small", "arguments": {"text": "small"}})
                )}),
            ),
            Output::TextArguments(name, text) => (
                200,
                json!({"role": "assistant", "content": json!({"name": name, "arguments": text}).to_string()}),
            ),
            Output::Fenced(name, args) => (
                200,
                json!({"role": "assistant", "content": format!("```json\n{}\n```", json!({"name": name, "arguments": args}))}),
            ),
            Output::Text(text) => (200, json!({"role": "assistant", "content": text})),
            Output::Loop(head, block) => (
                200,
                json!({"role": "assistant", "content": format!("{head}{}", block.repeat(200))}),
            ),
        };
        if body["stream"] == true {
            // What parsed before the verdict: the right call, when there
            // was one and its tool is listed. A client that closes the
            // stream there has the call, and the server never reaches
            // its verdict (it ends the generation when the client goes).
            let parsed = match &output {
                Output::CallThenMadeUp(name, args) if listed.iter().any(|n| n == name) => {
                    Some((*name, args))
                }
                _ => None,
            };
            if status == 500 && parsed.is_none() {
                refusals.fetch_add(1, Ordering::SeqCst);
            } else {
                script.pop_front();
            }
            let reply = (status == 200).then_some(&reply);
            return Reply::events(events(&body, reply, parsed));
        }
        if status == 500 {
            refusals.fetch_add(1, Ordering::SeqCst);
        } else {
            script.pop_front();
        }
        let answer = if status == 500 {
            json!({"error": {"code": 500, "message": "Failed to parse input at pos 0: The model produced output that does not match the expected peg-native format", "type": "server_error"}}).to_string()
        } else {
            json!({"choices": [{"index": 0, "finish_reason": "stop", "message": reply}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
            .to_string()
        };
        Reply::text(status, answer).with_header("content-type", "application/json")
    });
    Local {
        base: endpoint.url("/v1"),
        bodies,
        refused,
    }
}

/// Tools as a small catalog has them: `echo` core, the rest deferred.
fn registry(calls: Arc<Mutex<Vec<(String, Value)>>>) -> Registry {
    let log = |name: &'static str, calls: &Arc<Mutex<Vec<(String, Value)>>>| {
        let calls = Arc::clone(calls);
        move |args: &Value| calls.lock().unwrap().push((name.to_owned(), args.clone()))
    };
    let echo = DynamicTool::new(
        "echo",
        "Echo a text back.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false}),
    )
    .kind(ToolKind::Core)
    .handler(|_ctx, args: Value| async move { Ok(args["text"].clone()) });
    let record = log("base64_encode", &calls);
    let base64 = DynamicTool::new(
        "base64_encode",
        "Encode a text as base64.",
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "The text to encode."}}, "required": ["text"], "additionalProperties": false}),
    )
    .keywords(["base64", "encode"])
    .hints(ToolHints {
        read_only: Some(true),
        ..ToolHints::default()
    })
    .handler(move |_ctx, args: Value| {
        record(&args);
        async move {
            match args["text"].as_str() {
                Some("hello world") => Ok(json!("aGVsbG8gd29ybGQ=")),
                _ => Ok(json!("?")),
            }
        }
    });
    let record = log("calculate", &calls);
    let calculate = DynamicTool::new(
        "calculate",
        "Evaluate an arithmetic expression.",
        json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"], "additionalProperties": false}),
    )
    .keywords(["math", "arithmetic", "compute"])
    .hints(ToolHints {
        read_only: Some(true),
        ..ToolHints::default()
    })
    .handler(move |_ctx, args: Value| {
        record(&args);
        async move {
            match args["expression"].as_str() {
                Some("(17 + 25) * 3") | Some("126") => Ok(json!("126")),
                Some(other) => Err(optimclaw::ToolError::new(format!("cannot read {other:?}"))),
                None => Err(optimclaw::ToolError::new("no expression")),
            }
        }
    });
    let record = log("file_delete", &calls);
    let file_delete = DynamicTool::new(
        "file_delete",
        "Delete a file.",
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
    )
    .keywords(["delete", "remove", "file"])
    .hints(ToolHints {
        destructive: Some(true),
        ..ToolHints::default()
    })
    .handler(move |_ctx, args: Value| {
        record(&args);
        async move { Ok(json!("deleted")) }
    });
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .expect("tool_info is linked");
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools([echo, base64, calculate, file_delete])
        .build()
        .unwrap()
}

fn agent(local: &Local, options: AgentOptions, calls: &Arc<Mutex<Vec<(String, Value)>>>) -> Agent {
    // llama.cpp's per-chunk timings: the usage of a reply cut short.
    let model = ModelConfig::new(WireFormat::OpenAiChat, local.base.clone(), "qwen2.5-coder")
        .with_extra_field("timings_per_token", json!(true));
    let options = options.with_retries(4, Duration::from_millis(5), Duration::from_millis(50));
    Agent::new(Session::new(registry(Arc::clone(calls))), model, options).unwrap()
}

fn calls() -> Arc<Mutex<Vec<(String, Value)>>> {
    Arc::new(Mutex::new(Vec::new()))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_parsing_server_accepts_a_direct_call_of_the_attached_tool() {
    // Read by the agent (the default here) or parsed by the server.
    for reading in [CallReading::Auto, CallReading::Server] {
        a_direct_call_of_the_attached_tool(reading).await;
    }
}

async fn a_direct_call_of_the_attached_tool(reading: CallReading) {
    let local = serve(
        Server::Parsing,
        vec![
            // The model calls the attached tool by name, with a field it made up.
            Output::Call(
                "base64_encode",
                json!({"text": "hello world", "data": "base64"}),
            ),
            Output::Text("It is aGVsbG8gd29ybGQ=."),
        ],
    );
    let log = calls();
    let mut agent = agent(
        &local,
        AgentOptions::default().with_call_reading(reading),
        &log,
    );
    let reply = agent
        .send("Encode the text 'hello world' as base64.")
        .await
        .unwrap();
    assert_eq!(reply.text, "It is aGVsbG8gd29ybGQ=.");
    assert_eq!(
        local.refused.load(Ordering::SeqCst),
        0,
        "no request refused"
    );
    let bodies = local.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 2);
    assert!(
        tool_names(&bodies[0]).contains(&"base64_encode".to_owned()),
        "the attached tool is listed for a local server: {:?}",
        tool_names(&bodies[0])
    );
    // Listed in `tools`, the attached tool is only named after the user's
    // message, in a part of its own set apart by a blank line (a small
    // model copied a schema there as its arguments; with the tool only in
    // `tools` it called a core tool in its place).
    let messages = bodies[0]["messages"].as_array().unwrap();
    assert_eq!(
        messages.last().unwrap()["content"],
        json!([
            {"type": "text", "text": "Encode the text 'hello world' as base64."},
            {"type": "text", "text": "\n\n(The tool for this: base64_encode.)"}
        ])
    );
    assert!(
        !bodies[0]["messages"]
            .to_string()
            .contains("The text to encode.")
    );
    // The made-up field was dropped, the text reached the tool exactly.
    assert_eq!(
        log.lock().unwrap().as_slice(),
        [("base64_encode".to_owned(), json!({"text": "hello world"}))]
    );
    // An output cap goes with every request.
    assert_eq!(bodies[0]["max_tokens"], 2048);
    assert!(bodies[0].get("max_completion_tokens").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_written_as_text_are_run() {
    for first in [
        Output::Call("base64_encode", json!({"text": "hello world"})),
        Output::Fenced("base64_encode", json!({"text": "hello world"})),
    ] {
        let local = serve(
            Server::OwnTemplate,
            vec![first, Output::Text("aGVsbG8gd29ybGQ=")],
        );
        let log = calls();
        let mut agent = agent(&local, AgentOptions::default(), &log);
        let reply = agent
            .send("Encode the text 'hello world' as base64.")
            .await
            .unwrap();
        assert_eq!(reply.text, "aGVsbG8gd29ybGQ=");
        assert_eq!(reply.tool_calls, 1);
        assert_eq!(log.lock().unwrap().len(), 1);
        // The call goes back to the model as a call, its result as a result.
        let second = &local.bodies.lock().unwrap()[1];
        let messages = second["messages"].as_array().unwrap();
        let assistant = &messages[messages.len() - 2];
        assert_eq!(
            assistant["tool_calls"][0]["function"]["name"],
            "base64_encode"
        );
        assert_eq!(messages[messages.len() - 1]["role"], "tool");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_that_shows_json_stays_an_answer() {
    let text = "You can call it like this:\n```json\n{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"hi\"}}\n```\nIt returns the text encoded as base64, which you can then paste wherever you need it. Tell me if I should run it.";
    let local = serve(Server::OwnTemplate, vec![Output::Text(text)]);
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent.send("How would I encode text?").await.unwrap();
    assert_eq!(reply.text, text);
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_call_is_asked_again_with_the_tools_in_the_system_prompt() {
    // `calculate` is neither attached nor loaded: only listed in the note.
    let local = serve(
        Server::Parsing,
        vec![
            Output::Call("calculate", json!({"expression": "(17 + 25) * 3"})),
            Output::Text("126"),
        ],
    );
    let log = calls();
    let options = AgentOptions::default()
        .with_preload(None)
        .with_call_reading(CallReading::Server);
    let mut agent = agent(&local, options, &log);
    let reply = agent.send("What is (17 + 25) * 3?").await.unwrap();
    assert_eq!(reply.text, "126");
    assert_eq!(local.refused.load(Ordering::SeqCst), 1);
    let bodies = local.bodies.lock().unwrap();
    assert_eq!(
        bodies.len(),
        3,
        "refused, asked again without tools, answered"
    );
    assert!(bodies[1].get("tools").is_none());
    // The tools are still there, described in the system prompt.
    let system = bodies[1]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("# Tools") && system.contains("\"name\":\"tool_info\""),
        "{system}"
    );
    // From then on the tools stay in the system prompt: the server's
    // parser refused the model once and is not asked to parse it again.
    assert!(bodies[2].get("tools").is_none());
    let system = bodies[2]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\"name\":\"calculate\""), "{system}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_fed_its_own_result_ends_the_turn_with_that_result() {
    let local = serve(
        Server::Parsing,
        vec![
            Output::Call("calculate", json!({"expression": "(17 + 25) * 3"})),
            Output::Call("calculate", json!({"expression": "126"})),
            Output::Call("calculate", json!({"expression": "126"})),
        ],
    );
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent.send("Compute (17 + 25) * 3").await.unwrap();
    assert_eq!(reply.text, "126");
    assert_eq!(log.lock().unwrap().len(), 1, "the loop was not run");
    assert!(
        matches!(agent.transcript().last(), Some(Turn::Assistant { text, .. }) if text == "126")
    );
}

/// The reply to "Encode the text 'hello world' as base64." when the model
/// calls `base64_encode` right, then writes `second`, and how many tool
/// calls reached the tools.
async fn reply_after_encoding(
    server: Server,
    second: &'static str,
    options: AgentOptions,
) -> (String, usize) {
    let local = serve(
        server,
        vec![
            Output::Call("base64_encode", json!({"text": "hello world"})),
            Output::Text(second),
        ],
    );
    let log = calls();
    let mut agent = agent(&local, options, &log);
    let reply = agent
        .send("Encode the text 'hello world' as base64.")
        .await
        .unwrap();
    assert_eq!(reply.tool_calls, 1);
    let ran = log.lock().unwrap().len();
    (reply.text, ran)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_or_echoed_reply_after_a_result_answers_with_that_result() {
    let guarded = AgentOptions::default;
    let (text, _) = reply_after_encoding(Server::OwnTemplate, "", guarded()).await;
    assert_eq!(text, "aGVsbG8gd29ybGQ=");
    // The chat template's call format echoed after the result: no answer.
    let echo = "To call a function, reply with only a json object with function name and arguments:\n{\"name\": <function-name>, \"arguments\": <args-json-object>}";
    let (text, _) = reply_after_encoding(Server::Parsing, echo, guarded()).await;
    assert_eq!(text, "aGVsbG8gd29ybGQ=");
    // Without the guard the empty reply stands.
    let unguarded = guarded().with_stop_when_stuck(false);
    let (text, _) = reply_after_encoding(Server::OwnTemplate, "", unguarded).await;
    assert_eq!(text, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_failing_call_twice_ends_the_turn_with_its_error() {
    let bad = || Output::Call("calculate", json!({"expression": "two plus two"}));
    let local = serve(Server::Parsing, vec![bad(), bad(), bad(), bad()]);
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let err = agent.send("Compute two plus two").await.unwrap_err();
    assert!(
        matches!(err, AgentError::NoProgress { ref tool, .. } if tool == "calculate"),
        "{err:?}"
    );
    assert!(err.to_string().contains("cannot read"), "{err}");
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn text_calls_run_a_whole_conversation_without_a_tools_field() {
    let local = serve(
        Server::OwnTemplate,
        vec![
            Output::Call("base64_encode", json!({"text": "hello world"})),
            Output::Text("aGVsbG8gd29ybGQ="),
        ],
    );
    let log = calls();
    let options = AgentOptions::default().with_tool_calls(ToolCalls::Text);
    let mut agent = agent(&local, options, &log);
    let reply = agent
        .send("Encode the text 'hello world' as base64.")
        .await
        .unwrap();
    assert_eq!(reply.text, "aGVsbG8gd29ybGQ=");
    let bodies = local.bodies.lock().unwrap();
    for body in bodies.iter() {
        assert!(body.get("tools").is_none(), "{body}");
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("# Tools") && system.contains("## echo"),
            "{system}"
        );
        for message in body["messages"].as_array().unwrap() {
            assert!(message.get("tool_calls").is_none() && message["role"] != "tool");
        }
    }
    // No `tools` field: the attached tool's schema travels in the message.
    let first = bodies[0]["messages"].to_string();
    assert!(first.contains("The text to encode."), "{first}");
    let messages = bodies[1]["messages"].as_array().unwrap();
    let result = &messages[messages.len() - 1];
    assert_eq!(result["role"], "user");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("`base64_encode` returned: \"aGVsbG8gd29ybGQ=\""),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_500_is_sent_twice_not_five_times() {
    let endpoint =
        FakeEndpoint::start(|_| Reply::json(500, &json!({"error": {"message": "template error"}})));
    let base = endpoint.url("/v1");
    let model = ModelConfig::new(WireFormat::OpenAiChat, base, "m");
    let options = AgentOptions::default().with_retries(
        4,
        Duration::from_millis(5),
        Duration::from_millis(50),
    );
    let mut agent = Agent::new(Session::new(registry(calls())), model, options).unwrap();
    let err = agent.send("hi").await.unwrap_err();
    assert!(
        matches!(err, AgentError::Unavailable { attempts: 2, .. }),
        "{err:?}"
    );
    assert_eq!(endpoint.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn openais_own_api_gets_max_completion_tokens_and_a_fixed_tools_array() {
    let local = serve(Server::Parsing, vec![Output::Text("Done.")]);
    let log = calls();
    let model = ModelConfig::new(WireFormat::OpenAiChat, local.base.clone(), "gpt-5")
        .with_first_party(true);
    let mut agent = Agent::new(
        Session::new(registry(Arc::clone(&log))),
        model,
        AgentOptions::default(),
    )
    .unwrap();
    agent
        .send("Encode the text 'hello world' as base64.")
        .await
        .unwrap();
    let body = &local.bodies.lock().unwrap()[0];
    assert_eq!(body["max_completion_tokens"], 2048);
    assert!(body.get("max_tokens").is_none());
    assert!(
        !tool_names(body).contains(&"base64_encode".to_owned()),
        "the tools array stays fixed for the provider's own API"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_is_read_up_to_its_first_call_before_the_parser_refuses_it() {
    for server in [Server::Parsing, Server::OwnTemplate] {
        let local = serve(
            server,
            vec![
                Output::CallThenMadeUp("base64_encode", json!({"text": "hello world"})),
                Output::Text("It is aGVsbG8gd29ybGQ=."),
            ],
        );
        let log = calls();
        // The server parses (and would refuse the made-up call).
        let options = AgentOptions::default().with_call_reading(CallReading::Server);
        let mut agent = agent(&local, options, &log);
        let mut retries = 0;
        let reply = agent
            .send_with("Encode the text 'hello world' as base64.", |event| {
                if matches!(event, optimclaw_agent::AgentEvent::Retry { .. }) {
                    retries += 1;
                }
            })
            .await
            .unwrap();
        assert_eq!(reply.text, "It is aGVsbG8gd29ybGQ=.");
        // The right call ran once; the made-up one was never read, and
        // the request was not asked again.
        assert_eq!(
            log.lock().unwrap().as_slice(),
            [("base64_encode".to_owned(), json!({"text": "hello world"}))]
        );
        assert_eq!(retries, 0);
        let bodies = local.bodies.lock().unwrap();
        assert_eq!(bodies.len(), 2);
        // Streamed, with llama.cpp's per-chunk timings asked for (an extra
        // field of the model's): the cut reply's prompt tokens are theirs
        // (30 cached + 70).
        assert_eq!(bodies[0]["stream"], true);
        assert_eq!(bodies[0]["timings_per_token"], true);
        assert_eq!(agent.usage()[0].input_tokens, Some(100));
        assert_eq!(agent.usage()[0].cached_input_tokens, Some(30));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn read_whole_a_reply_with_a_made_up_call_is_refused() {
    use optimclaw_agent::FirstCall;
    let local = serve(
        Server::Parsing,
        vec![
            Output::CallThenMadeUp("base64_encode", json!({"text": "hello world"})),
            Output::Text("It is aGVsbG8gd29ybGQ=."),
        ],
    );
    let log = calls();
    let options = AgentOptions::default()
        .with_first_call(FirstCall::Never)
        .with_call_reading(CallReading::Server);
    let mut agent = agent(&local, options, &log);
    let _ = agent.send("Encode the text 'hello world' as base64.").await;
    // The stand-in is as strict as the server: the whole output refused,
    // then asked again with the tools in the system prompt.
    assert_eq!(local.refused.load(Ordering::SeqCst), 1);
    let bodies = local.bodies.lock().unwrap();
    assert!(bodies[0].get("stream").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_of_a_made_up_tool_is_answered_with_the_tools_it_may_mean() {
    let local = serve(
        Server::OwnTemplate,
        vec![
            Output::Fenced("encode_to_base64", json!({"text": "hello world"})),
            Output::Call("base64_encode", json!({"text": "hello world"})),
            Output::Text("It is aGVsbG8gd29ybGQ=."),
        ],
    );
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent
        .send("Encode the text 'hello world' as base64.")
        .await
        .unwrap();
    assert_eq!(reply.text, "It is aGVsbG8gd29ybGQ=.");
    // The made-up call ran as a call and failed naming the tool.
    let bodies = local.bodies.lock().unwrap();
    let messages = bodies[1]["messages"].as_array().unwrap();
    let result = messages.last().unwrap();
    assert_eq!(result["role"], "tool");
    let text = result["content"].as_str().unwrap();
    assert!(
        text.contains("unknown tool") && text.contains("base64_encode"),
        "{text}"
    );
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_by_the_agent_no_call_is_refused() {
    // A call names a tool that does not exist, a reply goes on after its
    // call, and `calculate` is only listed in the note: a parsing server
    // refuses all three when it parses.
    let local = serve(
        Server::Parsing,
        vec![
            Output::Call("encode_base64", json!({"text": "hello world"})),
            Output::CallThenMadeUp("base64_encode", json!({"text": "hello world"})),
            Output::Call("calculate", json!({"expression": "(17 + 25) * 3"})),
            Output::Text("126, and aGVsbG8gd29ybGQ=."),
        ],
    );
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default().with_preload(None), &log);
    let reply = agent
        .send("What is (17 + 25) * 3, and 'hello world' in base64?")
        .await
        .unwrap();
    assert_eq!(reply.text, "126, and aGVsbG8gd29ybGQ=.");
    assert_eq!(local.refused.load(Ordering::SeqCst), 0, "nothing refused");
    assert_eq!(
        log.lock().unwrap().as_slice(),
        [
            ("base64_encode".to_owned(), json!({"text": "hello world"})),
            (
                "calculate".to_owned(),
                json!({"expression": "(17 + 25) * 3"})
            ),
        ]
    );
    let bodies = local.bodies.lock().unwrap();
    assert_eq!(bodies.len(), 4);
    for body in bodies.iter() {
        // The tools go to the server's template; the server parses nothing.
        assert_eq!(body["tool_choice"], "none", "{body}");
        assert!(tool_names(body).contains(&"tool_info".to_owned()));
    }
    // The made-up tool was answered with the one it may have meant.
    let messages = bodies[1]["messages"].as_array().unwrap();
    let result = messages.last().unwrap();
    assert_eq!(result["role"], "tool");
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("base64_encode"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_providers_own_api_and_a_remote_server_parse_their_calls() {
    for (base_first_party, reading) in [(true, CallReading::Auto), (false, CallReading::Server)] {
        let local = serve(Server::Parsing, vec![Output::Text("Done.")]);
        let model = ModelConfig::new(WireFormat::OpenAiChat, local.base.clone(), "m")
            .with_first_party(base_first_party);
        let options = AgentOptions::default().with_call_reading(reading);
        let mut agent = Agent::new(Session::new(registry(calls())), model, options).unwrap();
        agent.send("hi").await.unwrap();
        let body = &local.bodies.lock().unwrap()[0];
        assert!(body.get("tool_choice").is_none(), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn arguments_written_as_text_go_back_as_json() {
    let local = serve(
        Server::Parsing,
        vec![
            Output::TextArguments("base64_encode", "Lazy tools"),
            Output::Call("base64_encode", json!({"text": "lazy tools"})),
            Output::Text("bGF6eSB0b29scw=="),
        ],
    );
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent.send("Convert 'lazy tools' to base64.").await.unwrap();
    assert_eq!(reply.text, "bGF6eSB0b29scw==");
    assert_eq!(local.refused.load(Ordering::SeqCst), 0);
    // The text the model wrote goes back as a JSON string, its error beside it.
    let bodies = local.bodies.lock().unwrap();
    let messages = bodies[1]["messages"].as_array().unwrap();
    let call = &messages[messages.len() - 2]["tool_calls"][0]["function"];
    assert_eq!(call["arguments"], "\"Lazy tools\"");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_that_goes_into_a_loop_is_cut_and_ends_the_turn() {
    let looping = || Output::Loop("Here is the JSON:\n", "item,qty\npen,3\n");
    let local = serve(Server::OwnTemplate, vec![looping()]);
    let log = calls();
    let mut looped = agent(&local, AgentOptions::default(), &log);
    let err = looped
        .send("Convert to JSON: item,qty / pen,3")
        .await
        .unwrap_err();
    assert!(
        matches!(err, AgentError::Repetition { ref block, chars } if block == "\nitem,qty\npen,3" && chars < 1_000),
        "{err:?}"
    );
    assert_eq!(local.bodies.lock().unwrap()[0]["stream"], true);
    // The history keeps the text up to the loop's first copy (the loop
    // is taken from where the text first repeats: the head's last line
    // break is the block's).
    assert!(
        matches!(looped.transcript().last(), Some(Turn::Assistant { text, .. }) if text == "Here is the JSON:\nitem,qty\npen,3"),
        "{:?}",
        looped.transcript().last()
    );
    // After a tool answered, the result in hand is the answer.
    let local = serve(
        Server::OwnTemplate,
        vec![
            Output::Call("base64_encode", json!({"text": "hello world"})),
            looping(),
        ],
    );
    let mut answered = agent(&local, AgentOptions::default(), &log);
    let reply = answered
        .send("Encode 'hello world' as base64")
        .await
        .unwrap();
    assert_eq!(reply.text, "aGVsbG8gd29ybGQ=");
}

/// A call as Qwen2.5-Coder-1.5B writes it when it explains it first.
const ANNOUNCED: &str = "To encode the text, you can use the `base64_encode` function. Here's how you can do it:\n\n```json\n{\n  \"name\": \"base64_encode\",\n  \"arguments\": {\n    \"text\": \"hello world\"\n  }\n}\n```\n\nThe output will be the base64-encoded form of the text, which you can paste wherever you need it.";

#[tokio::test(flavor = "multi_thread")]
async fn a_call_announced_by_name_before_any_result_is_run() {
    for server in [Server::Parsing, Server::OwnTemplate] {
        let local = serve(
            server,
            vec![
                Output::Text(ANNOUNCED),
                Output::Text("It is aGVsbG8gd29ybGQ=."),
            ],
        );
        let log = calls();
        let mut agent = agent(&local, AgentOptions::default(), &log);
        let reply = agent
            .send("Encode the text 'hello world' as base64.")
            .await
            .unwrap();
        assert_eq!(reply.text, "It is aGVsbG8gd29ybGQ=.");
        assert_eq!(
            log.lock().unwrap().as_slice(),
            [("base64_encode".to_owned(), json!({"text": "hello world"}))]
        );
        // The history holds the call, not the prose around it.
        let second = &local.bodies.lock().unwrap()[1];
        let messages = second["messages"].as_array().unwrap();
        let assistant = &messages[messages.len() - 2];
        assert_eq!(
            assistant["tool_calls"][0]["function"]["name"],
            "base64_encode"
        );
        assert!(!second.to_string().contains("Here's how you can do it"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_announced_of_a_tool_that_may_destroy_data_is_an_answer() {
    // Prose that shows how to delete a file reads the same as prose about
    // to delete it: only an explicit call deletes.
    let shown = "To delete the file, you can use the `file_delete` function. Here's how you can do it:\n\n```json\n{\"name\": \"file_delete\", \"arguments\": {\"path\": \"old.log\"}}\n```\n\nThis removes the file from the workspace for good, so make sure you no longer need it.";
    let local = serve(Server::OwnTemplate, vec![Output::Text(shown)]);
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent.send("How do I delete old.log?").await.unwrap();
    assert_eq!(reply.text, shown);
    assert_eq!(reply.tool_calls, 0);
    assert!(log.lock().unwrap().is_empty(), "nothing was deleted");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_announced_after_a_result_is_an_answer() {
    // Given the result, the model explains what else could be called: an
    // answer, not a second call.
    let after = "Done. You could also use the `calculate` function to check a sum, like this:\n\n```json\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"(17 + 25) * 3\"}}\n```\n\nThat would return the sum, which you can compare with the result above.";
    let (text, ran) =
        reply_after_encoding(Server::OwnTemplate, after, AgentOptions::default()).await;
    assert_eq!(text, after);
    assert_eq!(ran, 1, "calculate did not run");
}

/// The reply to `message` when the model writes `written` and then
/// "Done.", and the calls that reached the tools.
async fn run_written(
    server: Server,
    written: &'static str,
    message: &str,
) -> (String, Vec<(String, Value)>) {
    let local = serve(server, vec![Output::Text(written), Output::Text("Done.")]);
    let log = calls();
    let mut agent = agent(&local, AgentOptions::default(), &log);
    let reply = agent.send(message).await.unwrap();
    let ran = log.lock().unwrap().clone();
    (reply.text, ran)
}

/// What Qwen2.5-Coder-1.5B writes for a tool whose schema it was shown:
/// the arguments alone, no name.
const ARGUMENTS_ONLY: &str = "```json\n{\n  \"expression\": \"(17 + 25) * 3\"\n}\n```";

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_of_one_tools_arguments_alone_is_its_call() {
    for server in [Server::Parsing, Server::OwnTemplate] {
        let (text, ran) = run_written(server, ARGUMENTS_ONLY, "Compute (17 + 25) * 3").await;
        assert_eq!(text, "Done.");
        assert_eq!(
            ran,
            [(
                "calculate".to_owned(),
                json!({"expression": "(17 + 25) * 3"})
            )]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn arguments_alone_that_fit_no_tool_several_or_one_that_may_destroy_are_an_answer() {
    for text in [
        // Data: no tool takes these fields.
        "```json\n{\"fruit\": \"apple\", \"price\": 3}\n```",
        // `echo` and `base64_encode` both take it.
        "```json\n{\"text\": \"hello world\"}\n```",
        // Only `file_delete` takes it, and it deletes.
        "```json\n{\"path\": \"old.log\"}\n```",
        // Prose that does not name the tool the block fits.
        "You could compute it like this:\n```json\n{\"expression\": \"2 + 2\"}\n```",
    ] {
        let local = serve(Server::OwnTemplate, vec![Output::Text(text)]);
        let log = calls();
        let mut agent = agent(&local, AgentOptions::default(), &log);
        let reply = agent.send("Show me some JSON.").await.unwrap();
        assert_eq!(reply.text, text);
        assert_eq!(reply.tool_calls, 0, "{text}");
        assert!(log.lock().unwrap().is_empty(), "{text}");
    }
    // After a result, arguments written again explain the call: an answer.
    let again = "```json\n{\"expression\": \"1 + 1\"}\n```";
    let (text, ran) =
        reply_after_encoding(Server::OwnTemplate, again, AgentOptions::default()).await;
    assert_eq!(text, again);
    assert_eq!(ran, 1, "calculate did not run");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_with_a_single_quoted_string_is_run() {
    // Qwen2.5-Coder-1.5B passes a JSON document as a string this way.
    let written = "```json\n{\n  \"name\": \"base64_encode\",\n  \"arguments\": {\n    \"text\": '{\"a\": 1}'\n  }\n}\n```";
    let (text, ran) =
        run_written(Server::OwnTemplate, written, "Encode {\"a\": 1} as base64.").await;
    assert_eq!(text, "Done.");
    assert_eq!(
        ran,
        [("base64_encode".to_owned(), json!({"text": "{\"a\": 1}"}))]
    );
}
