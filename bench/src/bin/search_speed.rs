//! `tool_info` speed at 1k and 10k tools: index build time and per-query
//! latency (median, p99) over the bfcl-dev queries. Writes each corpus to
//! `target/bench-corpora/<size>/` (tools.json + queries.jsonl) so that
//! `bench/bm25_latency.py` times rank_bm25 on exactly the same data.
//! Prints one JSON line per corpus.

use std::time::Instant;

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::search::{SearchIndex, Weights};
use optimclaw::{DynamicTool, LazyConfig, Registry};
use optimclaw_bench::{data_dir, load_queries, synthetic};
use serde_json::{Value, json};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn write_corpus(
    dir: &std::path::Path,
    tools: &[DynamicTool],
    registry: &Registry,
    queries_src: &std::path::Path,
) {
    std::fs::create_dir_all(dir).expect("corpus folder");
    let list: Vec<Value> = tools
        .iter()
        .map(|t| {
            let tool = registry.get(t.name()).expect("registered");
            json!({"name": tool.name(), "description": tool.description(), "inputSchema": tool.input_schema()})
        })
        .collect();
    std::fs::write(dir.join("tools.json"), json!({ "tools": list }).to_string())
        .expect("write tools");
    std::fs::copy(queries_src, dir.join("queries.jsonl")).expect("copy queries");
}

fn main() {
    let data = data_dir();
    let opts = ManifestOptions::default();
    let bfcl = load_manifest(&data.join("bfcl-dev/tools.json"), &opts).expect("bfcl-dev");
    let mcp = load_manifest(&data.join("mcp-live-526/tools.json"), &opts).expect("mcp-live-526");
    let queries = load_queries(&data.join("bfcl-dev"));
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-corpora");
    // 1k: every bfcl tool plus MCP tools; 10k: bfcl plus synthetic tools
    // made from real schemas, so every query still has its answer.
    let mut one_k = bfcl.clone();
    one_k.extend(mcp.iter().take(1_000 - bfcl.len()).cloned());
    let pool: Vec<DynamicTool> = mcp.iter().chain(bfcl.iter()).cloned().collect();
    let mut ten_k = bfcl.clone();
    ten_k.extend(synthetic(&pool, 10_000 - bfcl.len()));
    // For `bench/memory.py`: 10k namespaced tools (`svcNNN__name`), which
    // cannot collide with the assistant's own tools.
    let serve = synthetic(&pool, 10_000);
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(serve.clone())
        .build()
        .expect("valid");
    write_corpus(
        &out.join("serve-10k"),
        &serve,
        &registry,
        &data.join("bfcl-dev/queries.jsonl"),
    );
    for (label, tools) in [("1k", one_k), ("10k", ten_k)] {
        let registry = Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools(tools.clone())
            .build()
            .expect("valid");
        write_corpus(
            &out.join(label),
            &tools,
            &registry,
            &data.join("bfcl-dev/queries.jsonl"),
        );
        // Index build alone (the registry builds it once; timed apart here).
        let mut builds = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            let index = SearchIndex::build(registry.tools().iter().enumerate(), Weights::default());
            builds.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(index.len(), tools.len());
        }
        builds.sort_by(f64::total_cmp);
        let mut times = Vec::with_capacity(queries.len() * 3);
        for _ in 0..3 {
            for q in &queries {
                let start = Instant::now();
                let hits = registry.search(&q.query, 10);
                times.push(start.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(hits);
            }
        }
        times.sort_by(f64::total_cmp);
        // Long requests: the bfcl queries joined into ~20,000-character
        // messages (whole user messages, as a pre-request search passes
        // them), answered by tool_info itself.
        let joined: String = queries
            .iter()
            .map(|q| q.query.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let chars: Vec<char> = joined.chars().collect();
        let mut long_times = Vec::new();
        for start in (0..chars.len().saturating_sub(20_000))
            .step_by(2_000)
            .take(20)
        {
            let request: String = chars[start..start + 20_000].iter().collect();
            let begin = Instant::now();
            let answer = registry.tool_info(&request, 5).expect("answered");
            long_times.push(begin.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(answer);
        }
        long_times.sort_by(f64::total_cmp);
        println!(
            "{}",
            json!({
                "system": "optimclaw",
                "corpus": label,
                "tools": tools.len(),
                "queries": queries.len(),
                "build_ms_median": (percentile(&builds, 0.5) * 10.0).round() / 10.0,
                "query_us_median": (percentile(&times, 0.5) * 10.0).round() / 10.0,
                "query_us_p99": (percentile(&times, 0.99) * 10.0).round() / 10.0,
                "tool_info_20k_chars_ms_median": (percentile(&long_times, 0.5) * 100.0).round() / 100.0,
                "tool_info_20k_chars_ms_max": (long_times.last().copied().unwrap_or(0.0) * 100.0).round() / 100.0,
            })
        );
    }
}
