//! `tool_info` on catalogs of several shapes (`bench/data/dev/sets.json`):
//! per catalog, hit@1 and hit@5 of what `tool_info` answers, recall@5 of
//! requests that need several tools, false "no match" on requests that have
//! a tool, and "no match" detected on requests that need none; then the
//! curve of the top hit's strength per catalog, the shipped threshold
//! marked. Writes each catalog as a manifest to `target/dev-catalogs/` for
//! the peers (`bench/catalogs.sh` runs them in the same run).
//!
//! Usage: `catalogs [SETS_JSON]`. `CATALOG_SIGNALS=FILE` also writes every
//! query's top hits' signals as JSON lines, for choosing the strength.
//! Built with feature `minilm`, `CATALOG_VECTORS=DIR` adds vector search
//! (all-MiniLM-L6-v2 in DIR) to every catalog and prints, beside the fused
//! answers, the vectors alone and the curve of the standardized cosine
//! (see `vectors.rs`). `CATALOG_RERANK=URL` adds an `HttpReranker` at that
//! `/rerank` URL as the second stage (model `CATALOG_RERANK_MODEL`;
//! `bench/rerank.sh` runs it against a stand-in built with feature
//! `rerank`), or `CATALOG_RERANK_CHAT=BASE_URL` a `ChatReranker` at that
//! OpenAI-compatible base URL (`bench/judge.sh` runs the real small model
//! as that judge). With any of them, each catalog's
//! `tool_info` latency is printed too.

mod curves;
#[cfg(feature = "minilm")]
mod vectors;

use curves::{Curve, pct, spread_curve};

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use optimclaw::manifest::{ManifestOptions, parse_manifest};
use optimclaw::search::{Hit, Weights};
use optimclaw::{DynamicTool, LazyConfig, Registry};
use optimclaw_bench::data_dir;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Sets {
    sets: Vec<Set>,
}

#[derive(Deserialize)]
struct Set {
    name: String,
    shape: String,
    catalog: String,
    #[serde(default)]
    descriptions_only: bool,
    queries: Vec<String>,
    none: Vec<String>,
    /// Requests with their tools removed from the catalog.
    absent: Option<String>,
    /// Words put before and after every request (as chatty users write).
    #[serde(default)]
    wrap: Option<[String; 2]>,
}

#[derive(Deserialize)]
struct Query {
    id: String,
    query: String,
    #[serde(default)]
    relevant: Vec<String>,
    /// For requests that need several tools: per step, the tools that do it.
    #[serde(default)]
    steps: Vec<Vec<String>>,
    /// For the absent set: the tools left out of the catalog.
    #[serde(default)]
    absent: Vec<String>,
}

fn read_queries(path: &Path) -> Vec<Query> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each query line is valid"))
        .collect()
}

fn resolve(dev: &Path, path: &str) -> PathBuf {
    match path.strip_prefix("corpora:") {
        Some(rest) => data_dir().join(rest),
        None => dev.join(path),
    }
}

/// The catalog's deferred tools (without the linked catalog), or `None`
/// for the assistant's own catalog.
fn catalog(dev: &Path, set: &Set) -> Option<Vec<DynamicTool>> {
    if set.catalog == "assistant" {
        return None;
    }
    let options = ManifestOptions::default().with_sanitize_names(true);
    let path = resolve(dev, &set.catalog);
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    if set.descriptions_only {
        for tool in manifest["tools"].as_array_mut().expect("a tools array") {
            tool["inputSchema"] = json!({"type": "object"});
        }
    }
    Some(
        parse_manifest(&manifest.to_string(), &path.display().to_string(), &options)
            .expect("a valid manifest"),
    )
}

/// Field weights from `CATALOG_WEIGHTS` (`name,keywords,description,
/// param_names,param_descriptions,examples`), for trying others on every
/// catalog at once (`bench/weights_grid.py`); the shipped ones otherwise.
fn weights() -> Weights {
    let Ok(list) = std::env::var("CATALOG_WEIGHTS") else {
        return Weights::default();
    };
    let w: Vec<f32> = list
        .split(',')
        .map(|x| x.trim().parse().expect("CATALOG_WEIGHTS holds six numbers"))
        .collect();
    assert_eq!(w.len(), 6, "CATALOG_WEIGHTS holds six numbers");
    Weights::default()
        .with_name(w[0])
        .with_keywords(w[1])
        .with_description(w[2])
        .with_param_names(w[3])
        .with_param_descriptions(w[4])
        .with_examples(w[5])
}

fn registry(tools: Option<&[DynamicTool]>, skip: &HashSet<&str>, vectors: &Vectors) -> Registry {
    let builder = Registry::builder()
        .lazy(LazyConfig::lazy())
        .search_weights(weights());
    #[cfg(feature = "minilm")]
    let builder = match vectors {
        Some(v) => builder.semantic(v.config()),
        None => builder,
    };
    #[cfg(not(feature = "minilm"))]
    let _ = vectors;
    // The rerankers talk to an endpoint: no feature needed (the `rerank`
    // feature builds the MiniLM stand-in that `bench/rerank.sh` serves).
    let builder = match std::env::var("CATALOG_RERANK") {
        Ok(url) => builder.reranker(optimclaw::rerank::RerankConfig::new(std::sync::Arc::new(
            optimclaw_embed::rerank::HttpReranker::new(
                url,
                std::env::var("CATALOG_RERANK_MODEL").unwrap_or_else(|_| "standin".to_owned()),
            ),
        ))),
        Err(_) => match std::env::var("CATALOG_RERANK_CHAT") {
            Ok(url) => builder.reranker(optimclaw::rerank::RerankConfig::new(std::sync::Arc::new(
                optimclaw_embed::rerank::ChatReranker::new(
                    &url,
                    std::env::var("CATALOG_RERANK_MODEL").unwrap_or_else(|_| "standin".to_owned()),
                ),
            ))),
            Err(_) => builder,
        },
    };
    let builder = match tools {
        Some(tools) => builder
            .without_linked()
            .tools(tools.iter().filter(|t| !skip.contains(t.name())).cloned()),
        None => builder,
    };
    builder.build().expect("catalog tools are valid")
}

/// The vector search of this run, when there is one.
#[cfg(feature = "minilm")]
type Vectors = Option<vectors::Vectors>;
#[cfg(not(feature = "minilm"))]
type Vectors = Option<std::convert::Infallible>;

/// What the vectors alone found for a request, and how well the request
/// matched the catalog at best, by keywords and by vectors.
#[derive(Default)]
struct VectorView {
    names: Vec<String>,
    /// The keyword ranking's best strength and the vector ranking's best
    /// standardized cosine (scaled up in a catalog too small to reach the
    /// shipped threshold) for the request (`None`: no tool).
    top: Option<(f32, f32)>,
}

/// A registry's tool vectors, when the run has vectors.
#[cfg(feature = "minilm")]
type Index = Option<optimclaw::embed::SemanticIndex>;
#[cfg(not(feature = "minilm"))]
type Index = Option<std::convert::Infallible>;

#[cfg(feature = "minilm")]
fn index_of(vectors: &Vectors, registry: &Registry) -> Index {
    vectors.as_ref().map(|v| v.index(registry))
}

#[cfg(not(feature = "minilm"))]
fn index_of(_: &Vectors, _: &Registry) -> Index {
    None
}

#[cfg(feature = "minilm")]
fn view(
    vectors: &Vectors,
    index: &Index,
    registry: &Registry,
    query: &str,
    answer: &Answer,
) -> VectorView {
    let (Some(v), Some(index)) = (vectors, index) else {
        return VectorView::default();
    };
    let scored = v.score(index, query);
    let tools = registry.tools();
    let names = scored
        .ranked
        .iter()
        .take(5)
        .map(|h| tools[h.0].name().to_owned())
        .collect();
    // What the query could match at best in this catalog, each way: the
    // keyword ranking's best strength (the answer's), the vectors' best.
    let strength = answer.strength().unwrap_or(0.0);
    // In standard deviations, relative to the most that counts in this
    // catalog for the shipped setting: `z` stands out when it reaches the
    // threshold `spread.threshold(z)`, scaled here to the requested z.
    let top = scored.ranked.first().map(|h| {
        let wanted = optimclaw_bench::shipped().strong_spread;
        let scale = wanted / scored.spread.threshold(wanted);
        (strength, scored.spread.standardize(h.1) * scale)
    });
    VectorView { names, top }
}

#[cfg(not(feature = "minilm"))]
fn view(_: &Vectors, _: &Index, _: &Registry, _: &str, _: &Answer) -> VectorView {
    VectorView::default()
}

/// What `tool_info` answered one query, and the keyword hits behind it.
struct Answer {
    names: Vec<String>,
    no_match: bool,
    hits: Vec<Hit>,
    /// How long `tool_info` took.
    micros: f64,
}

impl Answer {
    /// The top hit's strength (`None`: no hit).
    fn strength(&self) -> Option<f32> {
        self.hits.first().map(|h| h.strength)
    }
}

fn ask(registry: &Registry, query: &str) -> Answer {
    let start = std::time::Instant::now();
    let answer = registry.tool_info(query, 5).expect("tool_info answers");
    let micros = start.elapsed().as_secs_f64() * 1e6;
    Answer {
        names: answer.tools.into_iter().map(|t| t.name).collect(),
        no_match: answer.no_match,
        hits: registry.search_index().search(query, 5),
        micros,
    }
}

/// Median and 95th percentile of `micros`, in milliseconds.
fn latency(micros: &mut [f64]) -> (f64, f64) {
    if micros.is_empty() {
        return (0.0, 0.0);
    }
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() - 1) as f64 * q).round() as usize] / 1e3;
    (at(0.5), at(0.95))
}

/// Writes one request's signals line, when `CATALOG_SIGNALS` is set.
fn record(
    out: &mut Option<impl Write>,
    set: &str,
    kind: &str,
    q: &Query,
    registry: &Registry,
    a: &Answer,
) {
    if let Some(out) = out.as_mut() {
        writeln!(out, "{}", signals_line(set, kind, q, registry, a)).expect("written");
    }
}

fn signals_line(set: &str, kind: &str, q: &Query, registry: &Registry, answer: &Answer) -> Value {
    let hits = &answer.hits;
    let tools = registry.tools();
    json!({
        "set": set,
        "kind": kind,
        "id": q.id,
        "query": q.query,
        "words": q.query.split_whitespace().count(),
        "no_match": answer.no_match,
        "answer": answer.names,
        "hit1": answer.names.first().is_some_and(|n| q.relevant.contains(n)),
        "hits": hits.iter().map(|h| json!({
            "tool": tools[h.tool].name(),
            "relevant": q.relevant.contains(&tools[h.tool].name().to_owned()),
            "strength": h.strength,
            "weighted": h.signals.weighted(h.coverage),
            "share": h.signals.share,
            "coverage_all": h.coverage,
            "margin": h.signals.margin,
            "evidence": h.signals.evidence,
            "name_match": h.signals.name_match,
            "matched_words": h.signals.matched_words,
            "unmatched_words": h.signals.unmatched_words,
            "unmatched_asking": h.signals.unmatched_asking,
        })).collect::<Vec<_>>(),
    })
}

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let spec = std::env::args().nth(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("data/dev/sets.json"),
        PathBuf::from,
    );
    let dev = spec.parent().expect("sets.json is in a folder").to_owned();
    let sets: Sets = serde_json::from_str(&std::fs::read_to_string(&spec).expect("readable"))
        .expect("sets.json is valid");
    #[cfg(feature = "minilm")]
    let vectors: Vectors = vectors::Vectors::from_env();
    #[cfg(not(feature = "minilm"))]
    let vectors: Vectors = None;
    let mut signals_out = std::env::var("CATALOG_SIGNALS").ok().map(|p| {
        std::io::BufWriter::new(std::fs::File::create(p).expect("signals file can be written"))
    });
    let export = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dev-catalogs");
    std::fs::create_dir_all(&export).expect("target/dev-catalogs can be made");
    println!(
        "| catalog | tools | requests | hit@1 | hit@5 | recall@5 (multi-tool) | false no_match | requests needing no tool | no_match detected |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut curves: Vec<Curve> = Vec::new();
    let (mut vector_rows, mut vector_curves) = (Vec::new(), Vec::new());
    let mut latencies = Vec::new();
    for set in &sets.sets {
        let tools = catalog(&dev, set);
        let whole = registry(tools.as_deref(), &HashSet::new(), &vectors);
        // The catalog as the peers see it: the deferred tools only.
        let manifest: Vec<Value> = whole
            .tools()
            .iter()
            .filter(|t| !t.is_core())
            .map(|t| {
                json!({"name": t.name(), "description": t.description(), "inputSchema": t.input_schema()})
            })
            .collect();
        std::fs::write(
            export.join(format!("{}.json", set.name)),
            serde_json::to_string(&json!({"tools": manifest})).expect("serialises"),
        )
        .expect("the catalog can be written");
        let wrap = |mut q: Query| {
            if let Some([before, after]) = &set.wrap {
                q.query = format!("{before} {} {after}", q.query);
            }
            q
        };
        let load = |paths: &[String]| -> Vec<Query> {
            paths
                .iter()
                .flat_map(|p| read_queries(&resolve(&dev, p)))
                .map(wrap)
                .collect()
        };
        let (queries, none) = (load(&set.queries), load(&set.none));
        let (mut hit1, mut hit5, mut multi, mut recall5, mut false_nm) = (0, 0, 0, 0.0, 0);
        let (mut vhit1, mut vhit5) = (0, 0);
        let mut present = Vec::new();
        let (mut vpresent, mut vabsent) = (Vec::new(), Vec::new());
        let whole_index = index_of(&vectors, &whole);
        let mut micros = Vec::new();
        for q in &queries {
            let a = ask(&whole, &q.query);
            micros.push(a.micros);
            let v = view(&vectors, &whole_index, &whole, &q.query, &a);
            vhit1 += usize::from(v.names.first().is_some_and(|n| q.relevant.contains(n)));
            vhit5 += usize::from(v.names.iter().any(|n| q.relevant.contains(n)));
            vpresent.push(v.top);
            hit1 += usize::from(a.names.first().is_some_and(|n| q.relevant.contains(n)));
            hit5 += usize::from(a.names.iter().any(|n| q.relevant.contains(n)));
            if q.steps.len() > 1 {
                multi += 1;
                let found = q
                    .steps
                    .iter()
                    .filter(|s| a.names.iter().any(|n| s.contains(n)))
                    .count();
                recall5 += found as f64 / q.steps.len() as f64;
            }
            false_nm += usize::from(a.no_match);
            present.push(a.strength());
            record(&mut signals_out, &set.name, "tool", q, &whole, &a);
        }
        let mut absent_tops = Vec::new();
        let mut detected = 0;
        for q in &none {
            let a = ask(&whole, &q.query);
            detected += usize::from(a.no_match);
            absent_tops.push(a.strength());
            vabsent.push(view(&vectors, &whole_index, &whole, &q.query, &a).top);
            record(&mut signals_out, &set.name, "none", q, &whole, &a);
        }
        let mut none_count = none.len();
        if let Some(absent) = &set.absent {
            for q in read_queries(&resolve(&dev, absent)) {
                let skip: HashSet<&str> = q.absent.iter().map(String::as_str).collect();
                let reduced = registry(tools.as_deref(), &skip, &vectors);
                let a = ask(&reduced, &q.query);
                detected += usize::from(a.no_match);
                absent_tops.push(a.strength());
                let reduced_index = index_of(&vectors, &reduced);
                vabsent.push(view(&vectors, &reduced_index, &reduced, &q.query, &a).top);
                none_count += 1;
                record(&mut signals_out, &set.name, "absent", &q, &reduced, &a);
            }
        }
        let recall = if multi > 0 {
            format!("{:.3} ({multi})", recall5 / multi as f64)
        } else {
            "—".to_owned()
        };
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {recall} | {:.1} % | {none_count} | {:.1} % |",
            set.name,
            manifest.len(),
            queries.len(),
            hit1 as f64 / queries.len().max(1) as f64,
            hit5 as f64 / queries.len().max(1) as f64,
            pct(false_nm, queries.len()),
            pct(detected, none_count),
        );
        curves.push((set.name.clone(), present, absent_tops));
        let (p50, p95) = latency(&mut micros);
        latencies.push(format!("| {} | {p50:.2} | {p95:.2} |", set.name));
        if vpresent.iter().any(Option::is_some) {
            vector_rows.push(format!(
                "| {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                set.name,
                hit1 as f64 / queries.len().max(1) as f64,
                vhit1 as f64 / queries.len().max(1) as f64,
                hit5 as f64 / queries.len().max(1) as f64,
                vhit5 as f64 / queries.len().max(1) as f64,
            ));
            vector_curves.push((set.name.clone(), vpresent, vabsent));
        }
    }
    if !vector_rows.is_empty() {
        println!("\nwith vectors: the answers (fused) next to the vectors alone\n");
        println!(
            "| catalog | hit@1 fused | hit@1 vectors alone | hit@5 fused | hit@5 vectors alone |"
        );
        println!("|---|---|---|---|---|");
        for row in &vector_rows {
            println!("{row}");
        }
        spread_curve(&vector_curves);
    }
    if ["CATALOG_VECTORS", "CATALOG_RERANK", "CATALOG_RERANK_CHAT"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        println!("\ntool_info latency per request with a tool (ms)\n");
        println!("| catalog | median | p95 |");
        println!("|---|---|---|");
        for row in &latencies {
            println!("{row}");
        }
    }
    println!();
    for set in &sets.sets {
        println!("- {}: {}", set.name, set.shape);
    }
    curves::strength_curve(&curves);
}
