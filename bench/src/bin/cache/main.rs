//! What whole conversations cost under each provider's prompt caching, per
//! load strategy, with tools attached before the model asks (preload) or
//! not, next to eager loading with caching.
//!
//! A scripted conversation (8 user messages, 4 discoveries, `calculate`
//! used three times, a core tool, a closing answer; 3 times over for the
//! long one) runs through the real agent loop against a stand-in model on
//! loopback (`standin.rs`), for each wire format and strategy. Every
//! request body is recorded and priced as the provider bills it
//! (`price.rs`): Anthropic only for what the request marks, OpenAI by its
//! automatic cache. Each conversation also gets a lower bound
//! (`floor.rs`): what no lazy strategy can beat on it. Later tables price
//! the long conversation with its history compacted (`compaction.rs`) and
//! a conversation of parallel calls (`parallel.rs`), breakpoints against
//! automatic caching, and have a
//! model that never calls `tool_info` do 12 tasks.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin cache`.
//! `CACHE_DEBUG=1` prints what preload attached; `CACHE_DUMP=DIR` writes
//! each conversation's request bodies to DIR as JSON.

mod compaction;
mod floor;
mod parallel;
mod price;
mod standin;
mod tasks;

use std::sync::{Arc, Mutex};

use optimclaw::preload::PreloadOptions;
use optimclaw::{LazyConfig, LoadStrategy, Registry, Session, ToolContext};
use optimclaw_agent::{
    Agent, AgentEvent, AgentOptions, CacheTtl, Compaction, ModelConfig, PromptCache, WireFormat,
};
use serde_json::Value;
use standin::{Behaviour, Task};
use tasks::{never_search_tasks, script};

/// OpenAI's cached-input price as a share of its input price (gpt-4.1 and
/// gpt-4.1-mini: $0.10 against $0.40 per million for the mini).
const OPENAI_READ: f64 = 0.25;
/// The model the Anthropic stand-in is priced as (its minimum cacheable
/// prefix: 1,024 tokens).
const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// One configuration of a run.
#[derive(Clone)]
struct Setup {
    label: &'static str,
    lazy: LazyConfig,
    preload: bool,
    cache: PromptCache,
    compaction: Option<Compaction>,
}

/// What a conversation sent, how many of its tasks used their tool, and
/// how many `tool_info` calls it made.
struct Run {
    bodies: Vec<Value>,
    done: usize,
    searches: usize,
    compactions: usize,
    /// Replies that called two tools or more at once.
    parallel: usize,
}

async fn conversation(
    format: WireFormat,
    setup: &Setup,
    registry: &Registry,
    tasks: Vec<Task>,
    behaviour: Behaviour,
) -> Run {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let base = standin::serve(format, Arc::clone(&bodies), tasks.clone(), behaviour).await;
    // The stand-in prices and caches as the providers' own APIs do.
    let model = ModelConfig::from_env(format, Some(base), Some(ANTHROPIC_MODEL.into()))
        .expect("config")
        .with_first_party(true);
    let session = Session::with_lazy(registry.clone(), setup.lazy.clone());
    let options = AgentOptions::default()
        .with_preload(setup.preload.then(PreloadOptions::default))
        .with_cache(setup.cache, CacheTtl::FiveMinutes)
        .with_compaction(setup.compaction);
    let mut agent = Agent::new(session, model, options)
        .expect("agent")
        .context(ToolContext::new());
    let (mut done, mut searches, mut compactions, mut parallel) = (0, 0, 0, 0);
    for task in &tasks {
        let needs: Vec<&str> = task.needs().iter().map(|(t, _, _)| *t).collect();
        let mut used: Vec<String> = Vec::new();
        let mut in_reply = 0;
        let result = agent
            .send_with(&task.message, |e| {
                if let AgentEvent::ToolCall(call) = e {
                    let args = call.arguments.as_ref().ok();
                    let name = match args.and_then(|a| a["name"].as_str()) {
                        Some(bridged) if call.name == "call_tool" => bridged,
                        _ => call.name.as_str(),
                    };
                    if needs.contains(&name) && !used.iter().any(|u| u == name) {
                        used.push(name.to_owned());
                    }
                    searches += usize::from(call.name == "tool_info");
                }
                compactions += usize::from(matches!(e, AgentEvent::Compacted { .. }));
                match e {
                    AgentEvent::Request { .. } => in_reply = 0,
                    AgentEvent::ToolCall(_) => {
                        in_reply += 1;
                        parallel += usize::from(in_reply == 2);
                    }
                    _ => {}
                }
            })
            .await;
        if result.is_ok() && used.len() == needs.len() {
            done += 1;
        }
    }
    if std::env::var_os("CACHE_DEBUG").is_some() {
        for turn in agent.transcript() {
            if let optimclaw_agent::Turn::Attached { tools, .. } = turn {
                eprintln!("  {}: attached {tools:?}", setup.label);
            }
        }
    }
    let bodies = bodies.lock().unwrap().clone();
    if let Some(dir) = std::env::var_os("CACHE_DUMP") {
        let name = format!(
            "{}-{}-{}-{}-{}.json",
            format.name(),
            setup.label.replace([' ', ',', '+'], "_"),
            tasks.len(),
            registry.len(),
            behaviour as u8
        );
        std::fs::write(
            std::path::Path::new(&dir).join(name),
            serde_json::to_string_pretty(&bodies).unwrap(),
        )
        .unwrap();
    }
    Run {
        bodies,
        done,
        searches,
        compactions,
        parallel,
    }
}

fn bill(format: WireFormat, bodies: &[Value]) -> price::Bill {
    match format {
        WireFormat::OpenAiChat => price::openai(bodies, OPENAI_READ),
        WireFormat::AnthropicMessages => price::anthropic(bodies, ANTHROPIC_MODEL),
    }
}

/// The registry: the assistant's catalog, optionally with the 525 tools of
/// 70 real MCP servers (`mcp-live-526`, listed, not callable here).
fn registry(with_mcp: bool) -> Registry {
    let mut builder = Registry::builder().lazy(LazyConfig::lazy());
    if with_mcp {
        let path = optimclaw_bench::data_dir().join("mcp-live-526/tools.json");
        let tools = optimclaw::manifest::load_manifest(
            &path,
            &optimclaw::manifest::ManifestOptions::default(),
        )
        .expect("the corpus loads");
        builder = builder.tools(tools);
    }
    builder.build().expect("the catalog is valid")
}

fn setups(format: WireFormat) -> Vec<Setup> {
    let lazy = |s| LazyConfig::lazy().with_strategy(s);
    let setup = |label, lazy, preload, cache| Setup {
        label,
        lazy,
        preload,
        cache,
        compaction: None,
    };
    let b = PromptCache::Breakpoints;
    let mut out = vec![setup("eager", LazyConfig::eager(), false, b)];
    if format == WireFormat::AnthropicMessages {
        out.push(setup(
            "eager, caching not asked for",
            LazyConfig::eager(),
            false,
            PromptCache::Off,
        ));
    }
    out.push(setup("append", lazy(LoadStrategy::Append), false, b));
    out.push(setup("bridge", lazy(LoadStrategy::Bridge), false, b));
    out.push(setup(
        "bridge + preload",
        lazy(LoadStrategy::Bridge),
        true,
        b,
    ));
    if format == WireFormat::AnthropicMessages {
        out.push(setup(
            "bridge + preload, automatic cache_control",
            lazy(LoadStrategy::Bridge),
            true,
            PromptCache::Automatic,
        ));
        out.push(setup("native", lazy(LoadStrategy::Native), false, b));
        out.push(setup(
            "native, automatic cache_control",
            lazy(LoadStrategy::Native),
            false,
            PromptCache::Automatic,
        ));
    }
    out
}

#[tokio::main]
async fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    println!(
        "Priced as billed: Anthropic ({ANTHROPIC_MODEL}) caches marked prefixes only (writes 1.25×, reads 0.1×, 1,024-token minimum); OpenAI caches prompts of 1,024+ tokens itself (reads {OPENAI_READ}×). Costs in uncached-token units (o200k).\n"
    );
    println!(
        "| tools | messages | wire format | setup | requests | tool_info calls | uncached tokens | cache reads | cache writes | cost | vs eager with cache | tasks done |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (with_mcp, label) in [(false, "catalog (53)"), (true, "catalog + 525 MCP")] {
        let registry = registry(with_mcp);
        for rounds in [1, 3] {
            for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
                let mut eager_cost = None;
                let (mut eager_bodies, mut preload_bodies) = (Vec::new(), Vec::new());
                let tasks = script(rounds);
                let n = tasks.len();
                for setup in setups(format) {
                    let run = conversation(
                        format,
                        &setup,
                        &registry,
                        tasks.clone(),
                        Behaviour::Searches,
                    )
                    .await;
                    let b = bill(format, &run.bodies);
                    let base = *eager_cost.get_or_insert(b.cost);
                    println!(
                        "| {label} | {n} | {} | {} | {} | {} | {} | {}/{n} |",
                        format.name(),
                        setup.label,
                        b.requests,
                        run.searches,
                        b.cells(base),
                        run.done,
                    );
                    match setup.label {
                        "eager" => eager_bodies = run.bodies,
                        "bridge + preload" => preload_bodies = run.bodies,
                        _ => {}
                    }
                }
                // What no lazy strategy can beat on this conversation.
                if let (Some(base), Some(bodies)) = (
                    eager_cost,
                    floor::bodies(format, &registry, &tasks, &eager_bodies, &preload_bodies),
                ) {
                    let b = bill(format, &bodies);
                    println!(
                        "| {label} | {n} | {} | lower bound: eager's requests, the lazy fixed part, each needed schema attached once | {} | 0 | {} | — |",
                        format.name(),
                        b.requests,
                        b.cells(base),
                    );
                }
            }
        }
    }
    println!(
        "\nWhat attachments cost when the model ignores them (it searches anyway), assistant catalog, 8 messages:\n"
    );
    println!("| wire format | bridge | bridge + preload, attachments ignored | extra cost |");
    println!("|---|---|---|---|");
    let registry = registry(false);
    for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
        let all = setups(format);
        let find = |label| all.iter().find(|s| s.label == label).unwrap();
        let plain = conversation(
            format,
            find("bridge"),
            &registry,
            script(1),
            Behaviour::Searches,
        )
        .await;
        let ignored = conversation(
            format,
            find("bridge + preload"),
            &registry,
            script(1),
            Behaviour::IgnoresAttached,
        )
        .await;
        let (a, b) = (
            bill(format, &plain.bodies).cost,
            bill(format, &ignored.bodies).cost,
        );
        println!(
            "| {} | {a:.0} | {b:.0} | {:+.1} % |",
            format.name(),
            100.0 * (b - a) / a
        );
    }
    compaction::table(&registry).await;
    parallel::table(&registry).await;
    println!(
        "\nA model that never calls tool_info, 12 tasks each needing one deferred tool (assistant catalog):\n"
    );
    println!("| wire format | setup | tasks done | requests | cost vs eager with cache |");
    println!("|---|---|---|---|---|");
    for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
        let mut eager_cost = None;
        for setup in setups(format)
            .into_iter()
            .filter(|s| matches!(s.label, "eager" | "bridge" | "bridge + preload"))
        {
            let run = conversation(
                format,
                &setup,
                &registry,
                never_search_tasks(),
                Behaviour::NeverSearches,
            )
            .await;
            let b = bill(format, &run.bodies);
            let base = *eager_cost.get_or_insert(b.cost);
            println!(
                "| {} | {} | {}/12 | {} | {:.2}× |",
                format.name(),
                setup.label,
                run.done,
                b.requests,
                b.cost / base
            );
        }
    }
}

/// The ways of asking for caching a table compares, per wire format
/// (OpenAI caches by itself; its `PromptCache` is not read).
fn caching_modes(format: WireFormat) -> &'static [(PromptCache, &'static str)] {
    match format {
        WireFormat::OpenAiChat => &[(PromptCache::Breakpoints, "automatic (the provider's)")],
        WireFormat::AnthropicMessages => &[
            (PromptCache::Breakpoints, "breakpoints"),
            (PromptCache::Automatic, "automatic cache_control"),
        ],
    }
}
