//! `assistant chat` in-process: one message through the catalog against a
//! local OpenAI-compatible server, and prompt-only jobs run by the model.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use assistant::chat::{self, ChatSettings};
use assistant::{App, AppConfig};
use optimclaw::{LazyConfig, Registry};
use optimclaw_agent::{ApiKey, CacheTtl, ListLoaded, ModelConfig, PromptCache, WireFormat};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

/// Answers every chat completion request with the next reply; records the
/// request bodies.
fn model(replies: Vec<Value>) -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let mut replies = replies.into_iter();
    let endpoint = FakeEndpoint::start(move |request| {
        record.lock().unwrap().push(request.json());
        let message = replies
            .next()
            .unwrap_or_else(|| json!({"role": "assistant", "content": "(no more)"}));
        Reply::json(
            200,
            &json!({
                "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }),
        )
    });
    (endpoint.url("/v1"), seen)
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}
    ]})
}

/// The assistant in a temporary home, and its lazy catalog.
fn catalog() -> (tempfile::TempDir, App, Registry) {
    let home = tempfile::tempdir().unwrap();
    let app = App::open(AppConfig::new(home.path())).unwrap();
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    (home, app, registry)
}

fn settings(base: &str) -> ChatSettings {
    ChatSettings {
        model: ModelConfig::new(WireFormat::OpenAiChat, base, "m")
            .with_api_key(ApiKey::new("sk-x")),
        max_steps: 6,
        max_searches: 3,
        native_deferral: false,
        strict: false,
        lazy: LazyConfig::lazy(),
        preload: true,
        cache: PromptCache::default(),
        cache_ttl: CacheTtl::default(),
        prompt_cache_key: None,
        stream: false,
        compaction: None,
        text_tools: false,
        list_loaded: ListLoaded::Auto,
        first_call: optimclaw_agent::FirstCall::Auto,
        call_reading: optimclaw_agent::CallReading::Auto,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_runs_catalog_tools_and_prints_the_answer_and_tool_lines() {
    let (base, seen) = model(vec![
        call(
            "c1",
            "tool_info",
            json!({"query": "calculate an expression"}),
        ),
        call("c2", "calculate", json!({"expression": "(3 + 4) * 6"})),
        json!({"role": "assistant", "content": "It is 42."}),
    ]);
    let (_home, app, registry) = catalog();
    let mut agent = settings(&base).agent(registry, app.context()).unwrap();
    let (mut out, mut log) = (Vec::new(), Vec::new());
    chat::once(&mut agent, "What is (3+4)*6?", &mut out, &mut log)
        .await
        .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "It is 42.\n");
    let log = String::from_utf8(log).unwrap();
    assert!(log.contains("→ tool_info"), "{log}");
    assert!(log.contains("← calculate ok"), "{log}");
    assert!(log.contains("3 request(s)"), "{log}");
    let seen = seen.lock().unwrap();
    let system = seen[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with(chat::SYSTEM) && system.contains("calculate"),
        "{system}"
    );
    let last_tool = seen[2]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last_tool["content"], "42");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_only_jobs_are_answered_by_the_model() {
    let (base, _seen) = model(vec![
        json!({"role": "assistant", "content": "Summary: all quiet."}),
    ]);
    let (_home, app, registry) = catalog();
    let ctx = app.context();
    let job = registry
        .call("job_create", json!({"prompt": "Summarize the day"}), &ctx)
        .await
        .unwrap();
    app.jobs
        .set_prompt_runner(settings(&base).prompt_runner(registry.clone(), ctx.clone()));
    app.jobs.start(registry.clone(), ctx.clone(), 1);
    let id = job["id"].clone();
    for _ in 0..200 {
        let status = registry
            .call("job_status", json!({"id": id}), &ctx)
            .await
            .unwrap();
        if status["status"] == "done" {
            assert_eq!(
                status["result"]["answer"], "Summary: all quiet.",
                "{status}"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the prompt-only job never finished");
}
