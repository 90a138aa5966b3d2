//! Shared helpers of the benchmark binaries.

use std::path::{Path, PathBuf};

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::{LazyConfig, Registry};
use serde::Deserialize;

/// The folder of public benchmark corpora (`corpora/` in the repository),
/// or `OPTIMCLAW_BENCH_DATA` when set.
pub fn data_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("OPTIMCLAW_BENCH_DATA") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora")
}

/// One retrieval query with its relevant tool names.
#[derive(Debug, Deserialize)]
pub struct Query {
    /// Query id.
    pub id: String,
    /// What the user asked.
    pub query: String,
    /// Names of the tools that answer it.
    pub relevant: Vec<String>,
}

/// Reads `queries.jsonl` of a corpus.
pub fn load_queries(dir: &Path) -> Vec<Query> {
    let text =
        std::fs::read_to_string(dir.join("queries.jsonl")).expect("queries.jsonl is readable");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each query line is valid"))
        .collect()
}

/// A registry of a corpus's tools only (no linked tools), lazy.
pub fn corpus_registry(dir: &Path) -> Registry {
    let tools = load_manifest(&dir.join("tools.json"), &ManifestOptions::default())
        .expect("tools.json is a valid manifest");
    let mut weights = optimclaw::search::Weights::default();
    // `SEARCH_WEIGHTS=name,keywords,description,param_names,param_descriptions[,examples]`
    // overrides the weights, for tuning.
    if let Ok(w) = std::env::var("SEARCH_WEIGHTS") {
        let v: Vec<f32> = w
            .split(',')
            .map(|x| x.trim().parse().expect("weights are numbers"))
            .collect();
        weights = weights
            .with_name(v[0])
            .with_keywords(v[1])
            .with_description(v[2])
            .with_param_names(v[3])
            .with_param_descriptions(v[4])
            .with_examples(v.get(5).copied().unwrap_or(weights.examples));
    }
    Registry::builder()
        .search_weights(weights)
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(tools)
        .build()
        .expect("corpus tools are valid")
}

/// Recall@k and MRR@10 of ranked name lists against the relevant names.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quality {
    /// Share of relevant tools in the top 1, averaged over queries.
    pub r1: f64,
    /// … in the top 5.
    pub r5: f64,
    /// … in the top 10.
    pub r10: f64,
    /// Mean reciprocal rank of the first relevant tool in the top 10.
    pub mrr10: f64,
}

/// Scores rankings (best first) against queries.
pub fn quality(queries: &[Query], rankings: &[Vec<String>]) -> Quality {
    let mut q = Quality::default();
    for (query, ranked) in queries.iter().zip(rankings) {
        let rel = &query.relevant;
        let recall = |k: usize| {
            let hits = ranked.iter().take(k).filter(|n| rel.contains(n)).count();
            hits as f64 / rel.len().max(1) as f64
        };
        q.r1 += recall(1);
        q.r5 += recall(5);
        q.r10 += recall(10);
        if let Some(pos) = ranked.iter().take(10).position(|n| rel.contains(n)) {
            q.mrr10 += 1.0 / (pos + 1) as f64;
        }
    }
    let n = queries.len().max(1) as f64;
    q.r1 /= n;
    q.r5 /= n;
    q.r10 /= n;
    q.mrr10 /= n;
    q
}

/// `n` deferred tools with real schemas from the public corpora, renamed
/// into namespaces of 25 (`svc007__original_name`) like MCP servers.
pub fn synthetic(pool: &[optimclaw::DynamicTool], n: usize) -> Vec<optimclaw::DynamicTool> {
    (0..n)
        .map(|i| {
            let base = &pool[i % pool.len()];
            let original = base.name().split("__").last().unwrap_or(base.name());
            let mut name = format!("svc{:03}__{original}", i / 25);
            name.truncate(64);
            base.clone().renamed(name)
        })
        .collect()
}

/// The thresholds the library ships with: the defaults of its option
/// structs, read from them (so the benches report what users get).
#[derive(Clone, Copy, Debug)]
pub struct Shipped {
    /// [`optimclaw::RegistryBuilder::strong_match`]'s default.
    pub strong_match: f32,
    /// [`optimclaw::embed::SemanticConfig::strong_keywords`]'s default.
    pub strong_keywords: f32,
    /// [`optimclaw::embed::SemanticConfig::strong_spread`]'s default.
    pub strong_spread: f32,
    /// [`optimclaw::embed::SemanticConfig::vector_seats`]'s default.
    pub vector_seats: usize,
    /// [`optimclaw::embed::SemanticConfig::pool`]'s default.
    pub pool: usize,
}

/// An embedder that is never called: only to read `SemanticConfig`'s defaults.
struct NoEmbedder;

impl optimclaw::embed::Embedder for NoEmbedder {
    fn id(&self) -> &str {
        "none"
    }

    fn embed(&self, _texts: &[&str]) -> Result<Vec<Vec<f32>>, optimclaw::embed::EmbedError> {
        Err(optimclaw::embed::EmbedError::new("not an embedder"))
    }
}

/// The shipped thresholds.
pub fn shipped() -> Shipped {
    let registry = Registry::builder()
        .without_linked()
        .build()
        .expect("an empty registry builds");
    let semantic = optimclaw::embed::SemanticConfig::new(std::sync::Arc::new(NoEmbedder));
    Shipped {
        strong_match: registry.strong_match(),
        strong_keywords: semantic.strong_keywords,
        strong_spread: semantic.strong_spread,
        vector_seats: semantic.vector_seats,
        pool: semantic.pool,
    }
}
