//! Typed shared state: a tool takes `&T`, the registry holds the `T`, and a
//! registry without it does not build.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use optimclaw::{MissingState, Registry, Session, ToolContext, ToolError, tool};
use serde_json::json;

/// The notes, shared by every call.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

/// Calls counted.
#[derive(Default)]
struct Counter(AtomicUsize);

/// Add a note.
#[tool]
fn note_add(
    notes: &Notes,
    /// The note.
    text: String,
) -> usize {
    let mut list = notes.0.lock().unwrap();
    list.push(text);
    list.len()
}

/// Count the notes, asynchronously, counting the call too.
#[tool(core)]
async fn note_count(notes: &Notes, counter: &Counter, ctx: &ToolContext) -> usize {
    counter.0.fetch_add(1, Ordering::SeqCst);
    tokio::task::yield_now().await;
    let _ = ctx.call_id();
    notes.0.lock().unwrap().len()
}

/// A tool with its own error type, which converts from `MissingState`.
#[derive(Debug)]
enum NoteError {
    Missing(MissingState),
}

impl std::fmt::Display for NoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoteError::Missing(m) => write!(f, "{m}"),
        }
    }
}

impl From<MissingState> for NoteError {
    fn from(m: MissingState) -> Self {
        NoteError::Missing(m)
    }
}

/// A per-call value, from the call's context.
#[derive(Debug)]
struct Caller(String);

/// Say who calls.
#[tool]
fn whoami(ctx: &ToolContext) -> Result<String, NoteError> {
    Ok(ctx.require::<Caller>()?.0.clone())
}

fn registry() -> Registry {
    Registry::builder()
        .state(Notes::default())
        .state(Counter::default())
        .build()
        .unwrap()
}

#[test]
fn a_registry_without_the_state_names_the_tool_the_parameter_and_the_type() {
    let err = Registry::builder()
        .state(Notes::default())
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("tool `note_count`")
            && text.contains("Counter")
            && text.contains("parameter `counter`")
            && text.contains(".state("),
        "{text}"
    );
    assert_eq!(err.problems().len(), 1, "{text}");
    let err = Registry::from_linked().unwrap_err();
    assert_eq!(err.problems().len(), 3, "{err}");
}

#[test]
fn state_is_not_part_of_the_schema() {
    let registry = registry();
    let schema = registry.get("note_add").unwrap().input_schema();
    assert_eq!(schema["required"], json!(["text"]));
    assert!(schema["properties"].get("notes").is_none());
    let count = registry.get("note_count").unwrap().input_schema();
    assert_eq!(count["properties"], json!({}));
}

#[tokio::test]
async fn sync_and_async_tools_share_the_registrys_state() {
    let registry = registry();
    let ctx = ToolContext::new();
    for text in ["milk", "eggs"] {
        registry
            .call("note_add", json!({"text": text}), &ctx)
            .await
            .unwrap();
    }
    let n = registry.call("note_count", json!({}), &ctx).await.unwrap();
    assert_eq!(n, 2);
    // Through a session too, and with an unknown field refused as before.
    let session = Session::new(registry.clone());
    assert_eq!(
        session.call("note_count", json!({}), &ctx).await.unwrap(),
        2
    );
    let err = registry
        .call("note_add", json!({"text": "x", "notes": []}), &ctx)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("notes"), "{err}");
}

#[tokio::test]
async fn a_missing_context_value_works_with_question_mark_in_a_tools_own_error() {
    let registry = registry();
    let err = registry
        .call("whoami", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Caller"), "{err}");
    let ctx = ToolContext::new().with(Caller("ada".into()));
    assert_eq!(
        registry.call("whoami", json!({}), &ctx).await.unwrap(),
        "ada"
    );
    // And in a tool returning ToolError.
    let empty = ToolContext::new();
    let missing: Result<&Caller, ToolError> = empty.require::<Caller>().map_err(Into::into);
    assert!(missing.unwrap_err().to_string().contains("Caller"));
}
