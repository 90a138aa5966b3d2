//! Vector search fused with keyword search, with a stand-in embedder whose
//! vectors are concept counts: wiring, caching, failures, constraints and
//! match strength end to end through `tool_info` and a session.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use optimclaw::embed::{EmbedError, Embedder, EmbeddingCache, Fusion, SemanticConfig};
use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolScope};
use serde_json::{Value, json};

/// Words of each concept: a text's vector counts its words per concept,
/// so paraphrases without a shared word still meet.
const CONCEPTS: [&[&str]; 4] = [
    &[
        "weather",
        "forecast",
        "rain",
        "temperature",
        "sunny",
        "umbrella",
    ],
    &["message", "post", "chat", "slack", "send", "dm"],
    &["issue", "bug", "ticket", "github", "report"],
    &["pdf", "document", "text", "extract", "scan"],
];

struct Concepts {
    calls: AtomicUsize,
    texts: AtomicUsize,
    broken: AtomicBool,
}

impl Concepts {
    fn new() -> Arc<Self> {
        Arc::new(Concepts {
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            broken: AtomicBool::new(false),
        })
    }
}

impl Embedder for Concepts {
    fn id(&self) -> &str {
        "concepts-v1"
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if self.broken.load(Ordering::SeqCst) {
            return Err(EmbedError::new("the stand-in endpoint is down"));
        }
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|t| {
                let lower = t.to_lowercase();
                let words: Vec<&str> = lower
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .collect();
                let mut v: Vec<f32> = CONCEPTS
                    .iter()
                    .map(|c| words.iter().filter(|w| c.contains(w)).count() as f32)
                    .collect();
                v.push(0.05); // never a zero vector
                v
            })
            .collect())
    }
}

fn tool(name: &str, description: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": {"city": {"type": "string", "description": "A city."}}}),
    )
    .handler(|_ctx, args: Value| async move { Ok(args) })
}

fn tools() -> Vec<DynamicTool> {
    vec![
        tool(
            "weather_now",
            "Current conditions: temperature and rain for a city.",
        ),
        tool("slack__post", "Post a message to a Slack channel."),
        tool(
            "github__create_issue",
            "Open an issue in a GitHub repository.",
        ),
        tool("pdf_extract", "Extract the text of a PDF document."),
    ]
}

fn registry(embedder: Arc<Concepts>, cache: Option<EmbeddingCache>) -> Registry {
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    let mut config = SemanticConfig::new(embedder);
    config.cache = cache;
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools(tools())
        .semantic(config)
        .build()
        .unwrap()
}

fn keyword_registry() -> Registry {
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(tools())
        .build()
        .unwrap()
}

#[test]
fn a_paraphrase_without_shared_words_is_found_by_vectors() {
    // Keywords alone: "forecast" and "umbrella" are in no tool.
    let plain = keyword_registry()
        .tool_info("umbrella forecast", 3)
        .unwrap();
    assert!(plain.no_match, "{plain:?}");
    let embedder = Concepts::new();
    let registry = registry(embedder, None);
    assert!(registry.has_vector_search());
    let answer = registry.tool_info("umbrella forecast", 3).unwrap();
    assert!(!answer.no_match, "{answer:?}");
    assert_eq!(answer.tools[0].name, "weather_now");
    assert!(answer.tools[0].parameters.is_some());
    assert_eq!(
        serde_json::to_value(answer.tools[0].strength).unwrap(),
        "strong"
    );
    // Still words no tool contains, said as such.
    assert_eq!(answer.unmatched_words, ["umbrella", "forecast"]);
    // Registry::search uses the same ranking.
    assert_eq!(
        registry.search("umbrella forecast", 1)[0].name(),
        "weather_now"
    );
}

#[test]
fn the_vectors_best_gets_a_seat_when_keyword_near_misses_outscore_it() {
    // Six tools share the request's one known word; the tool the request
    // means shares none. With the vectors given no weight in the fused
    // score, only its seat can show it.
    let mut catalog: Vec<DynamicTool> = (1..=6)
        .map(|i| {
            tool(
                &format!("paint_wall_{i}"),
                &format!("Paint a wall in colour {i}."),
            )
        })
        .collect();
    catalog.push(tool(
        "weather_now",
        "Current conditions: temperature and rain.",
    ));
    let build = |seats: usize| {
        let mut config = SemanticConfig::new(Concepts::new());
        config.cache = None;
        config.fusion = Fusion::Weighted { dense: 0.0 };
        config.vector_seats = seats;
        Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools(catalog.clone())
            .semantic(config)
            .build()
            .unwrap()
    };
    let names = |registry: &Registry, k: usize| -> Vec<String> {
        let answer = registry.tool_info("umbrella by the wall", k).unwrap();
        answer.tools.into_iter().map(|t| t.name).collect()
    };
    let seated = build(2);
    let five = names(&seated, 5);
    assert_eq!(five.len(), 5);
    assert_eq!(five[3], "weather_now", "{five:?}");
    assert!(
        five[..3].iter().all(|n| n.starts_with("paint_wall_")),
        "{five:?}"
    );
    // The first place stays the fusion's: no seat in an answer of one.
    assert!(names(&seated, 1)[0].starts_with("paint_wall_"));
    // Without seats, the fused order alone: the keyword near misses.
    let unseated = names(&build(0), 5);
    assert!(
        !unseated.contains(&"weather_now".to_owned()),
        "{unseated:?}"
    );
}

#[test]
fn nothing_near_is_still_a_no_match() {
    let registry = registry(Concepts::new(), None);
    let answer = registry.tool_info("book a flight to rome", 3).unwrap();
    assert!(answer.no_match, "{answer:?}");
    assert!(answer.tools.iter().all(|t| t.parameters.is_none()));
}

#[test]
fn filters_hold_for_vector_hits_too() {
    let registry = registry(Concepts::new(), None);
    // Vectors alone would put weather_now first; the namespace forbids it.
    let answer = registry.tool_info("ns:slack umbrella forecast", 3).unwrap();
    assert!(
        answer.tools.iter().all(|t| t.name.starts_with("slack__")),
        "{answer:?}"
    );
    let answer = registry
        .tool_info("umbrella forecast -temperature", 3)
        .unwrap();
    assert!(
        answer.tools.iter().all(|t| t.name != "weather_now"),
        "{answer:?}"
    );
    let answer = registry.tool_info("umbrella +city", 4).unwrap();
    assert!(!answer.tools.is_empty());
    let answer = registry.tool_info("umbrella +spaceship", 4).unwrap();
    assert!(answer.tools.is_empty() && answer.no_match, "{answer:?}");
}

#[test]
fn tool_vectors_are_cached_by_content() {
    let dir = std::env::temp_dir().join(format!("optimclaw-semantic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let embedder = Concepts::new();
    registry(Arc::clone(&embedder), Some(EmbeddingCache::new(&dir)));
    assert_eq!(
        embedder.texts.load(Ordering::SeqCst),
        4,
        "every tool embedded once"
    );
    registry(Arc::clone(&embedder), Some(EmbeddingCache::new(&dir)));
    assert_eq!(
        embedder.texts.load(Ordering::SeqCst),
        4,
        "nothing embedded again"
    );
    // A changed description is embedded again, alone.
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    let mut config = SemanticConfig::new(Arc::clone(&embedder) as Arc<dyn Embedder>);
    config.cache = Some(EmbeddingCache::new(&dir));
    let mut changed = tools();
    changed[0] = tool(
        "weather_now",
        "Current conditions: temperature, wind and rain.",
    );
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .tools(changed)
        .semantic(config)
        .build()
        .unwrap();
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_embedder_failure_fails_the_build_or_falls_back_per_query() {
    let broken = Concepts::new();
    broken.broken.store(true, Ordering::SeqCst);
    let err = Registry::builder()
        .without_linked()
        .tools(tools())
        .semantic(SemanticConfig::new(broken).with_cache(None))
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "vector search: the deferred tools could not be embedded: the stand-in endpoint is down"
        ),
        "{err}"
    );
    // Down after the build: keyword results, and the answer says why.
    let embedder = Concepts::new();
    let registry = registry(Arc::clone(&embedder), None);
    embedder.broken.store(true, Ordering::SeqCst);
    let answer = registry.tool_info("post a slack message", 3).unwrap();
    assert_eq!(answer.tools[0].name, "slack__post");
    let message = answer.message.unwrap_or_default();
    assert!(
        message.contains(
            "vector search unavailable (the stand-in endpoint is down); keyword results only"
        ),
        "{message}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn sessions_and_scopes_get_fused_answers() {
    let embedder = Concepts::new();
    let registry = registry(Arc::clone(&embedder), None);
    let ctx = ToolContext::new();
    let session = Session::new(registry.clone());
    let answer = session
        .call("tool_info", json!({"query": "umbrella forecast"}), &ctx)
        .await
        .unwrap();
    assert_eq!(answer["tools"][0]["name"], "weather_now", "{answer}");
    assert_eq!(session.loaded(), ["weather_now"]);
    let scoped = Session::new(registry).scoped(ToolScope::new(["tool_info", "slack__*"]).unwrap());
    let answer = scoped
        .call("tool_info", json!({"query": "umbrella forecast"}), &ctx)
        .await
        .unwrap();
    assert!(!answer.to_string().contains("weather_now"), "{answer}");
}
