//! Code mode's cost per run: `run_code` of a program that returns at once
//! (a fresh interpreter, its prelude, one thread), and of a program making
//! 12 tool calls, against the same 12 calls through the registry one by
//! one (what a tool-by-tool model's runtime does; the model's requests, the
//! real cost, are priced by the `code_tasks` bench).
//! Run: `cargo bench -p optimclaw-bench --bench code`.

// Links code mode's `run_code` tool.
use divan::{Bencher, black_box};
use optimclaw::{DynamicTool, LazyConfig, Registry, ToolContext};
use optimclaw_code as _;
use serde_json::{Value, json};

fn main() {
    divan::main();
}

fn registry() -> Registry {
    let double = DynamicTool::new(
        "double",
        "Double a number.",
        json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}),
    )
    .handler(|_ctx: ToolContext, args: Value| async move {
        Ok(json!(args["n"].as_f64().unwrap_or(0.0) * 2.0))
    });
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .tool(double)
        .build()
        .expect("valid")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[divan::bench]
fn run_code_that_returns_at_once(bencher: Bencher<'_, '_>) {
    let (rt, registry, ctx) = (runtime(), registry(), ToolContext::new());
    let args = json!({"code": "return 1;"});
    bencher.bench_local(|| {
        rt.block_on(registry.call("run_code", black_box(args.clone()), &ctx))
            .expect("runs")
    });
}

#[divan::bench]
fn run_code_with_12_calls(bencher: Bencher<'_, '_>) {
    let (rt, registry, ctx) = (runtime(), registry(), ToolContext::new());
    let code = "const out = await Promise.all(Array.from({length: 12}, (_, n) => tools.double({n}))); return out.reduce((a, b) => a + b, 0);";
    let args = json!({ "code": code });
    bencher.bench_local(|| {
        let out = rt
            .block_on(registry.call("run_code", black_box(args.clone()), &ctx))
            .expect("runs");
        assert_eq!(out["result"].as_f64(), Some(132.0));
    });
}

#[divan::bench]
fn twelve_calls_one_by_one(bencher: Bencher<'_, '_>) {
    let (rt, registry, ctx) = (runtime(), registry(), ToolContext::new());
    bencher.bench_local(|| {
        rt.block_on(async {
            let mut sum = 0.0;
            for n in 0..12 {
                let out = registry
                    .call("double", black_box(json!({ "n": n })), &ctx)
                    .await
                    .expect("runs");
                sum += out.as_f64().unwrap_or(0.0);
            }
            sum
        })
    });
}
