//! WebAssembly tool calls: a call through the registry (a fresh sandboxed
//! instance of the compiled module), against the same tool written in
//! Rust, and against compiling the module for every call (what the cache
//! saves). Run: `cargo bench -p optimclaw-bench --features wasm --bench wasm`.

use std::path::Path;

use divan::{Bencher, black_box};
use optimclaw::{DynamicTool, Registry, ToolContext};
use optimclaw_wasm::{WasmManifest, WasmRuntime};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

const ECHO: &str = include_str!("../../examples/assistant/wasm/echo_args.wat");

fn manifest() -> WasmManifest {
    serde_json::from_str(include_str!("../../examples/assistant/wasm/echo_args.json")).unwrap()
}

fn args() -> Value {
    json!({"text": "The quick brown fox jumps over the lazy dog."})
}

fn registry_of(tool: DynamicTool) -> Registry {
    Registry::builder()
        .without_linked()
        .tool(tool)
        .build()
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap()
}

/// The WASM tool, compiled once at load.
#[divan::bench]
fn wasm_call(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let wasm = WasmRuntime::sandboxed().unwrap();
    let tool = wasm
        .tool(manifest(), ECHO.as_bytes(), Path::new("."))
        .unwrap();
    let registry = registry_of(tool);
    let ctx = ToolContext::new();
    bencher.bench_local(|| {
        rt.block_on(registry.call("echo_args", black_box(args()), &ctx))
            .unwrap()
    });
}

/// The same tool in Rust (the peer).
#[divan::bench]
fn native_call(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let tool = DynamicTool::new("echo_args", "Echo.", json!({"type": "object"}))
        .handler(|_ctx, args: Value| async move { Ok(json!({"received": args})) });
    let registry = registry_of(tool);
    let ctx = ToolContext::new();
    bencher.bench_local(|| {
        rt.block_on(registry.call("echo_args", black_box(args()), &ctx))
            .unwrap()
    });
}

/// Compiling the module for every call: what the cache saves.
#[divan::bench(sample_count = 20)]
fn wasm_compile_and_call(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let wasm = WasmRuntime::sandboxed().unwrap();
    let ctx = ToolContext::new();
    bencher.bench_local(|| {
        let tool = wasm
            .tool(manifest(), ECHO.as_bytes(), Path::new("."))
            .unwrap();
        let registry = registry_of(tool);
        rt.block_on(registry.call("echo_args", black_box(args()), &ctx))
            .unwrap()
    });
}
