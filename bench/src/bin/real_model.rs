//! Tasks against a real model: the assistant's catalog, one conversation per
//! task, through the same settings `assistant chat` builds
//! ([`assistant::chat::ChatSettings`]), in each loading mode.
//!
//! Usage: `real_model --base-url URL --model NAME [--set FILE] [--modes a,b]
//! [--label TEXT]` (or `bash bench/real_model.sh`, which starts the server).
//! Modes: `eager`, `lazy` (the default: bridge and preload), `lazy-append`,
//! `lazy-no-preload`, `code` (code mode), `text` (lazy, no `tools` field);
//! `eager-server` and `lazy-server` are eager and lazy with the server
//! reading the calls (`CallReading::Server`) where the default has the
//! agent read them on a local server.
//!
//! Per task: done (the right tool with the right arguments, and the
//! expected words in the answer; the arguments as the tool received them,
//! after the agent's lenient repairs, and also counted as the model sent
//! them), requests, prompt tokens, wall time,
//! requests the server refused (HTTP 500), retries, and how it ended.
//! One JSON line per task on stdout, then a table per mode on stderr.

use std::path::PathBuf;
use std::time::Instant;

use assistant::chat::ChatSettings;
use assistant::{App, AppConfig};
use optimclaw::{CallOptions, LazyConfig, LoadStrategy, Registry};
use optimclaw_agent::{AgentEvent, CallReading};
use serde::Deserialize;
use serde_json::{Value, json};

/// One task: a user message, the tool and arguments a right answer needs
/// (`tool: null` for a question that needs none), other calls that do the
/// same job, and words the answer must hold.
#[derive(Debug, Deserialize)]
struct Task {
    id: String,
    message: String,
    tool: Option<String>,
    /// Each argument named here must hold this text (case-insensitive).
    #[serde(default)]
    args: serde_json::Map<String, Value>,
    /// Calls of other tools that are right too (`time` with the date-time
    /// and the zone does what `timezone_convert` does).
    #[serde(default)]
    also: Vec<RightCall>,
    /// The answer must hold one of these (case-insensitive).
    answer: Vec<String>,
}

/// Another right call: the tool, and text each named argument must hold.
#[derive(Debug, Deserialize)]
struct RightCall {
    tool: String,
    #[serde(default)]
    args: serde_json::Map<String, Value>,
}

/// Whether `call` (`{"name", "arguments"}`) is of `tool` with each argument
/// in `args` holding its text.
fn is_call(call: &Value, tool: &str, args: &serde_json::Map<String, Value>) -> bool {
    call["name"] == tool
        && args.iter().all(|(k, want)| {
            let got = &call["arguments"][k];
            let got = got.as_str().map_or_else(|| got.to_string(), str::to_owned);
            contains(&got, want.as_str().unwrap_or(""))
        })
}

#[derive(Default)]
struct Outcome {
    done: bool,
    /// With the arguments as the tool received them (after the agent's
    /// lenient repairs: `start_date` read as `start`).
    right_call: bool,
    /// With the arguments as the model sent them.
    right_call_as_sent: bool,
    right_answer: bool,
    requests: usize,
    prompt_tokens: u64,
    seconds: f64,
    refused: usize,
    retries: usize,
    ended: String,
    calls: Vec<(String, String)>,
    answer: String,
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn settings(mode: &str, base: &str, model: &str) -> Result<ChatSettings, String> {
    let (mode, server_reads) = match mode.strip_suffix("-server") {
        Some(mode) => (mode, true),
        None => (mode, false),
    };
    let lazy = match mode {
        "eager" => LazyConfig::eager(),
        "code" => LazyConfig::lazy().with_code_mode(true),
        _ => LazyConfig::lazy(),
    };
    let mut settings =
        ChatSettings::from_env("openai", Some(base.into()), Some(model.into()), lazy)?;
    match mode {
        "lazy-append" => settings.lazy = settings.lazy.clone().with_strategy(LoadStrategy::Append),
        "lazy-no-preload" => settings.preload = false,
        "text" => settings.text_tools = true,
        _ => {}
    }
    if server_reads {
        settings.call_reading = CallReading::Server;
    }
    // llama-server's per-chunk timings: the prompt tokens of a reply read
    // only up to its first call (FirstCall), which the server would
    // otherwise report at the end the loop no longer reads.
    settings.model = settings
        .model
        .clone()
        .with_extra_field("timings_per_token", Value::Bool(true));
    Ok(settings)
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

async fn run(task: &Task, mode: &str, base: &str, model: &str) -> Outcome {
    let home =
        std::env::temp_dir().join(format!("optimclaw-real-{}-{}", std::process::id(), task.id));
    let _ = std::fs::remove_dir_all(&home);
    let app = App::open(AppConfig::new(&home)).expect("the assistant opens");
    let mut outcome = Outcome::default();
    let settings = match settings(mode, base, model) {
        Ok(s) => s,
        Err(e) => {
            outcome.ended = format!("config: {e}");
            return outcome;
        }
    };
    let registry = Registry::builder()
        .lazy(settings.lazy.clone())
        .build()
        .expect("the catalog builds");
    let catalog = registry.clone();
    let mut agent = match settings.agent(registry, app.context()) {
        Ok(agent) => agent,
        Err(e) => {
            outcome.ended = format!("config: {e}");
            return outcome;
        }
    };
    let started = Instant::now();
    let mut calls = Vec::new();
    // The ids of calls that ran and answered without an error.
    let mut answered = std::collections::HashSet::new();
    let (mut refused, mut retries) = (0, 0);
    let result = agent
        .send_with(&task.message, |event| match event {
            AgentEvent::ToolCall(call) => {
                let args = match &call.arguments {
                    Ok(v) if call.name == "call_tool" => v.clone(),
                    Ok(v) => json!({"name": call.name, "arguments": v}),
                    Err(_) => json!({"name": call.name, "raw": call.raw_arguments}),
                };
                calls.push((call.id.clone(), args));
            }
            AgentEvent::ToolResult(result) if !result.is_error => {
                answered.insert(result.id.clone());
            }
            AgentEvent::Retry { reason, .. } => {
                retries += 1;
                if reason.contains("HTTP 500") || reason.contains("refused") {
                    refused += 1;
                }
            }
            _ => {}
        })
        .await;
    outcome.seconds = started.elapsed().as_secs_f64();
    // Each conversation as the agent kept it, for reading a failure:
    // REAL_MODEL_TRANSCRIPTS=DIR writes DIR/MODE-TASK.txt.
    if let Some(dir) = std::env::var_os("REAL_MODEL_TRANSCRIPTS") {
        let path = PathBuf::from(dir).join(format!("{mode}-{}.txt", task.id));
        if let Err(e) = std::fs::write(&path, format!("{:#?}", agent.transcript())) {
            eprintln!("{}: {e}", path.display());
        }
    }
    outcome.requests = agent.usage().len();
    outcome.prompt_tokens = agent.usage().iter().filter_map(|u| u.input_tokens).sum();
    outcome.refused = refused;
    outcome.retries = retries;
    outcome.calls = calls
        .iter()
        .map(|(_, c)| {
            (
                c["name"].as_str().unwrap_or("").to_owned(),
                c.get("arguments").unwrap_or(&Value::Null).to_string(),
            )
        })
        .collect();
    match result {
        Ok(reply) => {
            outcome.ended = "answer".into();
            outcome.answer = reply.text;
        }
        Err(e) => outcome.ended = format!("{}: {e}", e.kind()),
    }
    // Each call that answered also as the tool received it: the agent takes
    // arguments leniently (`AgentOptions::lenient_arguments`, on by
    // default).
    let lenient = CallOptions::default().with_lenient(true);
    let as_run: Vec<Value> = calls
        .iter()
        .filter(|(id, _)| answered.contains(id))
        .filter_map(|(_, c)| {
            let tool = catalog.get(c["name"].as_str()?)?;
            let args = tool
                .prepare_arguments(c["arguments"].clone(), &lenient)
                .ok()?;
            Some(json!({"name": c["name"], "arguments": args}))
        })
        .collect();
    let right = |calls: &[Value]| match &task.tool {
        None => calls.iter().all(|c| c["name"] == "tool_info"),
        Some(tool) => calls.iter().any(|c| {
            is_call(c, tool, &task.args)
                || task
                    .also
                    .iter()
                    .any(|other| is_call(c, &other.tool, &other.args))
        }),
    };
    let calls: Vec<Value> = calls.into_iter().map(|(_, c)| c).collect();
    outcome.right_call_as_sent = right(&calls);
    outcome.right_call = match &task.tool {
        None => outcome.right_call_as_sent,
        Some(_) => outcome.right_call_as_sent || right(&as_run),
    };
    outcome.right_answer = task.answer.iter().any(|a| contains(&outcome.answer, a));
    outcome.done = outcome.right_call && outcome.right_answer;
    let _ = std::fs::remove_dir_all(&home);
    outcome
}

#[tokio::main]
async fn main() {
    let base = arg("--base-url").unwrap_or_else(|| "http://127.0.0.1:8088/v1".into());
    let model = arg("--model").unwrap_or_else(|| "qwen2.5-coder-0.5b-instruct".into());
    let label = arg("--label").unwrap_or_else(|| model.clone());
    let set = arg("--set").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/real-model/dev.jsonl"),
        PathBuf::from,
    );
    let modes = arg("--modes").unwrap_or_else(|| "eager,lazy".into());
    let tasks: Vec<Task> = std::fs::read_to_string(&set)
        .unwrap_or_else(|e| panic!("{}: {e}", set.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each task line is valid"))
        .collect();
    let mut table = Vec::new();
    for mode in modes.split(',') {
        let mut sum = Outcome::default();
        let (mut done, mut done_as_sent) = (0, 0);
        let mut loops = 0;
        for task in &tasks {
            let o = run(task, mode, &base, &model).await;
            println!(
                "{}",
                json!({
                    "label": label, "mode": mode, "task": task.id, "done": o.done,
                    "right_call": o.right_call, "right_call_as_sent": o.right_call_as_sent,
                    "right_answer": o.right_answer,
                    "requests": o.requests, "prompt_tokens": o.prompt_tokens,
                    "seconds": (o.seconds * 10.0).round() / 10.0, "refused": o.refused,
                    "retries": o.retries, "ended": o.ended, "calls": o.calls,
                    "answer": o.answer.chars().take(200).collect::<String>(),
                })
            );
            done += usize::from(o.done);
            done_as_sent += usize::from(o.right_call_as_sent && o.right_answer);
            loops += usize::from(
                o.ended.starts_with("step_limit") || o.ended.starts_with("no_progress"),
            );
            sum.requests += o.requests;
            sum.prompt_tokens += o.prompt_tokens;
            sum.seconds += o.seconds;
            sum.refused += o.refused;
            sum.retries += o.retries;
        }
        table.push(format!(
            "| {label} | {mode} | {done} / {} | {done_as_sent} | {} | {} | {:.0} | {} | {} | {loops} |",
            tasks.len(),
            sum.requests,
            sum.prompt_tokens,
            sum.seconds,
            sum.refused,
            sum.retries,
        ));
    }
    eprintln!(
        "| model | mode | done | done, arguments as sent | requests | prompt tokens | wall s | refused | retries | stuck or step limit |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|---|---|");
    for row in table {
        eprintln!("{row}");
    }
}
