//! What multi-step tasks cost tool by tool and in code mode, priced as each
//! provider bills under its prompt caching, next to eager with caching.
//!
//! Three tasks, each needing many calls of one tool: the SHA-256 digests
//! of 12 words (`hash_text`), the largest of 6 expressions (`calculate`),
//! which of 7 notes files mention a deadline (`file_read`). They run
//! through the real agent loop over the assistant's catalog against a
//! stand-in model on loopback. Tool by tool, the stand-in finds the tool
//! (`tool_info`, unless it is in sight), makes every call in one reply
//! (parallel calls) and answers: every result is read again by the next
//! request. In code mode it finds the tool the same way, then sends one
//! `run_code` program that makes the calls and returns only the answer.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin code_tasks`

// Shared with the cache bench, whose tables read more of it.
#[allow(dead_code)]
#[path = "cache/price.rs"]
mod price;
#[allow(dead_code)]
#[path = "cache/standin.rs"]
mod standin;

// Links code mode's `run_code` tool.
use optimclaw_code as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use assistant::{App, AppConfig};
use optimclaw::preload::PreloadOptions;
use optimclaw::{LazyConfig, LoadStrategy, Registry, Session, ToolContext};
use optimclaw_agent::{
    Agent, AgentEvent, AgentOptions, CacheTtl, ModelConfig, PromptCache, WireFormat,
};
use serde_json::{Value, json};

const OPENAI_READ: f64 = 0.25;
const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";

/// One task: the message, the tool it needs, the query a model would
/// search with, the calls tool by tool, and the program of code mode.
struct Task {
    message: String,
    tool: &'static str,
    query: &'static str,
    calls: Vec<Value>,
    program: String,
    /// What the right answer contains.
    expect: &'static str,
}

const WORDS: [&str; 12] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima",
];
const EXPRESSIONS: [&str; 6] = [
    "17 * 23",
    "1024 / 8",
    "99 + 301",
    "12 * 12 * 3",
    "5000 - 4321",
    "7 * 7 * 7",
];

fn notes() -> Vec<(String, String)> {
    let body = |i: usize, deadline: bool| {
        let mut text = format!("Meeting notes {i}.\n");
        for line in 0..30 {
            text.push_str(&format!(
                "Item {line}: discussed the roadmap, staffing and the budget for quarter {}.\n",
                line % 4 + 1
            ));
        }
        if deadline {
            text.push_str("Action: the report deadline is Friday.\n");
        }
        text
    };
    (1..=7)
        .map(|i| (format!("notes/{i}.txt"), body(i, i % 3 == 0)))
        .collect()
}

fn tasks() -> Vec<Task> {
    let words = WORDS.map(|w| format!("{w:?}")).join(", ");
    let exprs = EXPRESSIONS.map(|e| format!("{e:?}")).join(", ");
    vec![
        Task {
            message: format!("Give me the SHA-256 digests of these 12 words: {}.", WORDS.join(", ")),
            tool: "hash_text",
            query: "sha256 hash digest of a text",
            calls: WORDS.iter().map(|w| json!({"text": w})).collect(),
            program: format!(
                "const words = [{words}];\nconst digests = await Promise.all(words.map(text => tools.hash_text({{text}})));\nreturn Object.fromEntries(words.map((w, i) => [w, digests[i]]));"
            ),
            expect: "8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8",
        },
        Task {
            message: format!(
                "Evaluate these 6 expressions and tell me which is largest: {}.",
                EXPRESSIONS.join("; ")
            ),
            tool: "calculate",
            query: "calculate arithmetic expression",
            calls: EXPRESSIONS.iter().map(|e| json!({"expression": e})).collect(),
            program: format!(
                "const exprs = [{exprs}];\nconst values = await Promise.all(exprs.map(expression => tools.calculate({{expression}})));\nlet best = 0;\nvalues.forEach((v, i) => {{ if (v > values[best]) best = i; }});\nreturn {{expression: exprs[best], value: values[best]}};"
            ),
            expect: "679",
        },
        Task {
            message: "Which of my 7 notes files, notes/1.txt to notes/7.txt, mention a deadline?"
                .into(),
            tool: "file_read",
            query: "read a text file",
            calls: (1..=7).map(|i| json!({"path": format!("notes/{i}.txt")})).collect(),
            program: "const hits = [];\nfor (let i = 1; i <= 7; i++) {\n  const f = await tools.file_read({path: `notes/${i}.txt`});\n  if (/deadline/i.test(f.content)) hits.push(f.path);\n}\nreturn hits;".into(),
            expect: "notes/6.txt",
        },
    ]
}

/// The stand-in's reply with several tool calls at once.
fn calls(format: WireFormat, id: &AtomicUsize, calls: Vec<(&str, Value)>) -> Value {
    let next = || id.fetch_add(1, Ordering::Relaxed);
    match format {
        WireFormat::OpenAiChat => {
            let tool_calls: Vec<Value> = calls
                .into_iter()
                .map(|(name, args)| {
                    json!({"id": format!("call_{}", next()), "type": "function",
                    "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            json!({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": tool_calls}, "finish_reason": "tool_calls"}]})
        }
        WireFormat::AnthropicMessages => {
            let content: Vec<Value> = calls
                .into_iter()
                .map(|(name, args)| json!({"type": "tool_use", "id": format!("toolu_{}", next()), "name": name, "input": args}))
                .collect();
            json!({"id": "m", "type": "message", "role": "assistant", "model": "m",
            "content": content, "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}})
        }
    }
}

/// The stand-in's next move.
fn decide(format: WireFormat, body: &Value, tasks: &[Task], id: &AtomicUsize) -> Value {
    let r = match format {
        WireFormat::OpenAiChat => standin::read_openai(body),
        WireFormat::AnthropicMessages => standin::read_anthropic(body),
    };
    let Some(task) = tasks.iter().find(|t| t.message == r.user) else {
        return standin::say(format, "(not a scripted message)");
    };
    let tool = task.tool;
    if let Some((_, out)) = r.results.iter().find(|(n, _)| n == "run_code") {
        return standin::say(format, &format!("Here is what the program found: {out}"));
    }
    if r.results.iter().any(|(n, _)| n == tool || n == "call_tool") {
        let all: Vec<&str> = r.results.iter().map(|(_, out)| out.as_str()).collect();
        return standin::say(format, &format!("Here is what I found: {}", all.join("; ")));
    }
    let callable = |name: &str| r.callable.iter().any(|n| n == name);
    let seen = callable(tool)
        || r.attached.contains(tool)
        || r.earlier.iter().any(|out| out.contains(tool));
    if callable("run_code") && seen {
        return calls(
            format,
            id,
            vec![("run_code", json!({"code": task.program}))],
        );
    }
    if callable(tool) {
        let list = task.calls.iter().map(|a| (tool, a.clone())).collect();
        return calls(format, id, list);
    }
    if seen && callable("call_tool") {
        let list = task
            .calls
            .iter()
            .map(|a| ("call_tool", json!({"name": tool, "arguments": a})))
            .collect();
        return calls(format, id, list);
    }
    calls(
        format,
        id,
        vec![("tool_info", json!({"query": task.query, "max_results": 3}))],
    )
}

struct Setup {
    label: &'static str,
    lazy: LazyConfig,
    preload: bool,
}

struct Run {
    bodies: Vec<Value>,
    done: usize,
    tool_calls: usize,
}

async fn conversation(
    format: WireFormat,
    setup: &Setup,
    registry: &Registry,
    ctx: &ToolContext,
) -> Run {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let tasks = Arc::new(tasks());
    let id = Arc::new(AtomicUsize::new(1));
    let script = Arc::clone(&tasks);
    let base = standin::serve_with(
        format,
        Arc::clone(&bodies),
        Arc::new(move |body: &Value| decide(format, body, &script, &id)),
    )
    .await;
    // The stand-in prices and caches as the providers' own APIs do.
    let model = ModelConfig::from_env(format, Some(base), Some(ANTHROPIC_MODEL.into()))
        .expect("config")
        .with_first_party(true);
    let session = Session::with_lazy(registry.clone(), setup.lazy.clone());
    let options = AgentOptions::default()
        .with_preload(setup.preload.then(PreloadOptions::default))
        .with_cache(PromptCache::Breakpoints, CacheTtl::FiveMinutes)
        .with_code_mode(setup.lazy.code_mode);
    let mut agent = Agent::new(session, model, options)
        .expect("agent")
        .context(ctx.clone());
    let (mut done, mut tool_calls) = (0, 0);
    for task in tasks.iter() {
        let mut outputs = String::new();
        let result = agent
            .send_with(&task.message, |e| match e {
                AgentEvent::ToolCall(_) => tool_calls += 1,
                AgentEvent::ToolResult(outcome) => outputs.push_str(&format!("{outcome:?}")),
                _ => {}
            })
            .await;
        if result.is_ok() && outputs.contains(task.expect) {
            done += 1;
        }
    }
    let bodies = bodies.lock().unwrap().clone();
    Run {
        bodies,
        done,
        tool_calls,
    }
}

fn bill(format: WireFormat, bodies: &[Value]) -> price::Bill {
    match format {
        WireFormat::OpenAiChat => price::openai(bodies, OPENAI_READ),
        WireFormat::AnthropicMessages => price::anthropic(bodies, ANTHROPIC_MODEL),
    }
}

#[tokio::main]
async fn main() {
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let home = std::env::temp_dir().join(format!("optimclaw-code-tasks-{}", std::process::id()));
    let app = App::open(AppConfig::new(&home)).expect("the app opens");
    let workspace = home.join("workspace");
    for (path, text) in notes() {
        let full = workspace.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let ctx = app.context();
    let build = |lazy: LazyConfig| {
        Registry::builder()
            .lazy(lazy)
            .build()
            .expect("valid catalog")
    };
    let setups = [
        Setup {
            label: "eager, tool by tool",
            lazy: LazyConfig::eager(),
            preload: false,
        },
        Setup {
            label: "bridge + preload, tool by tool",
            lazy: LazyConfig::lazy().with_strategy(LoadStrategy::Bridge),
            preload: true,
        },
        Setup {
            label: "code mode + preload",
            lazy: LazyConfig::lazy().with_code_mode(true),
            preload: true,
        },
        Setup {
            label: "code mode, no preload",
            lazy: LazyConfig::lazy().with_code_mode(true),
            preload: false,
        },
    ];
    println!(
        "Three multi-step tasks (12 digests, the largest of 6 expressions, 7 notes files searched) over the assistant's catalog; priced as billed (Anthropic {ANTHROPIC_MODEL}: marked prefixes, writes 1.25×, reads 0.1×; OpenAI: automatic, reads {OPENAI_READ}×), in uncached-token units (o200k).\n"
    );
    println!(
        "| wire format | setup | requests | tool calls | uncached tokens | cache reads | cost | vs eager with cache | tasks right |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
        let mut eager_cost = None;
        for setup in &setups {
            let registry = build(setup.lazy.clone());
            let run = conversation(format, setup, &registry, &ctx).await;
            let b = bill(format, &run.bodies);
            let eager = *eager_cost.get_or_insert(b.cost);
            println!(
                "| {} | {} | {} | {} | {} | {} | {:.0} | {:.2}× | {}/3 |",
                match format {
                    WireFormat::OpenAiChat => "openai chat",
                    WireFormat::AnthropicMessages => "anthropic messages",
                },
                setup.label,
                b.requests,
                run.tool_calls,
                b.uncached,
                b.read,
                b.cost,
                b.cost / eager,
                run.done
            );
        }
    }
    let _ = std::fs::remove_dir_all(&home);
}
