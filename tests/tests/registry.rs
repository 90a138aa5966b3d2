//! Registry behaviour: validation at build time and contained failures at
//! call time.

use std::time::Duration;

use optimclaw::{
    CallOptions, DynamicTool, Registry, ToolContext, ToolErrorKind, ToolKind, ToolOrigin, tool,
};
use serde_json::{Value, json};

/// Panic on purpose.
#[tool]
fn explode(
    /// What to panic with.
    message: String,
) -> u8 {
    panic!("{message}")
}

/// Never finish.
#[tool]
async fn hang() -> u8 {
    std::future::pending::<()>().await;
    0
}

/// Add one.
#[tool(core)]
fn increment(
    /// The number.
    n: i64,
) -> i64 {
    n + 1
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
}

#[tokio::test]
async fn a_panic_is_caught_and_the_registry_goes_on() {
    let registry = Registry::from_linked().unwrap();
    let ctx = ToolContext::new();
    let err = registry
        .call("explode", json!({"message": "boom"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Panicked);
    assert!(err.to_string().contains("boom"), "{err}");
    assert_eq!(
        registry
            .call("increment", json!({"n": 1}), &ctx)
            .await
            .unwrap(),
        json!(2)
    );
}

// Time is what these test: it is paused, so the timers fire in order
// without waiting (tokio advances it while every task waits).
#[tokio::test(start_paused = true)]
async fn a_call_that_never_returns_times_out() {
    let registry = Registry::from_linked().unwrap();
    let err = registry
        .call_with(
            "hang",
            json!({}),
            &ToolContext::new(),
            CallOptions::default().with_timeout(Duration::from_millis(20)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout);
    assert!(err.to_string().contains("`hang`"), "{err}");

    let registry = Registry::builder()
        .call_timeout(Duration::from_millis(20))
        .build()
        .unwrap();
    let err = registry
        .call("hang", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout);
}

#[tokio::test(start_paused = true)]
async fn cancellation_is_honoured() {
    let registry = Registry::from_linked().unwrap();
    let ctx = ToolContext::new();
    let token = ctx.cancellation().clone();
    let call = registry.call("hang", json!({}), &ctx);
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    assert_eq!(result.unwrap_err().kind(), ToolErrorKind::Cancelled);
    // An already cancelled context does not start the call.
    let err = registry
        .call("increment", json!({"n": 1}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Cancelled);
}

#[tokio::test]
async fn a_made_up_name_gets_the_tools_its_words_match() {
    use optimclaw::ToolKind;
    let deferred = |name: &str, description: &str, keywords: &[&str]| {
        DynamicTool::new(name, description, object_schema())
            .kind(ToolKind::Deferred)
            .keywords(keywords.iter().map(|k| k.to_string()))
            .handler(|_ctx, _args| async { Ok(json!(null)) })
    };
    let registry = Registry::builder()
        .without_linked()
        .tools([
            deferred(
                "hash_text",
                "Hash a text with md5, sha1 or sha256.",
                &["md5", "sha256", "digest"],
            ),
            deferred(
                "make_dir",
                "Create a folder (and its parents).",
                &["folder", "mkdir", "directory"],
            ),
            deferred("weather", "The weather in a city.", &["forecast"]),
        ])
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    for (made_up, meant) in [("md5", "hash_text"), ("folder_create", "make_dir")] {
        let err = registry.call(made_up, json!({}), &ctx).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::UnknownTool);
        assert!(
            err.to_string().ends_with(&format!("did you mean {meant}?")),
            "{made_up}: {err}"
        );
    }
    // Words no tool holds suggest nothing: the model is sent to tool_info.
    let err = registry.call("capital", json!({}), &ctx).await.unwrap_err();
    assert!(err.to_string().contains("tool_info"), "{err}");
}

#[tokio::test]
async fn unknown_tools_get_the_nearest_names() {
    let registry = Registry::from_linked().unwrap();
    let err = registry
        .call("incremnt", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::UnknownTool);
    assert_eq!(
        err.to_string(),
        "unknown tool \"incremnt\"; did you mean increment?"
    );
    let err = registry
        .call("zzzzzzzz", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("tool_info"), "{err}");
    let err = registry
        .call("a\u{7}b", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("\\u{7}"),
        "control characters are escaped: {err}"
    );
}

#[tokio::test]
async fn dynamic_tools_are_called_like_linked_ones() {
    let tool = DynamicTool::new("shout", "Upper-case a text.", object_schema())
        .keywords(["loud"])
        .origin("test")
        .handler(|_ctx, args: Value| async move {
            Ok(json!(args["q"].as_str().unwrap_or_default().to_uppercase()))
        });
    let registry = Registry::builder().tool(tool).build().unwrap();
    let shout = registry.get("shout").unwrap();
    assert_eq!(shout.kind(), ToolKind::Deferred);
    assert_eq!(shout.origin(), &ToolOrigin::Dynamic("test".into()));
    let got = registry
        .call("shout", json!({"q": "hi"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(got, json!("HI"));
    // Linked tools are still there.
    assert!(registry.get("increment").is_some());
}

#[tokio::test]
async fn a_tool_without_handler_is_not_callable() {
    let registry = Registry::builder()
        .without_linked()
        .tool(
            DynamicTool::new("remote", "Only described here.", object_schema())
                .origin("manifest x.json"),
        )
        .build()
        .unwrap();
    let err = registry
        .call("remote", json!({"q": "x"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotCallable);
    assert!(err.to_string().contains("manifest x.json"), "{err}");
}

#[test]
fn building_reports_every_problem_at_once() {
    let bad_schema = DynamicTool::new("listy", "Takes a list.", json!({"type": "array"}));
    let err = Registry::builder()
        .tool(
            DynamicTool::new("increment", "Shadows a linked tool.", object_schema())
                .origin("manifest a.json"),
        )
        .tool(DynamicTool::new("has space", "Bad name.", object_schema()))
        .tool(DynamicTool::new("", "Empty name.", object_schema()))
        .tool(DynamicTool::new(
            "x".repeat(65),
            "Too long.",
            object_schema(),
        ))
        .tool(bad_schema)
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert_eq!(err.problems().len(), 5, "{text}");
    assert!(
        text.contains("duplicate tool name `increment`: defined at"),
        "{text}"
    );
    assert!(
        text.contains("tests/tests/registry.rs"),
        "the linked location is named: {text}"
    );
    assert!(
        text.contains("manifest a.json"),
        "the dynamic origin is named: {text}"
    );
    assert!(text.contains("invalid tool name \"has space\""), "{text}");
    assert!(text.contains("invalid tool name \"\""), "{text}");
    assert!(
        text.contains(&format!("invalid tool name \"{}\"", "x".repeat(65))),
        "{text}"
    );
    assert!(text.contains("tool `listy`"), "{text}");
}

#[test]
fn tools_are_sorted_by_name() {
    let registry = Registry::from_linked().unwrap();
    let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[test]
fn the_context_is_a_typed_map() {
    struct Db(&'static str);
    struct Root(String);
    let ctx = ToolContext::new()
        .with(Db("sqlite"))
        .with(Root("/w".into()));
    let copy = ctx.clone();
    assert_eq!(copy.get::<Db>().unwrap().0, "sqlite");
    assert_eq!(copy.require::<Root>().unwrap().0, "/w");
    assert!(copy.get::<u32>().is_none());
    let err = copy.require::<u32>().unwrap_err();
    assert!(err.to_string().contains("u32"), "{err}");
}

#[test]
fn linked_tools_are_valid() {
    optimclaw::testing::assert_tools_valid();
}
