//! Dispatch cost: one `call` through the registry, against calling the
//! function directly and against deserialising the same arguments alone;
//! and building a registry of 10k tools. Run: `cargo bench -p optimclaw-bench`.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use divan::{Bencher, black_box};
use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::{DynamicTool, LazyConfig, Registry, ToolContext, tool};
use serde::Deserialize;
use serde_json::{Value, json};

fn main() {
    divan::main();
}

/// Add two integers.
#[tool(core)]
fn add(
    /// First.
    a: i64,
    /// Second.
    b: i64,
) -> i64 {
    a + b
}

/// The same fields as `add`'s generated argument struct.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// Create a background job.
#[tool]
fn create_job(
    /// What to do.
    prompt: String,
    /// 1 is most urgent.
    #[arg(default = 5)]
    priority: u8,
    /// Time limit.
    #[arg(default = 300)]
    timeout_secs: u64,
    /// Labels.
    #[arg(default)]
    labels: Vec<String>,
) -> usize {
    prompt.len() + usize::from(priority) + usize::try_from(timeout_secs).unwrap_or(0) + labels.len()
}

/// The same fields as `create_job`'s generated argument struct.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct JobArgs {
    prompt: String,
    #[serde(default)]
    priority: u8,
    #[serde(default)]
    timeout_secs: u64,
    #[serde(default)]
    labels: Vec<String>,
}

fn job_args() -> Value {
    json!({"prompt": "Summarize today's news and send it to the team channel", "priority": 3, "timeout_secs": 600, "labels": ["news", "daily"]})
}

#[divan::bench]
fn job_deserialise_arguments_alone(bencher: Bencher<'_, '_>) {
    bencher
        .with_inputs(job_args)
        .bench_values(|args: Value| black_box(serde_json::from_value::<JobArgs>(args).unwrap()));
}

#[divan::bench]
fn job_call_the_function_directly(bencher: Bencher<'_, '_>) {
    bencher.with_inputs(job_args).bench_values(|args: Value| {
        let a: JobArgs = serde_json::from_value(args).unwrap();
        black_box(
            serde_json::to_value(create_job(a.prompt, a.priority, a.timeout_secs, a.labels))
                .unwrap(),
        )
    });
}

#[divan::bench]
fn job_call_through_the_registry(bencher: Bencher<'_, '_>) {
    let registry = Registry::builder()
        .without_linked()
        .descriptor(
            optimclaw::linked_tools()
                .find(|d| d.name == "create_job")
                .unwrap(),
        )
        .lazy(LazyConfig::eager())
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    bencher.with_inputs(job_args).bench_values(|args: Value| {
        black_box(ready(registry.call("create_job", args, &ctx)).unwrap())
    });
}

/// Polls a future that completes without waiting (a sync tool), with no
/// runtime in the measurement.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the tool future is not ready at once"),
    }
}

fn registry() -> Registry {
    Registry::builder()
        .without_linked()
        .descriptor(optimclaw::linked_tools().find(|d| d.name == "add").unwrap())
        .lazy(LazyConfig::eager())
        .build()
        .unwrap()
}

#[divan::bench]
fn deserialise_arguments_alone(bencher: Bencher<'_, '_>) {
    let args = json!({"a": 2, "b": 40});
    bencher
        .with_inputs(|| args.clone())
        .bench_values(|args: Value| black_box(serde_json::from_value::<AddArgs>(args).unwrap()));
}

#[divan::bench]
fn call_the_function_directly(bencher: Bencher<'_, '_>) {
    let args = json!({"a": 2, "b": 40});
    bencher
        .with_inputs(|| args.clone())
        .bench_values(|args: Value| {
            let a = args["a"].as_i64().unwrap();
            let b = args["b"].as_i64().unwrap();
            black_box(serde_json::to_value(add(a, b)).unwrap())
        });
}

#[divan::bench]
fn call_through_the_registry(bencher: Bencher<'_, '_>) {
    let registry = registry();
    let ctx = ToolContext::new();
    let args = json!({"a": 2, "b": 40});
    bencher
        .with_inputs(|| args.clone())
        .bench_values(|args: Value| black_box(ready(registry.call("add", args, &ctx)).unwrap()));
}

#[divan::bench(sample_count = 10)]
fn build_a_registry_of_10k_tools(bencher: Bencher<'_, '_>) {
    let data = optimclaw_bench::data_dir();
    let opts = ManifestOptions::default();
    let mut pool: Vec<DynamicTool> =
        load_manifest(&data.join("mcp-live-526/tools.json"), &opts).unwrap();
    pool.extend(load_manifest(&data.join("bfcl-dev/tools.json"), &opts).unwrap());
    let tools = optimclaw_bench::synthetic(&pool, 10_000);
    bencher.with_inputs(|| tools.clone()).bench_values(|tools| {
        black_box(
            Registry::builder()
                .without_linked()
                .lazy(LazyConfig::lazy())
                .tools(tools)
                .build()
                .unwrap(),
        )
    });
}
