//! How well `tool_info` tells "no tool fits" from a match: each query of a
//! corpus is searched in the whole catalog (its tools present) and in the
//! catalog without its relevant tools (absent: `bench/data/*-no-match.jsonl`,
//! made by `bench/no_match.sh`). Prints the curve of the top hit's
//! strength (what `tool_info` judges by) — no-match detected when the tools
//! are absent against false "no match" when they are present — and the best
//! threshold of other signals, for comparison.
//! Usage: `no_match [CORPUS_DIR [NO_MATCH_SET]]` (run by `bench/no_match.sh`)

use std::collections::HashSet;

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::{LazyConfig, Registry};
use optimclaw_bench::{data_dir, load_queries};
use serde::Deserialize;

#[derive(Deserialize)]
struct Absent {
    query: String,
    absent: Vec<String>,
}

/// The top hit's signals, or `None` without any hit.
#[derive(Clone)]
struct Top {
    coverage: f32,
    score: f32,
    name_match: f32,
    /// The top score over the second's (at most 2; 2 without a second).
    margin: f32,
    /// What `tool_info` judges by (`Hit::strength`).
    strength: f32,
    /// The top tool's name.
    name: String,
}

/// A named way to read a top hit.
type Signal = Box<dyn Fn(&Top) -> f32>;

fn top(registry: &Registry, query: &str) -> Option<Top> {
    let hits = registry.search_index().search(query, 2);
    let first = hits.first()?;
    Some(Top {
        coverage: first.coverage,
        score: first.score,
        name_match: first.name_match,
        margin: hits
            .get(1)
            .map_or(2.0, |s| (first.score / s.score.max(1e-6)).min(2.0)),
        strength: first.strength,
        name: registry.tools()[first.tool].name().to_owned(),
    })
}

/// The best detection rate with false no-match at most `max_false`, over
/// thresholds of `signal` (low = no match).
fn best(
    present: &[Option<Top>],
    absent: &[Option<Top>],
    signal: &dyn Fn(&Top) -> f32,
    max_false: f64,
) -> (f32, f64, f64) {
    let mut best = (0.0, 0.0, 0.0);
    for step in 0..=400 {
        let t = step as f32 * 0.01;
        let rate = |tops: &[Option<Top>]| {
            tops.iter()
                .filter(|x| x.as_ref().is_none_or(|x| signal(x) < t))
                .count() as f64
                / tops.len().max(1) as f64
        };
        let (d, f) = (rate(absent), rate(present));
        if f <= max_false && d > best.1 {
            best = (t, d, f);
        }
    }
    best
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map_or_else(|| data_dir().join("bfcl-dev"), Into::into);
    let set = args.next().map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bfcl-dev-no-match.jsonl"),
        Into::into,
    );
    let tools = load_manifest(&dir.join("tools.json"), &ManifestOptions::default())
        .expect("tools.json is a valid manifest");
    let build = |skip: &HashSet<&str>| {
        Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools(tools.iter().filter(|t| !skip.contains(t.name())).cloned())
            .build()
            .expect("corpus tools are valid")
    };
    let whole = build(&HashSet::new());
    let present: Vec<Option<Top>> = load_queries(&dir)
        .iter()
        .map(|q| top(&whole, &q.query))
        .collect();
    let sets: Vec<Absent> = std::fs::read_to_string(&set)
        .expect("the no-match set is readable")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each line is valid"))
        .collect();
    let absent: Vec<Option<Top>> = sets
        .iter()
        .map(|a| {
            let skip: HashSet<&str> = a.absent.iter().map(String::as_str).collect();
            top(&build(&skip), &a.query)
        })
        .collect();
    // NO_MATCH_MISSES=1: the absent queries still called strong, with the
    // hit that stood in for the removed tools.
    if std::env::var_os("NO_MATCH_MISSES").is_some() {
        for (a, t) in sets.iter().zip(&absent) {
            if let Some(t) = t
                .as_ref()
                .filter(|t| t.strength >= optimclaw_bench::shipped().strong_match)
            {
                eprintln!(
                    "{} | removed {:?} | top {} ({:.2})",
                    a.query, a.absent, t.name, t.strength
                );
            }
        }
    }
    println!(
        "{} queries with their tools present, {} with them absent",
        present.len(),
        absent.len()
    );
    let signals: Vec<(&str, Signal)> = vec![
        ("coverage", Box::new(|t: &Top| t.coverage)),
        ("name match", Box::new(|t: &Top| t.name_match)),
        ("score / 10", Box::new(|t: &Top| t.score / 10.0)),
        ("margin", Box::new(|t: &Top| t.margin)),
        (
            "coverage + name match",
            Box::new(|t: &Top| t.coverage + t.name_match),
        ),
        (
            "coverage x name match",
            Box::new(|t: &Top| t.coverage * t.name_match),
        ),
        (
            "name match + margin / 2",
            Box::new(|t: &Top| t.name_match + t.margin / 2.0),
        ),
        (
            "coverage + name match + margin / 2",
            Box::new(|t: &Top| t.coverage + t.name_match + t.margin / 2.0),
        ),
        (
            "strength = coverage x (1 + margin / 2) + name match",
            Box::new(|t: &Top| t.strength),
        ),
        (
            "coverage x (1 + margin) + name match",
            Box::new(|t: &Top| t.coverage * (1.0 + t.margin) + t.name_match),
        ),
        (
            "coverage x (2 + margin) + name match",
            Box::new(|t: &Top| t.coverage * (2.0 + t.margin) + t.name_match),
        ),
    ];
    println!("\n| strength threshold | detected (absent) | false no-match (present) |");
    println!("|---|---|---|");
    // Every 0.05, and the shipped threshold wherever it falls.
    let shipped = optimclaw_bench::shipped().strong_match;
    let mut thresholds: Vec<f32> = (6..=24).map(|step| step as f32 * 0.05).collect();
    if !thresholds.iter().any(|t| (t - shipped).abs() < 1e-3) {
        thresholds.push(shipped);
        thresholds.sort_by(f32::total_cmp);
    }
    for t in thresholds {
        let rate = |tops: &[Option<Top>]| {
            100.0
                * tops
                    .iter()
                    .filter(|x| x.as_ref().is_none_or(|x| x.strength < t))
                    .count() as f64
                / tops.len().max(1) as f64
        };
        let mark = if (t - shipped).abs() < 1e-3 {
            " (shipped)"
        } else {
            ""
        };
        println!(
            "| {t:.2}{mark} | {:.1} % | {:.1} % |",
            rate(&absent),
            rate(&present)
        );
    }
    // Two thresholds at once: coverage at least c and strength at least t.
    for max_false in [0.03, 0.05] {
        let mut best2 = (0.0f32, 0.0f32, 0.0f64, 0.0f64);
        for ci in 0..=40 {
            let c = ci as f32 * 0.02;
            for ti in 0..=30 {
                let t = 0.3 + ti as f32 * 0.05;
                let rate = |tops: &[Option<Top>]| {
                    tops.iter()
                        .filter(|x| x.as_ref().is_none_or(|x| x.coverage < c || x.strength < t))
                        .count() as f64
                        / tops.len().max(1) as f64
                };
                let (d, f) = (rate(&absent), rate(&present));
                if f <= max_false && d > best2.2 {
                    best2 = (c, t, d, f);
                }
            }
        }
        println!(
            "coverage >= {:.2} and strength >= {:.2}: detected {:.1} %, false {:.1} % (at most {:.0} %)",
            best2.0,
            best2.1,
            best2.2 * 100.0,
            best2.3 * 100.0,
            max_false * 100.0
        );
    }
    for max_false in [0.03, 0.05, 0.10] {
        println!(
            "\n| signal (no match below) | threshold | detected (absent) | false no-match (present), at most {:.0} % |",
            max_false * 100.0
        );
        println!("|---|---|---|---|");
        for (name, signal) in &signals {
            let (t, d, f) = best(&present, &absent, signal.as_ref(), max_false);
            println!(
                "| {name} | {t:.2} | {:.1} % | {:.1} % |",
                d * 100.0,
                f * 100.0
            );
        }
    }
}
