//! Lazy tool loading end to end: configuration, what goes to the model,
//! `tool_info`, sessions, manifests and token counts.

use std::path::PathBuf;
use std::sync::Arc;

use optimclaw::config::{LAZY_TOOLS_VAR, parse_flag};
use optimclaw::manifest::{ManifestOptions, load_manifest, parse_manifest};
use optimclaw::prompt::NOTE_PREFIX;
use optimclaw::tokens::{Encoding, compare};
use optimclaw::{
    DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolError, ToolErrorKind, tool,
};
use serde_json::{Value, json};

/// Create a new background job with the given prompt and priority.
#[tool(deferred, keywords = ["background", "schedule", "task"])]
async fn job_create(
    /// What the job should do.
    prompt: String,
    /// 1 is most urgent, 10 least.
    #[arg(default = 5)]
    priority: u8,
    /// Give up after this many seconds.
    #[arg(default = 300)]
    timeout_secs: u64,
) -> Result<Value, ToolError> {
    if prompt.trim().is_empty() {
        return Err(ToolError::new(
            "the prompt is empty; say what the job should do",
        ));
    }
    Ok(json!({"id": "job-1", "prompt": prompt, "priority": priority, "timeout_secs": timeout_secs}))
}

/// Report the status of a background job.
#[tool(keywords = ["background", "progress"])]
fn job_status(
    /// The job's id.
    id: String,
) -> String {
    format!("{id}: running")
}

/// Cancel a running background job.
#[tool(keywords = ["stop", "abort"])]
fn job_cancel(
    /// The job's id.
    id: String,
) -> String {
    format!("{id}: cancelled")
}

/// Store a secret value under a name, encrypted at rest.
#[tool(keywords = ["credential", "password", "token"])]
fn secrets_set(
    /// The secret's name.
    name: String,
    /// The value.
    value: String,
) -> bool {
    !name.is_empty() && !value.is_empty()
}

/// Return the text it is given.
#[tool(core)]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

fn lazy_registry() -> Registry {
    Registry::builder().lazy(append()).build().unwrap()
}

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../corpora")
        .join(path)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("optimclaw-lazy-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------- configuration ----------

#[test]
fn flags_accept_every_spelling_in_any_case() {
    for on in ["1", "true", "TRUE", "on", "On", "yes", "YES"] {
        assert_eq!(parse_flag(on), Some(true), "{on}");
    }
    for off in ["0", "false", "False", "off", "OFF", "no", "No", ""] {
        assert_eq!(parse_flag(off), Some(false), "{off}");
    }
    assert_eq!(parse_flag("maybe"), None);
}

#[test]
fn unset_means_eager() {
    assert!(!LazyConfig::from_sources(None, None).unwrap().enabled);
    let missing = temp_dir("missing").join("no-such.env");
    assert!(
        !LazyConfig::from_sources(None, Some(&missing))
            .unwrap()
            .enabled
    );
}

#[test]
fn the_process_environment_wins_over_the_dotenv_file() {
    let dir = temp_dir("precedence");
    let file = dir.join(".env");
    std::fs::write(&file, format!("# settings\nOTHER=x\n{LAZY_TOOLS_VAR}=1\n")).unwrap();
    assert!(
        LazyConfig::from_sources(None, Some(&file)).unwrap().enabled,
        "read from .env"
    );
    assert!(
        !LazyConfig::from_sources(Some("0"), Some(&file))
            .unwrap()
            .enabled,
        "process wins"
    );
    assert!(LazyConfig::from_sources(Some("on"), None).unwrap().enabled);
    // Reading the file does not change the process environment.
    assert!(std::env::var("OTHER").is_err());
}

#[test]
fn invalid_values_name_the_variable_the_value_and_the_accepted_values() {
    let err = LazyConfig::from_sources(Some("maybe"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("OPTIMCLAW_LAZY_TOOLS=\"maybe\""), "{err}");
    assert!(err.contains("1/0, true/false, on/off, yes/no"), "{err}");
    let dir = temp_dir("invalid");
    let file = dir.join(".env");
    std::fs::write(&file, format!("{LAZY_TOOLS_VAR}=sometimes\n")).unwrap();
    let err = LazyConfig::from_sources(None, Some(&file))
        .unwrap_err()
        .to_string();
    assert!(err.contains("sometimes") && err.contains(".env"), "{err}");
}

#[test]
fn two_registries_in_one_process_can_differ() {
    let a = Registry::builder().lazy(append()).build().unwrap();
    let b = Registry::builder()
        .lazy(LazyConfig::eager())
        .build()
        .unwrap();
    assert!(a.lazy_config().enabled);
    assert!(!b.lazy_config().enabled);
    assert!(Session::new(a.clone()).prompt().note.is_some());
    assert!(Session::new(b).prompt().note.is_none());
    // A session can override its registry.
    assert!(
        Session::with_lazy(a, LazyConfig::eager())
            .prompt()
            .note
            .is_none()
    );
}

// ---------- what goes to the model ----------

#[test]
fn eager_sends_every_tool_but_tool_info_sorted() {
    let registry = lazy_registry();
    let prompt = registry.prompt::<&str>(&LazyConfig::eager(), &[]);
    let names = prompt.tool_names();
    assert!(names.contains(&"job_create") && names.contains(&"echo"));
    assert!(!names.contains(&"tool_info"));
    assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    assert!(prompt.note.is_none());
}

#[test]
fn lazy_sends_core_tools_tool_info_and_the_note() {
    let registry = lazy_registry();
    let prompt = registry.prompt::<&str>(&append(), &[]);
    assert_eq!(prompt.tool_names(), ["echo", "tool_info"]);
    assert_eq!(
        prompt.note.as_deref().unwrap(),
        format!("{NOTE_PREFIX}job_cancel, job_create, job_status, secrets_set")
    );
    let tool_info = &prompt.specs()[1];
    assert_eq!(
        tool_info["parameters"]["properties"]["max_results"]["default"],
        5
    );
    assert_eq!(tool_info["parameters"]["required"], json!(["query"]));
}

#[test]
fn the_prompt_is_identical_across_builds() {
    let a = lazy_registry();
    let b = lazy_registry();
    let pa = a.prompt(&append(), &["job_status"]);
    let pb = b.prompt(&append(), &["job_status"]);
    assert_eq!(
        serde_json::to_string(&pa.specs()).unwrap(),
        serde_json::to_string(&pb.specs()).unwrap()
    );
    assert_eq!(pa.note, pb.note);
}

#[test]
fn large_catalogs_are_grouped_and_grouped_tools_are_still_found() {
    let mcp = load_manifest(
        &data("mcp-live-526/tools.json"),
        &ManifestOptions::default(),
    )
    .unwrap();
    let budget = 1_500;
    let registry = Registry::builder()
        .lazy(append().with_note_budget_chars(budget))
        .tools(mcp)
        .build()
        .unwrap();
    let note = registry
        .prompt::<&str>(registry.lazy_config(), &[])
        .note
        .unwrap();
    assert!(
        note.len() <= NOTE_PREFIX.len() + budget + 60,
        "bounded: {} chars",
        note.len()
    );
    assert!(note.contains("__*: "), "namespaces grouped: {note}");
    let grouped = registry
        .tools()
        .iter()
        .find(|t| t.name().contains("__") && !note.contains(t.name()))
        .expect("some tool is only in a group");
    let answer = registry.tool_info(grouped.name(), 5).unwrap();
    assert_eq!(answer.tools[0].name, grouped.name());
}

// ---------- tool_info ----------

#[tokio::test]
async fn the_documents_example_flow_runs_in_one_session() {
    let session = Session::new(lazy_registry());
    let ctx = ToolContext::new();
    let first = session.prompt();
    assert!(!first.tool_names().contains(&"job_create"));
    assert!(first.note.as_deref().unwrap().contains("job_create"));

    // LLM -> tool_info(query="job_create")
    let answer = session
        .call("tool_info", json!({"query": "job_create"}), &ctx)
        .await
        .unwrap();
    let tools = answer["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "job_create");
    assert_eq!(
        tools[0]["description"],
        "Create a new background job with the given prompt and priority."
    );
    let params = &tools[0]["parameters"];
    assert_eq!(params["required"], json!(["prompt"]));
    assert_eq!(params["properties"]["prompt"]["type"], "string");
    assert_eq!(params["properties"]["priority"]["default"], 5);
    assert_eq!(params["properties"]["timeout_secs"]["default"], 300);

    // The next request of the session carries the schema.
    let second = session.prompt();
    assert_eq!(second.tool_names(), ["echo", "tool_info", "job_create"]);
    assert_eq!(
        second.note, first.note,
        "the note stays stable for prompt caches"
    );

    // LLM -> job_create(prompt="Summarize today's news", priority=3)
    let job = session
        .call(
            "job_create",
            json!({"prompt": "Summarize today's news", "priority": 3}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(job["priority"], 3);
    assert_eq!(job["timeout_secs"], 300);
}

#[test]
fn exact_names_win_ignoring_case_and_commas_load_several() {
    let registry = lazy_registry();
    let one = registry.tool_info("JOB_STATUS", 5).unwrap();
    assert_eq!(one.tools.len(), 1);
    assert_eq!(one.tools[0].name, "job_status");
    let several = registry
        .tool_info("job_create, job_cancel ,secrets_set", 5)
        .unwrap();
    let names: Vec<&str> = several.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["job_create", "job_cancel", "secrets_set"]);
    assert_eq!(several.message, None);
    // max_results holds for names too; the rest are named in the message.
    let capped = registry
        .tool_info("job_create, job_cancel ,secrets_set, job_create", 1)
        .unwrap();
    let names: Vec<&str> = capped.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["job_create"]);
    let message = capped.message.unwrap();
    assert!(
        message.contains("max_results is 1: job_cancel, secrets_set;"),
        "{message}"
    );
    let partial = registry.tool_info("job_create, job_stats", 5).unwrap();
    assert_eq!(partial.tools.len(), 1);
    let message = partial.message.unwrap();
    assert!(
        message.contains("\"job_stats\"") && message.contains("job_status"),
        "{message}"
    );
}

#[test]
fn keyword_search_ranks_by_meaning_and_tolerates_typos() {
    let registry = lazy_registry();
    let top = |q: &str| registry.tool_info(q, 5).unwrap().tools[0].name.clone();
    assert_eq!(top("schedule a background task"), "job_create");
    assert_eq!(top("stop the running job"), "job_cancel");
    assert_eq!(top("store a password"), "secrets_set");
    assert_eq!(top("what is the progress of my job"), "job_status");
    assert_eq!(top("secrts"), "secrets_set", "typo on a name part");
    assert_eq!(top("cancle job"), "job_cancel", "transposed letters");
}

#[test]
fn results_are_deterministic_and_bounded() {
    let registry = lazy_registry();
    let a = registry.tool_info("job", 20).unwrap();
    let b = registry.tool_info("job", 20).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.tools.len(), 3);
    assert_eq!(
        registry.tool_info("job", 0).unwrap().tools.len(),
        1,
        "clamped up to 1"
    );
    let mcp = load_manifest(
        &data("mcp-live-526/tools.json"),
        &ManifestOptions::default(),
    )
    .unwrap();
    let big = Registry::builder()
        .lazy(append())
        .tools(mcp)
        .build()
        .unwrap();
    assert_eq!(
        big.tool_info("search files", 500).unwrap().tools.len(),
        20,
        "clamped down to 20"
    );
}

#[tokio::test]
async fn bad_queries_get_clear_errors_and_no_match_gets_nearest_names() {
    let registry = lazy_registry();
    let ctx = ToolContext::new();
    let err = registry
        .call("tool_info", json!({"query": "  "}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArguments);
    assert!(err.to_string().contains("query is empty"), "{err}");
    // No query is refused for its length: a long one is answered.
    let long = "x".repeat(1_025);
    let answer = registry
        .call("tool_info", json!({"query": long}), &ctx)
        .await
        .unwrap();
    assert_eq!(answer["no_match"], true, "{answer}");
    let huge = "word ".repeat(200_000);
    let answer = registry
        .call("tool_info", json!({"query": huge}), &ctx)
        .await
        .unwrap();
    assert!(answer["tools"].is_array(), "{answer}");
    let answer = registry
        .call(
            "tool_info",
            json!({"query": "quantum chromodynamics"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(answer["tools"], json!([]));
    assert_eq!(answer["no_match"], true);
    assert_eq!(
        answer["unmatched_words"],
        json!(["quantum", "chromodynamics"])
    );
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "no tool matches \"quantum chromodynamics\" well; no tool mentions: quantum, chromodynamics; nearest names: "
        ),
        "{message}"
    );
    assert!(message.contains("answer without a tool"), "{message}");
}

// ---------- sessions ----------

#[tokio::test]
async fn an_unloaded_tool_with_valid_arguments_runs_and_is_loaded() {
    let session = Session::new(lazy_registry());
    assert!(!session.is_loaded("job_status"));
    let out = session
        .call("job_status", json!({"id": "j7"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("j7: running"));
    assert!(session.is_loaded("job_status"));
    assert!(session.prompt().tool_names().contains(&"job_status"));
}

#[tokio::test]
async fn an_unloaded_tool_with_invalid_arguments_gets_its_schema() {
    let session = Session::new(lazy_registry());
    let err = session
        .call("job_status", json!({"job": 7}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArguments);
    assert!(err.to_string().contains("was not loaded yet"), "{err}");
    let data = err.data().unwrap();
    assert_eq!(data["tool"]["name"], "job_status");
    assert_eq!(data["tool"]["parameters"]["required"], json!(["id"]));
    assert!(!session.is_loaded("job_status"));
}

#[tokio::test]
async fn sessions_are_independent_and_safe_across_tasks() {
    let registry = lazy_registry();
    let a = Session::new(registry.clone());
    let b = Session::new(registry);
    a.call(
        "tool_info",
        json!({"query": "secrets_set"}),
        &ToolContext::new(),
    )
    .await
    .unwrap();
    assert!(a.is_loaded("secrets_set"));
    assert!(!b.is_loaded("secrets_set"));

    let shared = Arc::new(Session::new(lazy_registry()));
    let mut tasks = Vec::new();
    for i in 0..64 {
        let s = Arc::clone(&shared);
        tasks.push(tokio::spawn(async move {
            let name = ["job_status", "job_cancel", "job_create", "secrets_set"][i % 4];
            s.call("tool_info", json!({"query": name}), &ToolContext::new())
                .await
                .unwrap();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut loaded = shared.loaded();
    loaded.sort();
    assert_eq!(
        loaded,
        ["job_cancel", "job_create", "job_status", "secrets_set"],
        "each loaded once"
    );
}

// ---------- manifests ----------

#[tokio::test]
async fn a_manifest_becomes_searchable_deferred_tools() {
    let tools = load_manifest(&data("bfcl-dev/tools.json"), &ManifestOptions::default()).unwrap();
    assert_eq!(tools.len(), 914);
    let registry = Registry::builder()
        .lazy(append())
        .tools(tools)
        .build()
        .unwrap();
    let answer = registry
        .tool_info(
            "dimensions of a triangle from the lengths of its three sides",
            5,
        )
        .unwrap();
    assert!(
        answer
            .tools
            .iter()
            .any(|t| t.name == "triangle_properties_get"),
        "{answer:?}"
    );
    let tool = registry.get("triangle_properties_get").unwrap();
    assert!(!tool.is_core() && !tool.is_callable());
    let err = registry
        .call(
            "triangle_properties_get",
            json!({"side1": 3, "side2": 4, "side3": 5}),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotCallable);
    assert!(err.to_string().contains("cannot be called here"), "{err}");
}

#[test]
fn manifest_names_are_checked_or_sanitised_on_request() {
    let text = r#"{"tools": [
        {"name": "good_one", "description": "Fine.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "has.dot", "description": "Bad name."},
        {"name": "", "description": "Empty."},
        {"name": "good_one", "description": "Duplicate."},
        {"name": "listy", "inputSchema": {"type": "array"}}
    ]}"#;
    let err = parse_manifest(text, "test.json", &ManifestOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("4 problem(s)"), "{err}");
    assert!(err.contains("invalid tool name \"has.dot\""), "{err}");
    assert!(err.contains("invalid tool name \"\""), "{err}");
    assert!(err.contains("duplicate tool name \"good_one\""), "{err}");
    assert!(
        err.contains("\"listy\"): \"inputSchema\" must be an object schema"),
        "{err}"
    );

    let sanitised = ManifestOptions::default().with_sanitize_names(true);
    let text = r#"{"tools": [{"name": "has.dot", "description": "Bad name."}]}"#;
    let tools = parse_manifest(text, "test.json", &sanitised).unwrap();
    assert_eq!(tools[0].name(), "has_dot");
    let err =
        parse_manifest("{\"tools\": [", "broken.json", &ManifestOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("broken.json is not valid JSON"),
        "{err}"
    );
    let err = parse_manifest("[]", "list.json", &ManifestOptions::default()).unwrap_err();
    assert!(err.to_string().contains("\"tools\" array"), "{err}");
}

#[test]
fn manifest_tools_cannot_shadow_linked_tools() {
    let text = r#"{"tools": [{"name": "echo", "description": "Pretends to be echo."}]}"#;
    let tools = parse_manifest(text, "manifest evil.json", &ManifestOptions::default()).unwrap();
    let err = Registry::builder()
        .tools(tools)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("duplicate tool name `echo`") && err.contains("manifest evil.json"),
        "{err}"
    );
}

#[test]
fn dynamic_tools_are_deferred_and_searchable() {
    let tool = DynamicTool::new(
        "weather__forecast",
        "Forecast the weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    );
    let registry = Registry::builder()
        .lazy(append())
        .tool(tool)
        .build()
        .unwrap();
    assert_eq!(
        registry.tool_info("rain tomorrow", 3).unwrap().tools.len(),
        0,
        "no shared words"
    );
    assert_eq!(
        registry.tool_info("weather forecast", 3).unwrap().tools[0].name,
        "weather__forecast"
    );
}

// ---------- token accounting ----------

#[test]
fn token_counts_show_what_lazy_loading_saves() {
    let registry = lazy_registry();
    for encoding in Encoding::ALL {
        let cmp = compare(&registry, registry.lazy_config(), encoding);
        assert!(cmp.eager.total() > 0 && cmp.lazy.total() > 0);
        assert_eq!(cmp.lazy.tool_count, 2);
        assert!(cmp.lazy.note > 0);
        let per_tool: usize = cmp.eager.per_tool.iter().map(|(_, n)| n).sum();
        assert!(
            per_tool >= cmp.eager.tools - 2 * cmp.eager.tool_count,
            "per-tool counts add up"
        );
    }
    assert_eq!(Encoding::O200kBase.count("hello world"), 2);
    assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
}

/// These tests are about the append strategy's prompt (loaded tools join
/// the `tools` array); the bridge's and native's are in `strategies.rs`.
fn append() -> LazyConfig {
    LazyConfig::lazy().with_strategy(optimclaw::LoadStrategy::Append)
}
