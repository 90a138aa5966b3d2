//! Tool calls are traced per the OpenTelemetry GenAI conventions: one
//! `execute_tool` span per call, through a registry or a session, with the
//! tool's name, the call id, `error.type` on failure, and `tool_info`'s hit
//! count; arguments and results only when content recording is on, and
//! then redacted. (Content recording is process-wide, and a thread's own
//! subscriber can miss spans whose call sites another thread is caching at
//! that moment: so this binary holds one test, which runs its steps in
//! order.)

mod support;

// Links code mode's `run_code` tool.
use optimclaw_code as _;
use std::sync::Arc;

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolKind, telemetry};
use serde_json::{Value, json};
use support::spans::Spans;

fn registry() -> Registry {
    registry_with(LazyConfig::lazy())
}

fn registry_with(lazy: LazyConfig) -> Registry {
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    let login = DynamicTool::new(
        "login",
        "Log in to the weather service with a user name and password.",
        json!({"type": "object", "properties": {
            "user": {"type": "string"}, "password": {"type": "string"}},
            "required": ["user", "password"]}),
    )
    .kind(ToolKind::Deferred)
    .handler(|_ctx, args: Value| async move {
        Ok(json!({"greeting": format!("hello {}", args["user"].as_str().unwrap_or("")), "session": "s3cr3t-session-id"}))
    });
    let forecast = DynamicTool::new(
        "forecast",
        "Weather forecast for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
    .kind(ToolKind::Core)
    .handler(|_ctx, _args: Value| async move { Ok(json!("sunny")) });
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(lazy)
        .tools([login, forecast])
        .build()
        .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn every_call_has_an_execute_tool_span_and_content_only_when_asked() {
    // No subscriber yet: spans are disabled and calls work.
    let registry = registry();
    let out = registry
        .call("forecast", json!({"city": "Oslo"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("sunny"));

    let (spans, _guard) = Spans::install();
    let ctx = ToolContext::new().with_call_id("call_42");

    registry
        .call("forecast", json!({"city": "Paris"}), &ctx)
        .await
        .unwrap();
    let ok = &spans.named("execute_tool")[0];
    assert_eq!(ok.get("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(ok.get("gen_ai.tool.name"), Some("forecast"));
    assert_eq!(ok.get("gen_ai.tool.call.id"), Some("call_42"));
    assert_eq!(ok.get("otel.name"), Some("execute_tool forecast"));
    assert_eq!(ok.get("error.type"), None);
    assert_eq!(ok.get("gen_ai.tool.call.arguments"), None, "off by default");
    assert_eq!(ok.get("gen_ai.tool.call.result"), None, "off by default");

    // Failures carry error.type and the ERROR status, through a session too.
    let session = Session::new(registry.clone());
    let _ = session.call("forecast", json!({"town": 1}), &ctx).await;
    let _ = session.call("no_such_tool", json!({}), &ctx).await;
    let all = spans.named("execute_tool");
    assert_eq!(
        all[1].get("error.type"),
        Some("invalid_arguments"),
        "{all:?}"
    );
    assert_eq!(all[1].get("otel.status_code"), Some("ERROR"));
    assert_eq!(all[2].get("error.type"), Some("unknown_tool"));
    assert_eq!(all[2].get("gen_ai.tool.name"), Some("no_such_tool"));

    // tool_info reports its hit count (the query only with content on).
    session
        .call("tool_info", json!({"query": "weather login"}), &ctx)
        .await
        .unwrap();
    let event = spans.events("optimclaw::tool_info").pop().unwrap();
    assert_eq!(event.get("hits"), Some("1"), "{event:?}");
    assert_eq!(event.get("no_match"), Some("false"), "{event:?}");
    assert_eq!(event.get("query"), None);

    // Content on: arguments and results, credentials masked and the
    // context's output filter applied.
    telemetry::record_content(true);
    let filtered = ToolContext::new().with_output_filter(Arc::new(|text: &str| {
        text.contains("s3cr3t-session-id")
            .then(|| text.replace("s3cr3t-session-id", "[secret:SESSION]"))
    }));
    session
        .call(
            "login",
            json!({"user": "ada", "password": "hunter2-hunter2"}),
            &filtered,
        )
        .await
        .unwrap();
    session
        .call("tool_info", json!({"query": "forecast"}), &filtered)
        .await
        .unwrap();
    telemetry::record_content(false);
    let login = spans
        .named("execute_tool")
        .into_iter()
        .find(|s| s.get("gen_ai.tool.name") == Some("login"))
        .unwrap();
    let args = login.get("gen_ai.tool.call.arguments").unwrap();
    assert!(
        args.contains("ada") && args.contains("[redacted]"),
        "{args}"
    );
    assert!(!args.contains("hunter2"), "{args}");
    let result = login.get("gen_ai.tool.call.result").unwrap();
    assert!(result.contains("hello ada"), "{result}");
    assert!(!result.contains("s3cr3t-session-id"), "{result}");
    let event = spans.events("optimclaw::tool_info").pop().unwrap();
    assert_eq!(event.get("query"), Some("\"forecast\""), "{event:?}");

    // Code mode: a program's calls are execute_tool spans under its
    // execute_code span, itself under run_code's execute_tool.
    let code = registry_with(LazyConfig::lazy().with_code_mode(true));
    let out = code
        .call(
            "run_code",
            json!({"code": "return await tools.forecast({city: 'Rome'});"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(out["result"], "sunny", "{out}");
    let program = spans
        .named("execute_code")
        .pop()
        .expect("an execute_code span");
    assert_eq!(program.parent.as_deref(), Some("execute_tool"));
    assert_eq!(program.get("tool_calls"), Some("1"), "{program:?}");
    let inner = spans
        .named("execute_tool")
        .into_iter()
        .find(|s| s.get("gen_ai.tool.call.id") == Some("call_42.1"))
        .expect("the program's call has the run's call id and its number");
    assert_eq!(inner.get("gen_ai.tool.name"), Some("forecast"));
    assert_eq!(inner.parent.as_deref(), Some("execute_code"), "{inner:?}");
}
