//! WebAssembly tools: the module contract, the sandbox and its limits, bad
//! modules and manifests. Modules are written in WebAssembly text.

use std::path::Path;
use std::time::Duration;

use optimclaw::{LazyConfig, Registry, Session, ToolContext, ToolErrorKind};
use optimclaw_wasm::{WasmGrants, WasmLimits, WasmManifest, WasmRuntime};
use serde_json::{Value, json};

/// Reads stdin, prints `{"received": <stdin>}`.
const ECHO: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"received\":")
  (data (i32.const 32) "}")
  (func $write (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "_start")
    (local $total i32) (local $n i32)
    (loop $more
      (i32.store (i32.const 0) (i32.add (i32.const 1024) (local.get $total)))
      (i32.store (i32.const 4) (i32.sub (i32.const 65536) (local.get $total)))
      (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $n (i32.load (i32.const 8)))
      (local.set $total (i32.add (local.get $total) (local.get $n)))
      (br_if $more (i32.gt_u (local.get $n) (i32.const 0))))
    (call $write (i32.const 16) (i32.const 12))
    (call $write (i32.const 1024) (local.get $total))
    (call $write (i32.const 32) (i32.const 1))))"#;

/// Prints `[<number of environment variables>, <errno of fd_prestat_get(3)>]`:
/// `[0,8]` when it sees no environment and no folder (8 = EBADF).
const PROBE: &str = r#"(module
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $prestat (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "[0,0]")
  (func (export "_start")
    (drop (call $env (i32.const 200) (i32.const 204)))
    (i32.store8 (i32.const 101) (i32.add (i32.const 48) (i32.load (i32.const 200))))
    (i32.store8 (i32.const 103) (i32.add (i32.const 48) (call $prestat (i32.const 3) (i32.const 208))))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 5))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

const SPIN: &str = r#"(module (memory (export "memory") 1)
  (func (export "_start") (loop $l (br $l))))"#;

const GROW: &str = r#"(module (memory (export "memory") 1)
  (func (export "_start") (drop (memory.grow (i32.const 2000)))))"#;

const HUGE_MEMORY: &str = r#"(module (memory (export "memory") 3000)
  (func (export "_start")))"#;

const TRAP: &str = r#"(module (memory (export "memory") 1)
  (func (export "_start") unreachable))"#;

/// Writes 64 KiB of `a` to stdout, 20 times.
const FLOOD: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "_start") (local $i i32)
    (memory.fill (i32.const 1024) (i32.const 97) (i32.const 65536))
    (i32.store (i32.const 0) (i32.const 1024))
    (i32.store (i32.const 4) (i32.const 65536))
    (loop $l
      (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 20))))))"#;

const GARBAGE: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "hello, not json")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 15))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))"#;

/// Writes to stderr and exits with status 3.
const FAIL: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 100) "bad input: no text")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 18))
    (drop (call $fd_write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 3))))"#;

fn manifest(name: &str) -> WasmManifest {
    serde_json::from_value(json!({
        "name": name,
        "description": format!("The {name} test module."),
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }))
    .unwrap()
}

fn runtime(limits: WasmLimits) -> WasmRuntime {
    WasmRuntime::new(limits, WasmGrants::default()).unwrap()
}

async fn call(
    runtime: &WasmRuntime,
    name: &str,
    wat: &str,
    args: Value,
) -> Result<Value, optimclaw::ToolError> {
    let tool = runtime
        .tool(manifest(name), wat.as_bytes(), Path::new("."))
        .unwrap();
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tool(tool)
        .build()
        .unwrap();
    registry.call(name, args, &ToolContext::new()).await
}

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

#[tokio::test]
async fn a_folder_of_modules_becomes_deferred_tools_found_by_tool_info_and_called() {
    let dir = tempdir();
    write(dir.path(), "echo_json.wat", ECHO);
    write(
        dir.path(),
        "echo_json.json",
        &json!({
            "name": "echo_json",
            "description": "Return the arguments it was given, wrapped in an object.",
            "keywords": ["mirror", "reflect", "arguments"],
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        })
        .to_string(),
    );
    let runtime = WasmRuntime::sandboxed().unwrap();
    let load = runtime.load_dir(dir.path());
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    assert_eq!(load.tools.len(), 1);
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .tools(load.tools)
        .build()
        .unwrap();
    let tool = registry.get("echo_json").unwrap();
    assert!(!tool.is_core(), "WASM tools are deferred");
    let session = Session::new(registry.clone());
    assert!(!session.prompt().tool_names().contains(&"echo_json"));
    assert!(session.prompt().note.unwrap().contains("echo_json"));
    let ctx = ToolContext::new();
    let found = session
        .call(
            "tool_info",
            json!({"query": "mirror my arguments back"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(found["tools"][0]["name"], "echo_json", "{found}");
    // Loaded (under the bridge, the default, it is called through
    // `call_tool`; the `tools` array stays fixed).
    assert!(session.loaded().contains(&"echo_json".to_owned()));
    let out = session
        .call("echo_json", json!({"text": "héllo"}), &ctx)
        .await
        .unwrap();
    assert_eq!(out, json!({"received": {"text": "héllo"}}));
    // Arguments must be an object; beyond that the module checks them
    // (as an MCP server does for its tools).
    let err = session
        .call("echo_json", json!(["text"]), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArguments, "{err}");
    // Many calls at once, each in its own instance.
    let calls = (0..16).map(|i| {
        let session = session.clone();
        let ctx = ctx.clone();
        async move {
            session
                .call("echo_json", json!({"text": i.to_string()}), &ctx)
                .await
        }
    });
    for (i, out) in futures_util::future::join_all(calls)
        .await
        .into_iter()
        .enumerate()
    {
        assert_eq!(out.unwrap()["received"]["text"], i.to_string());
    }
}

#[tokio::test]
async fn modules_see_no_environment_and_no_folders_unless_granted() {
    let runtime = WasmRuntime::sandboxed().unwrap();
    assert_eq!(
        call(&runtime, "probe", PROBE, json!({})).await.unwrap(),
        json!([0, 8])
    );

    let dir = tempdir();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let mut asks = manifest("probe");
    asks.permissions = serde_json::from_value(json!({
        "env": ["PATH"], "dirs": [{"host": "data", "guest": "/data"}]
    }))
    .unwrap();
    // Asked but not granted: the tool does not load, and says why.
    let err = runtime
        .tool(asks.clone(), PROBE.as_bytes(), dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("environment variable PATH, which is not granted"),
        "{err}"
    );
    let grants = WasmGrants::default().with_env(vec!["PATH".into()]);
    let err = WasmRuntime::new(WasmLimits::default(), grants.clone())
        .unwrap()
        .tool(asks.clone(), PROBE.as_bytes(), dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("folder") && err.contains("not granted"),
        "{err}"
    );
    // Granted: the module sees exactly that.
    let granted = WasmRuntime::new(
        WasmLimits::default(),
        grants.with_dirs(vec![dir.path().to_owned()]),
    )
    .unwrap();
    let tool = granted.tool(asks, PROBE.as_bytes(), dir.path()).unwrap();
    let registry = Registry::builder()
        .without_linked()
        .tool(tool)
        .build()
        .unwrap();
    let out = registry
        .call("probe", json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!([1, 0]));
    // Network cannot be granted at all.
    let mut net = manifest("probe");
    net.permissions.network = true;
    let err = granted
        .tool(net, PROBE.as_bytes(), dir.path())
        .unwrap_err()
        .to_string();
    assert!(err.contains("network"), "{err}");
}

#[tokio::test]
async fn a_loop_runs_out_of_fuel_or_time_and_the_next_call_works() {
    let fuel = runtime(WasmLimits::default().with_fuel(5_000_000));
    let err = call(&fuel, "spin", SPIN, json!({})).await.unwrap_err();
    assert!(
        err.message().contains("ran out of fuel (5000000 units)"),
        "{err}"
    );
    let timed = runtime(
        WasmLimits::default()
            .with_fuel(u64::MAX)
            .with_timeout(Duration::from_millis(300)),
    );
    let err = call(&timed, "spin", SPIN, json!({})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout, "{err}");
    assert!(err.message().contains("within 0.3 s"), "{err}");
    // The runtime goes on.
    let out = call(&timed, "echo", ECHO, json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(out["received"]["text"], "still here");
}

#[tokio::test]
async fn memory_beyond_the_limit_is_refused() {
    let limited = runtime(WasmLimits::default().with_memory_bytes(16 << 20));
    let err = call(&limited, "grow", GROW, json!({})).await.unwrap_err();
    assert!(err.message().contains("the limit is 16 MiB"), "{err}");
    let err = call(&limited, "huge", HUGE_MEMORY, json!({}))
        .await
        .unwrap_err();
    assert!(err.message().contains("the limit is 16 MiB"), "{err}");
}

#[tokio::test]
async fn traps_floods_garbage_and_failures_are_clear_errors() {
    let rt = runtime(WasmLimits::default().with_max_output_bytes(100_000));
    let err = call(&rt, "trap", TRAP, json!({})).await.unwrap_err();
    assert!(
        err.message().contains("`trap` trapped") && err.message().contains("unreachable"),
        "{err}"
    );
    let err = call(&rt, "flood", FLOOD, json!({})).await.unwrap_err();
    assert!(
        err.message()
            .contains("more than 100000 bytes on stdout; the output was dropped"),
        "{err}"
    );
    let err = call(&rt, "garbage", GARBAGE, json!({})).await.unwrap_err();
    assert!(
        err.message().contains("did not print one JSON value")
            && err.message().contains("hello, not json"),
        "{err}"
    );
    let err = call(&rt, "fail", FAIL, json!({})).await.unwrap_err();
    assert!(
        err.message()
            .contains("exited with status 3: bad input: no text"),
        "{err}"
    );
}

#[test]
fn a_manifest_may_lower_limits_but_not_raise_them() {
    let rt = runtime(WasmLimits::default().with_fuel(1_000));
    let mut m = manifest("spin");
    m.limits =
        serde_json::from_value(json!({"fuel": 1_000_000_000_000u64, "memory_mb": 1})).unwrap();
    // Compiles; the limits in force are checked through calls below.
    let tool = rt.tool(m, SPIN.as_bytes(), Path::new(".")).unwrap();
    let registry = Registry::builder()
        .without_linked()
        .tool(tool)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let err = runtime
        .block_on(registry.call("spin", json!({}), &ToolContext::new()))
        .unwrap_err();
    assert!(
        err.message().contains("(1000 units)"),
        "the runtime's fuel wins: {err}"
    );
}

#[test]
fn malformed_modules_and_mismatched_manifests_are_refused_with_reasons() {
    let rt = WasmRuntime::sandboxed().unwrap();
    let err = rt
        .tool(manifest("bad"), b"\0asm\x01\0\0\0garbage", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid WebAssembly module"), "{err}");
    let err = rt
        .tool(
            manifest("bad"),
            b"(module (func $f (result i32)",
            Path::new("."),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid WebAssembly module"), "{err}");
    let no_start = r#"(module (memory (export "memory") 1) (func (export "run")))"#;
    let err = rt
        .tool(manifest("bad"), no_start.as_bytes(), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("exports no `_start`"), "{err}");
    let foreign = r#"(module (import "env" "steal" (func)) (memory (export "memory") 1) (func (export "_start")))"#;
    let err = rt
        .tool(manifest("bad"), foreign.as_bytes(), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("imports `env.steal`"), "{err}");
    let mut pinned = manifest("echo");
    pinned.sha256 = Some("00".repeat(32));
    let err = rt
        .tool(pinned, ECHO.as_bytes(), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not match the manifest: sha256"), "{err}");
    let err = rt
        .tool(manifest("bad name"), ECHO.as_bytes(), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid tool name"), "{err}");
}

#[test]
fn a_folder_loads_its_good_tools_and_names_its_bad_files() {
    let dir = tempdir();
    write(dir.path(), "good.wat", ECHO);
    write(
        dir.path(),
        "good.json",
        &json!({"name": "good", "description": "Echo.", "input_schema": {"type": "object"}})
            .to_string(),
    );
    write(
        dir.path(),
        "orphan.json",
        &json!({"name": "orphan", "description": "No module.", "input_schema": {"type": "object"}})
            .to_string(),
    );
    write(
        dir.path(),
        "typo.json",
        r#"{"name": "typo", "descripton": "x", "input_schema": {"type": "object"}}"#,
    );
    write(dir.path(), "notjson.json", "{");
    let load = WasmRuntime::sandboxed().unwrap().load_dir(dir.path());
    let names: Vec<&str> = load.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["good"]);
    let errors: Vec<String> = load.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    // The missing module: its path, and the I/O error as the source.
    let orphan = load
        .errors
        .iter()
        .find(|e| e.path.as_ref().is_some_and(|p| p.ends_with("orphan.wat")))
        .expect("the orphan's module is named");
    let cause = std::error::Error::source(orphan).expect("an I/O cause");
    assert!(cause.downcast_ref::<std::io::Error>().is_some());
    assert!(
        errors
            .iter()
            .any(|e| e.contains("orphan.wat") && e.contains("cannot be read")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("typo.json") && e.contains("unknown field `descripton`")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("notjson.json") && e.contains("not a valid tool manifest")),
        "{errors:?}"
    );
    assert!(
        WasmRuntime::sandboxed()
            .unwrap()
            .load_dir(&dir.path().join("missing"))
            .tools
            .is_empty()
    );
}

#[test]
fn modules_are_compiled_once_not_per_call() {
    let rt = WasmRuntime::sandboxed().unwrap();
    let tool = rt
        .tool(manifest("echo"), ECHO.as_bytes(), Path::new("."))
        .unwrap();
    assert_eq!(rt.compilations(), 1);
    let registry = Registry::builder()
        .without_linked()
        .tool(tool)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for i in 0..10 {
        let out = runtime
            .block_on(registry.call("echo", json!({"n": i}), &ToolContext::new()))
            .unwrap();
        assert_eq!(out["received"]["n"], i);
    }
    assert_eq!(rt.compilations(), 1, "calls reuse the compiled module");
}

/// A temporary folder removed on drop (no dev-dependency for it).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> TempDir {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "optimclaw-wasm-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&path).unwrap();
    TempDir(path)
}

/// A WebAssembly tool served over MCP, called by an MCP client that never
/// saw its schema in the (lazy) listing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wasm_tool_is_served_over_mcp_like_any_other() {
    use optimclaw_mcp::{McpClient, McpClientOptions, McpServer, ServerConfig};
    let rt = WasmRuntime::sandboxed().unwrap();
    let tool = rt
        .tool(manifest("echo_json"), ECHO.as_bytes(), Path::new("."))
        .unwrap();
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .tool(tool)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let server = McpServer::new(registry, ToolContext::new());
    let token = "wasm-node-token-0123456789";
    let auth = optimclaw_mcp::HttpAuth::token(token).unwrap();
    let serving = tokio::spawn(server.serve_http(listener, shutdown.clone(), auth));
    let config = ServerConfig {
        url: Some(format!("http://{addr}/mcp")),
        headers: [("Authorization".to_owned(), format!("Bearer {token}"))].into(),
        ..ServerConfig::default()
    };
    let client = McpClient::connect("wasm_node", config, McpClientOptions::default())
        .await
        .unwrap();
    let found = client
        .call("tool_info", json!({"query": "echo_json"}))
        .await
        .unwrap();
    assert!(found.to_string().contains("echo_json"), "{found}");
    let out = client
        .call("echo_json", json!({"text": "over MCP"}))
        .await
        .unwrap();
    assert!(out.to_string().contains("over MCP"), "{out}");
    shutdown.cancel();
    let _ = serving.await;
}

#[test]
fn manifest_examples_are_checked_when_the_module_loads() {
    let runtime = runtime(WasmLimits::default());
    let with = |examples: Value| -> WasmManifest {
        serde_json::from_value(json!({
            "name": "echo_ex",
            "description": "Echo with examples.",
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "examples": examples,
        }))
        .unwrap()
    };
    let good = runtime
        .tool(
            with(json!([{"text": "hi"}])),
            ECHO.as_bytes(),
            Path::new("."),
        )
        .unwrap();
    let registry = Registry::builder()
        .without_linked()
        .tool(good)
        .build()
        .unwrap();
    assert_eq!(
        registry.get("echo_ex").unwrap().examples(),
        [json!({"text": "hi"})]
    );
    let bad = runtime
        .tool(with(json!([{"text": 5}])), ECHO.as_bytes(), Path::new("."))
        .unwrap_err();
    assert!(
        bad.to_string()
            .contains("example 1 is not a valid call at `text`"),
        "{bad}"
    );
}
