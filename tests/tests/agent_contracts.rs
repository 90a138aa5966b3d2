//! The agent against the providers' real contracts: the defaults (bridge,
//! a matching tool attached before the model asks), Anthropic prompt
//! caching as the API defines it (at most 4 breakpoints, none on a
//! deferred tool, TTLs, the automatic form), OpenAI's `prompt_cache_key`,
//! cache usage as both APIs report it, and streamed replies in both wire
//! formats, including streams that break.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use optimclaw::{LazyConfig, LoadStrategy, Registry, Session, tool};
use optimclaw_agent::{
    Agent, AgentError, AgentEvent, AgentOptions, ApiKey, CacheTtl, ModelConfig, PromptCache,
    WireFormat,
};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

static ENCODED: AtomicUsize = AtomicUsize::new(0);

/// Encode text as base64.
#[tool(deferred, keywords = ["base64", "encode"])]
fn encode_base64(
    /// The text.
    text: String,
) -> String {
    ENCODED.fetch_add(1, Ordering::SeqCst);
    format!("base64({text})")
}

/// Tell the weather of a city.
#[tool(deferred, keywords = ["weather", "forecast"])]
fn city_weather(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Say hello.
#[tool(core)]
fn greet() -> String {
    "hello".into()
}

/// One scripted answer of the stand-in.
enum Answer {
    Json(Value),
    /// Server-sent events, then the connection closes.
    Events(String),
    /// These bytes, then silence for the duration.
    Stall(String, Duration),
}

/// A stand-in endpoint that answers requests in order and records bodies.
struct Endpoint {
    base: String,
    fake: FakeEndpoint,
}

fn endpoint(answers: Vec<Answer>) -> Endpoint {
    let fake = FakeEndpoint::script(answers.into_iter().map(|answer| match answer {
        Answer::Json(v) => Reply::json(200, &v),
        Answer::Events(events) => Reply::events(events),
        Answer::Stall(first, wait) => Reply::events(first).stalled(wait),
    }));
    Endpoint {
        base: fake.url(""),
        fake,
    }
}

impl Endpoint {
    fn seen(&self) -> Vec<Value> {
        self.fake.bodies()
    }
}

fn registry() -> Registry {
    Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap()
}

fn agent(end: &Endpoint, format: WireFormat, options: AgentOptions) -> Agent {
    agent_with(end, format, options, LazyConfig::lazy())
}

fn agent_with(
    end: &Endpoint,
    format: WireFormat,
    options: AgentOptions,
    lazy: LazyConfig,
) -> Agent {
    let base = match format {
        WireFormat::OpenAiChat => format!("{}/v1", end.base),
        WireFormat::AnthropicMessages => end.base.clone(),
    };
    // The stand-in plays the providers' own APIs.
    let model = ModelConfig::new(format, base, "claude-sonnet-4-5")
        .with_api_key(ApiKey::new("k"))
        .with_first_party(true);
    let options = options.with_retries(2, Duration::from_millis(5), Duration::from_secs(1));
    Agent::new(Session::with_lazy(registry(), lazy), model, options).unwrap()
}

fn openai_call(name: &str, args: Value) -> Answer {
    Answer::Json(
        json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}}]}),
    )
}

fn openai_text(text: &str, usage: Value) -> Answer {
    Answer::Json(json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": text}}], "usage": usage}))
}

fn anthropic_call(name: &str, input: Value) -> Answer {
    Answer::Json(
        json!({"type": "message", "role": "assistant", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "t1", "name": name, "input": input}],
        "usage": {"input_tokens": 5, "output_tokens": 1}}),
    )
}

fn anthropic_text(text: &str, usage: Value) -> Answer {
    Answer::Json(
        json!({"type": "message", "role": "assistant", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": text}], "usage": usage}),
    )
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
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

fn markers(v: &Value) -> usize {
    match v {
        Value::Object(m) => {
            usize::from(m.contains_key("cache_control")) + m.values().map(markers).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(markers).sum(),
        _ => 0,
    }
}

const ASK: &str = "Encode the text hello as base64.";

#[tokio::test]
async fn by_default_the_matching_tool_goes_after_the_users_words_not_into_the_tools() {
    let end = endpoint(vec![
        openai_call(
            "call_tool",
            json!({"name": "encode_base64", "arguments": {"text": "hello"}}),
        ),
        openai_text(
            "Done.",
            json!({"prompt_tokens": 10, "completion_tokens": 1}),
        ),
        openai_call(
            "call_tool",
            json!({"name": "encode_base64", "arguments": {"text": "again"}}),
        ),
        openai_text(
            "Done again.",
            json!({"prompt_tokens": 10, "completion_tokens": 1}),
        ),
    ]);
    let mut agent = agent(&end, WireFormat::OpenAiChat, AgentOptions::default());
    assert_eq!(agent.send(ASK).await.unwrap().text, "Done.");
    let first = &end.seen()[0];
    let user = first["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(user["role"], "user");
    assert_eq!(
        user["content"][0],
        json!({"type": "text", "text": ASK}),
        "the user's words unchanged"
    );
    let attached = user["content"][1]["text"].as_str().unwrap();
    assert!(
        attached.contains("\"name\":\"encode_base64\""),
        "{attached}"
    );
    assert!(
        attached.contains("call_tool"),
        "says how to call it: {attached}"
    );
    let names = tool_names(first);
    assert!(names.contains(&"call_tool".to_owned()) && names.contains(&"tool_info".to_owned()));
    assert!(
        !names.contains(&"encode_base64".to_owned()),
        "the tools array stays fixed"
    );
    assert_eq!(tool_names(&end.seen()[1]), names, "byte-stable tools");
    // The same need again: nothing attached a second time.
    agent
        .send("Now encode the text again as base64.")
        .await
        .unwrap();
    let third = &end.seen()[2];
    let user = third["messages"].as_array().unwrap().last().unwrap();
    assert!(user["content"].is_string(), "not attached twice: {user}");
    assert_eq!(agent.session().attached(), ["encode_base64"]);
}

/// The text attached after the user's words in a request's last message.
fn attachment(body: &Value) -> String {
    let user = body["messages"].as_array().unwrap().last().unwrap();
    user["content"][1]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_first_attachment_explains_itself_and_later_ones_only_say_how_to_call() {
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 1});
    let end = endpoint(vec![
        openai_text("Done.", usage.clone()),
        openai_text("Done.", usage),
    ]);
    let mut agent = agent(&end, WireFormat::OpenAiChat, AgentOptions::default());
    agent.send(ASK).await.unwrap();
    agent
        .send("What is the weather forecast for Paris?")
        .await
        .unwrap();
    let (first, later) = (attachment(&end.seen()[0]), attachment(&end.seen()[1]));
    assert!(first.contains("\"name\":\"encode_base64\""), "{first}");
    assert!(later.contains("\"name\":\"city_weather\""), "{later}");
    for text in [&first, &later] {
        assert!(text.starts_with("[Tools attached"), "{text}");
        assert!(text.contains("`call_tool`"), "says how to call: {text}");
    }
    assert!(
        first.contains("ignore them if they do not help"),
        "the first says what attachments are: {first}"
    );
    let header = |t: &str| t.lines().next().unwrap().len();
    assert!(
        header(&later) < header(&first) / 2,
        "a later header is short, read again by every later request: {later}"
    );
    assert_eq!(
        agent.session().attached(),
        ["encode_base64", "city_weather"]
    );
}

#[tokio::test]
async fn anthropic_requests_mark_at_most_four_breakpoints_where_they_pay() {
    let end = endpoint(vec![
        anthropic_call(
            "call_tool",
            json!({"name": "encode_base64", "arguments": {"text": "hi"}}),
        ),
        anthropic_text(
            "Done.",
            json!({"input_tokens": 3, "output_tokens": 2, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 800}),
        ),
    ]);
    let mut agent = agent(&end, WireFormat::AnthropicMessages, AgentOptions::default());
    agent.send(ASK).await.unwrap();
    for body in end.seen() {
        assert!(markers(&body) <= 4, "{body}");
        assert_eq!(
            body["system"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
        let tools = body["tools"].as_array().unwrap();
        assert!(
            tools.last().unwrap().get("cache_control").is_some(),
            "the last tool"
        );
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap()["content"].as_array().unwrap();
        assert!(
            last.last().unwrap().get("cache_control").is_some(),
            "the latest message"
        );
    }
    // The user's words and the attached tool are two blocks of one message.
    let user = &end.seen()[0]["messages"][0]["content"];
    assert_eq!(user[0]["text"], ASK);
    assert!(user[1]["text"].as_str().unwrap().contains("encode_base64"));
    let usage = &agent.usage()[1];
    assert_eq!(usage.cache_write_tokens, Some(1200));
    assert_eq!(usage.cached_input_tokens, Some(800));
}

#[tokio::test]
async fn a_deferred_tool_never_carries_cache_control_and_the_ttl_and_forms_are_kept() {
    let end = endpoint(vec![
        anthropic_text("Hi.", json!({"input_tokens": 1, "output_tokens": 1})),
        anthropic_text("Hi.", json!({"input_tokens": 1, "output_tokens": 1})),
        anthropic_text("Hi.", json!({"input_tokens": 1, "output_tokens": 1})),
    ]);
    let native = LazyConfig::lazy().with_strategy(LoadStrategy::Native);
    let hour = AgentOptions::default().with_cache(PromptCache::Breakpoints, CacheTtl::OneHour);
    let mut a = agent_with(&end, WireFormat::AnthropicMessages, hour, native.clone());
    a.send("hello").await.unwrap();
    let body = &end.seen()[0];
    for tool in body["tools"].as_array().unwrap() {
        if tool["defer_loading"] == true {
            assert!(tool.get("cache_control").is_none(), "{tool}");
        }
    }
    assert!(markers(body) <= 4);
    assert_eq!(body["system"][0]["cache_control"]["ttl"], "1h");
    let auto = AgentOptions::default().with_cache(PromptCache::Automatic, CacheTtl::FiveMinutes);
    let mut a = agent_with(&end, WireFormat::AnthropicMessages, auto, native.clone());
    a.send("hello").await.unwrap();
    let body = &end.seen()[1];
    assert_eq!(markers(body), 1);
    assert_eq!(body["cache_control"], json!({"type": "ephemeral"}));
    let off = AgentOptions::default().with_cache(PromptCache::Off, CacheTtl::FiveMinutes);
    let mut a = agent_with(&end, WireFormat::AnthropicMessages, off, native);
    a.send("hello").await.unwrap();
    assert_eq!(markers(&end.seen()[2]), 0);
}

#[tokio::test]
async fn openai_gets_the_prompt_cache_key_and_reports_cached_tokens() {
    let end = endpoint(vec![openai_text(
        "Hi.",
        json!({"prompt_tokens": 2000, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 1536}}),
    )]);
    let options = AgentOptions::default().with_prompt_cache_key("user-42");
    let mut agent = agent(&end, WireFormat::OpenAiChat, options);
    agent.send("hello").await.unwrap();
    assert_eq!(end.seen()[0]["prompt_cache_key"], "user-42");
    assert_eq!(agent.usage()[0].cached_input_tokens, Some(1536));
    assert_eq!(agent.usage()[0].input_tokens, Some(2000));
}

fn sse(events: &[(Option<&str>, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| match name {
            Some(n) => format!("event: {n}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        })
        .collect()
}

fn openai_chunk(delta: Value, finish: Option<&str>) -> (Option<&'static str>, Value) {
    (
        None,
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
    )
}

/// Two parallel calls whose pieces interleave, split anywhere.
fn openai_parallel_stream(done: bool) -> String {
    let mut events = vec![
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "city_weather", "arguments": ""}}]}),
            None,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 1, "id": "b", "type": "function", "function": {"name": "city_weather", "arguments": "{\"ci"}}]}),
            None,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": \"Oslo\"}"}}]}),
            None,
        ),
        openai_chunk(
            json!({"tool_calls": [{"index": 1, "function": {"arguments": "ty\": \"Rome\"}"}}]}),
            None,
        ),
        openai_chunk(json!({}), Some("tool_calls")),
    ];
    if !done {
        return sse(&events);
    }
    events.push((None, json!({"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 4}})));
    sse(&events) + "data: [DONE]\n\n"
}

fn openai_text_stream() -> String {
    sse(&[
        openai_chunk(json!({"role": "assistant", "content": "Sunny "}), None),
        openai_chunk(json!({"content": "in both."}), None),
        openai_chunk(json!({}), Some("stop")),
    ]) + "data: [DONE]\n\n"
}

#[tokio::test]
async fn openai_streams_text_as_deltas_and_assembles_interleaved_calls() {
    let end = endpoint(vec![
        Answer::Events(openai_parallel_stream(true)),
        Answer::Events(openai_text_stream()),
    ]);
    let mut agent = agent(
        &end,
        WireFormat::OpenAiChat,
        AgentOptions::default().with_stream(true).with_preload(None),
    );
    let mut shown = String::new();
    let mut results = Vec::new();
    let reply = agent
        .send_with("Weather in Oslo and Rome?", |e| match e {
            AgentEvent::TextDelta(t) => shown.push_str(t),
            AgentEvent::ToolResult(o) => results.push(o.content.clone()),
            _ => {}
        })
        .await
        .unwrap();
    assert_eq!(shown, "Sunny in both.");
    assert_eq!(reply.text, "Sunny in both.");
    assert_eq!(reply.tool_calls, 2);
    results.sort();
    assert_eq!(results, ["\"sunny in Oslo\"", "\"sunny in Rome\""]);
    let body = &end.seen()[0];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        agent.usage()[0].input_tokens,
        Some(7),
        "usage from the stream"
    );
}

fn anthropic_tool_stream(complete: bool) -> String {
    let mut events = vec![
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "c",
            "usage": {"input_tokens": 9, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "call_tool", "input": {}}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"name\": \"encode_base64\", "}}),
        ),
    ];
    if complete {
        events.extend([
            (Some("content_block_delta"), json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"arguments\": {\"text\": \"x\"}}"}})),
            (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 1})),
            (Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 12}})),
            (Some("message_stop"), json!({"type": "message_stop"})),
        ]);
    }
    sse(&events)
}

fn anthropic_text_stream() -> String {
    sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "c", "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Encoded."}}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ])
}

#[tokio::test]
async fn anthropic_streams_and_a_stream_cut_mid_way_is_retried_before_any_tool_runs() {
    let end = endpoint(vec![
        Answer::Events(anthropic_tool_stream(false)),
        Answer::Events(anthropic_tool_stream(true)),
        Answer::Events(anthropic_text_stream()),
    ]);
    let before = ENCODED.load(Ordering::SeqCst);
    let mut agent = agent(
        &end,
        WireFormat::AnthropicMessages,
        AgentOptions::default().with_stream(true).with_preload(None),
    );
    let mut retries = Vec::new();
    let reply = agent
        .send_with("Encode x.", |e| {
            if let AgentEvent::Retry { reason, .. } = e {
                retries.push(reason.to_owned());
            }
        })
        .await
        .unwrap();
    assert_eq!(reply.text, "Encoded.");
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(retries[0].contains("message_stop"), "{retries:?}");
    assert_eq!(
        ENCODED.load(Ordering::SeqCst) - before,
        1,
        "the tool ran once, on the complete reply"
    );
    assert_eq!(end.seen()[0]["stream"], true);
    assert_eq!(agent.usage()[0].cached_input_tokens, Some(100));
    assert_eq!(agent.usage()[0].output_tokens, Some(12));
}

#[tokio::test]
async fn a_malformed_event_is_retried_and_an_error_event_ends_with_its_message() {
    let end = endpoint(vec![
        Answer::Events("data: {not json\n\n".into()),
        Answer::Events(openai_text_stream()),
    ]);
    let mut retried = agent(
        &end,
        WireFormat::OpenAiChat,
        AgentOptions::default().with_stream(true).with_preload(None),
    );
    assert_eq!(retried.send("hi").await.unwrap().text, "Sunny in both.");

    let error = sse(&[(
        Some("error"),
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long"}}),
    )]);
    let end = endpoint(vec![Answer::Events(error)]);
    let mut refused = agent(
        &end,
        WireFormat::AnthropicMessages,
        AgentOptions::default().with_stream(true).with_preload(None),
    );
    let err = refused.send("hi").await.unwrap_err();
    assert!(matches!(err, AgentError::Rejected { .. }), "{err}");
    assert!(err.to_string().contains("prompt is too long"), "{err}");
    assert_eq!(end.seen().len(), 1, "not retried");
}

#[tokio::test]
async fn a_stalled_stream_ends_in_a_clear_error_not_a_hang() {
    let first = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"c\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";
    let stall = || Answer::Stall(first.to_owned(), Duration::from_secs(3));
    let end = endpoint(vec![stall(), stall(), stall()]);
    let options = AgentOptions::default()
        .with_stream(true)
        .with_preload(None)
        .with_stream_idle_timeout(Duration::from_millis(200));
    let mut agent = agent(&end, WireFormat::AnthropicMessages, options);
    let started = std::time::Instant::now();
    let err = agent.send("hi").await.unwrap_err();
    assert!(err.to_string().contains("sent nothing for"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "gave up on the idle time, not the stall"
    );
}
