//! `tool_info` quality on a corpus: R@1/R@5/R@10/MRR@10 and query latency.
//! Prints one JSON line, like `baseline_bm25.py`.
//! Usage: `retrieval [CORPUS_DIR]` (default: corpora/bfcl-dev)

use std::time::Instant;

use optimclaw_bench::{corpus_registry, data_dir, load_queries, quality};
use serde_json::json;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| data_dir().join("bfcl-dev"), Into::into);
    let queries = load_queries(&dir);
    let start = Instant::now();
    let registry = corpus_registry(&dir);
    let build = start.elapsed();
    let start = Instant::now();
    let rankings: Vec<Vec<String>> = queries
        .iter()
        .map(|q| {
            registry
                .search(&q.query, 10)
                .iter()
                .map(|t| t.name().to_owned())
                .collect()
        })
        .collect();
    let per_query = start.elapsed() / u32::try_from(queries.len().max(1)).unwrap_or(u32::MAX);
    let q = quality(&queries, &rankings);
    if std::env::var_os("RETRIEVAL_MISSES").is_some() {
        for (query, ranked) in queries.iter().zip(&rankings) {
            if !ranked.iter().take(5).any(|n| query.relevant.contains(n)) {
                eprintln!(
                    "{} | {:?} | got {:?}",
                    query.query,
                    query.relevant,
                    &ranked[..ranked.len().min(3)]
                );
            }
        }
    }
    println!(
        "{}",
        json!({
            "system": "optimclaw",
            "tools": registry.len(),
            "queries": queries.len(),
            "R@1": (q.r1 * 1e4).round() / 1e4,
            "R@5": (q.r5 * 1e4).round() / 1e4,
            "R@10": (q.r10 * 1e4).round() / 1e4,
            "MRR@10": (q.mrr10 * 1e4).round() / 1e4,
            "build_ms": (build.as_secs_f64() * 1e4).round() / 10.0,
            "query_us": (per_query.as_secs_f64() * 1e7).round() / 10.0,
        })
    );
}
