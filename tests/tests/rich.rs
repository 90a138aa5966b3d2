//! Tools returning blocks of content (`ToolOutput`) and reporting progress
//! and log lines: what JSON-only callers see, what `call_output` gives,
//! that a tool calling another keeps its own output, that the output
//! filter reaches every text, and that a failed call hands on nothing.

use std::sync::{Arc, Mutex};

use futures_util_shim::BoxFuture;
use optimclaw::{
    CallOptions, CallReporter, Content, LazyConfig, LogLevel, Progress, Registry, ToolContext,
    ToolOutput, tool,
};
use serde_json::json;

/// `futures_util`'s boxed future, spelled out (the tests crate does not
/// depend on futures-util).
mod futures_util_shim {
    pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;
}

/// Draws a one-pixel chart.
#[tool]
fn rich_chart() -> ToolOutput {
    ToolOutput::text("one red pixel").with_content(Content::image([0u8; 30], "image/png"))
}

/// Reads a page, or fails.
#[tool]
fn rich_page(
    /// Fail instead.
    fail: bool,
) -> Result<ToolOutput, String> {
    if fail {
        return Err("no such page".into());
    }
    Ok(ToolOutput::new()
        .with_content(Content::resource_text("page://1", "text/plain", "the page"))
        .with_structured(json!({"pages": 1})))
}

/// Draws a chart through `rich_chart` and says so.
#[tool]
async fn rich_report(ctx: &ToolContext) -> ToolOutput {
    let registry = ctx.registry().expect("called through a registry");
    let inner = registry.call("rich_chart", json!({}), ctx).await.unwrap();
    ToolOutput::text(format!("the report; the chart said: {inner}"))
}

/// Works in two steps, reporting each.
#[tool]
async fn rich_steps(ctx: &ToolContext) -> String {
    ctx.progress(1.0, Some(2.0), Some("first")).await;
    ctx.log(LogLevel::Warning, "careful with hunter2").await;
    ctx.progress(2.0, Some(2.0), None).await;
    "done".to_owned()
}

fn registry() -> Registry {
    Registry::builder()
        .lazy(LazyConfig::eager())
        .build()
        .unwrap()
}

#[tokio::test]
async fn json_callers_see_the_text_and_a_line_for_each_other_block() {
    let value = registry()
        .call("rich_chart", json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, json!("one red pixel\n[image image/png, 30 B]"));
    // With a structured value, that value.
    let value = registry()
        .call("rich_page", json!({"fail": false}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, json!({"pages": 1}));
}

#[tokio::test]
async fn call_output_gives_every_block() {
    let out = registry()
        .call_output(
            "rich_chart",
            json!({}),
            &ToolContext::new(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    let rich = out.rich.expect("blocks");
    assert_eq!(rich.content.len(), 2);
    assert_eq!(rich.content[0].as_text(), Some("one red pixel"));
    assert!(
        matches!(&rich.content[1], Content::Image { mime_type, .. } if mime_type == "image/png")
    );
    // A plain tool's call has no blocks.
    let plain = registry()
        .call_output(
            "rich_steps",
            json!({}),
            &ToolContext::new(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(plain.value, json!("done"));
    assert!(plain.rich.is_none());
}

#[tokio::test]
async fn a_failed_call_hands_on_its_error_and_no_blocks() {
    let err = registry()
        .call_output(
            "rich_page",
            json!({"fail": true}),
            &ToolContext::new(),
            CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no such page"), "{err}");
}

#[tokio::test]
async fn a_tool_calling_another_keeps_its_own_output() {
    let out = registry()
        .call_output(
            "rich_report",
            json!({}),
            &ToolContext::new(),
            CallOptions::default(),
        )
        .await
        .unwrap();
    let rich = out.rich.expect("the report's blocks");
    assert_eq!(rich.content.len(), 1, "{rich:?}");
    let text = rich.content[0].as_text().unwrap();
    assert!(
        text.starts_with("the report; the chart said: \"one red pixel"),
        "the inner call gave its JSON value to its caller: {text}"
    );
}

#[tokio::test]
async fn the_output_filter_reaches_every_text_block() {
    let ctx = ToolContext::new().with_output_filter(Arc::new(|text: &str| {
        text.contains("page")
            .then(|| text.replace("page", "[hidden]"))
    }));
    let out = registry()
        .call_output(
            "rich_page",
            json!({"fail": false}),
            &ctx,
            CallOptions::default(),
        )
        .await
        .unwrap();
    let rich = out.rich.unwrap();
    assert_eq!(
        rich.content[0],
        Content::resource_text("page://1", "text/plain", "the [hidden]"),
        "texts are filtered, a URI is an address and stays"
    );
}

/// Records what tools report.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl CallReporter for Recorder {
    fn progress(&self, update: Progress) -> BoxFuture<'static, ()> {
        self.0.lock().unwrap().push(format!(
            "progress {}/{} {}",
            update.progress,
            update.total.unwrap_or(0.0),
            update.message.unwrap_or_default()
        ));
        Box::pin(async {})
    }
    fn log(&self, level: LogLevel, message: String) -> BoxFuture<'static, ()> {
        self.0.lock().unwrap().push(format!("{level:?} {message}"));
        Box::pin(async {})
    }
}

#[tokio::test]
async fn progress_and_log_lines_go_to_the_reporter_through_the_filter() {
    let recorder = Arc::new(Recorder::default());
    let ctx = ToolContext::new()
        .with_reporter(recorder.clone())
        .with_output_filter(Arc::new(|text: &str| {
            text.contains("hunter2")
                .then(|| text.replace("hunter2", "[secret]"))
        }));
    registry()
        .call("rich_steps", json!({}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        *recorder.0.lock().unwrap(),
        [
            "progress 1/2 first",
            "Warning careful with [secret]",
            "progress 2/2 "
        ]
    );
    // Without a reporter the same tool runs and reports nowhere.
    let value = registry()
        .call("rich_steps", json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(value, json!("done"));
}

/// Returns a scan as a PDF, with a GIF preview Gemini does not take.
#[tool]
fn rich_scan() -> ToolOutput {
    ToolOutput::text("the scan")
        .with_content(Content::resource_blob(
            "file:///scan.pdf",
            "application/pdf",
            b"%PDF-1.7 scan",
        ))
        .with_content(Content::image([7u8; 12], "image/gif"))
}

/// Gemini `functionResponse` parts built from real calls (an image, a
/// PDF with a GIF left out, a structured value, an error), written to
/// `target/agent-bodies/gemini/` for the google-genai SDK to validate
/// (`tests/sdk/validate_agent_bodies.py`).
#[tokio::test]
async fn gemini_function_responses_carry_media_parts() {
    use optimclaw::provider::gemini_function_response;
    let registry = registry();
    let call = |name: &'static str, args: serde_json::Value| {
        let registry = registry.clone();
        async move {
            registry
                .call_output(name, args, &ToolContext::new(), CallOptions::default())
                .await
        }
    };
    let chart = call("rich_chart", json!({})).await.unwrap();
    let scan = call("rich_scan", json!({})).await.unwrap();
    let page = call("rich_page", json!({"fail": false})).await.unwrap();
    let failed = call("rich_page", json!({"fail": true})).await.unwrap_err();
    let parts = [
        (
            "chart",
            gemini_function_response("rich_chart", Some("c1"), Ok(&chart)),
        ),
        (
            "scan",
            gemini_function_response("rich_scan", Some("c2"), Ok(&scan)),
        ),
        (
            "page",
            gemini_function_response("rich_page", None, Ok(&page)),
        ),
        (
            "error",
            gemini_function_response("rich_page", Some("c3"), Err(&failed.to_string())),
        ),
    ];
    let chart_part = &parts[0].1["functionResponse"];
    assert_eq!(
        chart_part["parts"][0]["inlineData"]["mimeType"],
        "image/png"
    );
    assert_eq!(
        chart_part["response"]["output"],
        "one red pixel\n[image image/png, 30 B]"
    );
    let scan_part = &parts[1].1["functionResponse"];
    assert_eq!(
        scan_part["parts"],
        json!([{"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0xLjcgc2Nhbg=="}}])
    );
    assert_eq!(
        scan_part["response"]["left_out"],
        json!(["an image of type image/gif, which this API is not sent"])
    );
    assert_eq!(
        parts[2].1["functionResponse"]["response"]["output"],
        json!({"pages": 1})
    );
    assert!(parts[2].1["functionResponse"].get("parts").is_none());
    let error = parts[3].1["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(error.contains("no such page"), "{error}");

    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agent-bodies/gemini");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, part) in &parts {
        std::fs::write(dir.join(format!("{name}-part.json")), part.to_string()).unwrap();
    }
}
