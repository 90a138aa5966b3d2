//! Code mode: programs that use tools correctly, and programs that try to
//! break the sandbox, the limits or the scope. Each attack ends with a
//! clear error and the next program runs normally.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use optimclaw::{
    CodeLimits, DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolError, ToolScope,
};
use optimclaw_code as _;
use serde_json::{Value, json};

const SECRET: &str = "sk-live-9f8e7d6c5b4a3210";

struct Counters {
    running: AtomicUsize,
    most: AtomicUsize,
    calls: AtomicUsize,
}

fn registry(limits: CodeLimits) -> (Registry, Arc<Counters>) {
    let counters = Arc::new(Counters {
        running: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
        calls: AtomicUsize::new(0),
    });
    let c = Arc::clone(&counters);
    let hash = DynamicTool::new(
        "hash_text",
        "Hash a text (a short digest).",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false}),
    )
    .output_schema(json!({"type": "object", "properties": {"digest": {"type": "string"}}, "required": ["digest"]}))
    .handler(move |_ctx: ToolContext, args: Value| {
        let c = Arc::clone(&c);
        async move {
            c.calls.fetch_add(1, Ordering::SeqCst);
            let now = c.running.fetch_add(1, Ordering::SeqCst) + 1;
            c.most.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
            c.running.fetch_sub(1, Ordering::SeqCst);
            let text = args["text"].as_str().unwrap_or_default();
            let digest = text.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
            Ok(json!({"digest": format!("{digest:016x}")}))
        }
    });
    let c = Arc::clone(&counters);
    let count = DynamicTool::new(
        "count_calls",
        "Count one call (cheap).",
        json!({"type": "object", "properties": {}}),
    )
    .handler(move |_ctx: ToolContext, _args: Value| {
        let c = Arc::clone(&c);
        async move { Ok(json!(c.calls.fetch_add(1, Ordering::SeqCst) + 1)) }
    });
    let fail = DynamicTool::new(
        "always_fails",
        "Fails every time.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_ctx: ToolContext, _args: Value| async move {
        Err::<Value, _>(ToolError::new("the disk is full"))
    });
    let job = DynamicTool::new(
        "job_create",
        "Create a background job.",
        json!({"type": "object", "properties": {
            "prompt": {"type": "string", "description": "What the job does."},
            "priority": {"type": "integer", "minimum": 0, "maximum": 9, "default": 5}
        }, "required": ["prompt"], "additionalProperties": false}),
    )
    .handler(|_ctx: ToolContext, args: Value| async move {
        Ok(json!({"id": "job-1", "args": args}))
    });
    let secret = DynamicTool::new(
        "read_config",
        "Read the service configuration.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(|_ctx: ToolContext, _args: Value| async move {
        Ok(json!({"endpoint": "https://api.example.test", "token": SECRET}))
    });
    let admin = DynamicTool::new(
        "admin_delete_all",
        "Delete every record.",
        json!({"type": "object", "properties": {}}),
    )
    .handler({
        let c = Arc::clone(&counters);
        move |_ctx: ToolContext, _args: Value| {
            let c = Arc::clone(&c);
            async move {
                c.calls.fetch_add(1000, Ordering::SeqCst);
                Ok(json!("deleted"))
            }
        }
    });
    let registry = Registry::builder()
        .lazy(
            LazyConfig::lazy()
                .with_code_mode(true)
                .with_code_limits(limits),
        )
        .tools([hash, count, fail, job, secret, admin])
        .build()
        .expect("valid registry");
    (registry, counters)
}

fn limits() -> CodeLimits {
    CodeLimits::default()
        .with_wall_time(Duration::from_secs(2))
        .with_max_concurrent_calls(4)
}

/// A session over the test catalog under `limits`.
fn session(limits: CodeLimits) -> Session {
    Session::new(registry(limits).0)
}

fn redacting() -> ToolContext {
    ToolContext::new().with_output_filter(Arc::new(|text: &str| {
        text.contains(SECRET)
            .then(|| text.replace(SECRET, "[redacted]"))
    }))
}

async fn run(session: &Session, code: &str) -> Value {
    session
        .call("run_code", json!({ "code": code }), &redacting())
        .await
        .unwrap_or_else(|e| panic!("run_code failed as a call: {e}"))
}

fn error_of(out: &Value) -> &str {
    out["error"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error, got {out}"))
}

/// What every attack test ends with: an ordinary program still runs.
async fn still_works(session: &Session) {
    let out = run(
        session,
        "const h = await tools.hash_text({text: 'ok'}); return h.digest.length;",
    )
    .await;
    assert_eq!(out["result"], json!(16), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_loops_filters_and_calls_tools_concurrently() {
    let (registry, counters) = registry(limits());
    let session = Session::new(registry);
    let out = run(
        &session,
        r#"
        const texts = Array.from({length: 12}, (_, i) => `note ${i}`);
        const hashes = await Promise.all(texts.map(text => tools.hash_text({text})));
        console.log("hashed", hashes.length);
        const digits = hashes.filter(h => /^[0-9]/.test(h.digest)).length;
        return {count: hashes.length, first: hashes[0].digest, digits};
        "#,
    )
    .await;
    assert_eq!(out["result"]["count"], json!(12), "{out}");
    assert_eq!(out["result"]["first"].as_str().map(str::len), Some(16));
    assert_eq!(out["logs"], json!(["hashed 12"]));
    let most = counters.most.load(Ordering::SeqCst);
    assert!(
        (2..=4).contains(&most),
        "calls ran {most} at once; expected concurrency bounded at 4"
    );
}

#[tokio::test]
async fn a_failing_call_is_an_exception_the_program_can_catch() {
    let session = session(limits());
    let out = run(
        &session,
        r#"
        let seen = [];
        try { await tools.always_fails({}); } catch (e) { seen.push(e.name, e.message, e.kind); }
        try { await tools.job_create({priority: "high"}); } catch (e) { seen.push(e.kind, e.data.problems.length); }
        return seen;
        "#,
    )
    .await;
    let seen = out["result"].as_array().unwrap_or_else(|| panic!("{out}"));
    assert_eq!(seen[0], "ToolError");
    assert!(
        seen[1]
            .as_str()
            .is_some_and(|m| m.contains("the disk is full")),
        "{out}"
    );
    assert_eq!(seen[3], "invalid_arguments", "{out}");
    assert_eq!(
        seen[4],
        json!(2),
        "a missing prompt and a wrong type, both named: {out}"
    );
    // Uncaught, the error and its line come back.
    let out = run(&session, "\nawait tools.always_fails({});").await;
    let error = error_of(&out);
    assert!(
        error.contains("the disk is full") && error.contains("(line 2)"),
        "{error}"
    );
}

#[tokio::test]
async fn an_unknown_tool_fails_with_the_nearest_names() {
    let session = session(limits());
    let out = run(&session, "return await tools.hash_txt({text: 'a'});").await;
    let error = error_of(&out);
    assert!(
        error.contains("hash_txt") && error.contains("hash_text"),
        "{error}"
    );
    still_works(&session).await;
}

#[tokio::test]
async fn an_endless_loop_is_stopped_at_the_time_limit() {
    let (registry, _) = registry(limits().with_wall_time(Duration::from_millis(500)));
    let session = Session::new(registry);
    for code in [
        "while (true) {}",
        "await tools.count_calls({}); for (;;) { Math.sqrt(2); }",
        // Stopped with a call still pending: the interpreter is torn down
        // with its promise unsettled, cleanly.
        "tools.hash_text({text: 'a'}); while (true) {}",
    ] {
        let out = run(&session, code).await;
        let error = error_of(&out);
        assert!(error.contains("time limit"), "{code}: {error}");
    }
    still_works(&session).await;
}

#[tokio::test]
async fn a_memory_bomb_is_stopped_at_the_memory_limit() {
    let (registry, _) = registry(limits().with_memory_bytes(16 << 20));
    let session = Session::new(registry);
    let out = run(
        &session,
        "const a = []; while (true) { a.push(new Array(100000).fill(1.5)); }",
    )
    .await;
    let error = error_of(&out);
    assert!(
        error.contains("out of memory") && error.contains("16 MiB"),
        "{error}"
    );
    still_works(&session).await;
}

#[tokio::test]
async fn deep_recursion_ends_in_a_range_error() {
    let session = session(limits());
    let out = run(
        &session,
        "function f(n) { return f(n + 1) + 1; }\nreturn f(0);",
    )
    .await;
    let error = error_of(&out);
    assert!(error.contains("stack"), "{error}");
    still_works(&session).await;
}

#[tokio::test]
async fn no_file_network_process_module_or_timer_api_exists() {
    let session = session(limits());
    let out = run(
        &session,
        r#"
        const names = ["require", "process", "fetch", "Deno", "std", "os", "setTimeout", "setInterval",
          "XMLHttpRequest", "WebSocket", "Bun", "module", "exports", "importScripts", "__optimclaw_call", "__optimclaw_log"];
        const present = names.filter(n => typeof globalThis[n] !== "undefined");
        let imported = "no";
        try { await import("os"); imported = "yes"; } catch (e) { imported = "refused: " + e.message; }
        // The constructor trick reaches the same global object, nothing more.
        const g = tools.constructor.constructor("return this")();
        const viaFunction = names.filter(n => typeof g[n] !== "undefined");
        return {present, imported, viaFunction};
        "#,
    )
    .await;
    assert_eq!(out["result"]["present"], json!([]), "{out}");
    assert_eq!(out["result"]["viaFunction"], json!([]), "{out}");
    assert!(
        out["result"]["imported"]
            .as_str()
            .is_some_and(|s| s.starts_with("refused")),
        "{out}"
    );
    // A program that pollutes prototypes leaves nothing for the next one.
    run(
        &session,
        "Object.prototype.polluted = 1; Array.prototype.map = null; return 1;",
    )
    .await;
    let out = run(&session, "return [typeof ({}).polluted, typeof [].map];").await;
    assert_eq!(out["result"], json!(["undefined", "function"]), "{out}");
    still_works(&session).await;
}

#[tokio::test]
async fn a_huge_result_is_cut_with_a_note() {
    let session = session(limits());
    let out = run(&session, "return 'x'.repeat(50 * 1024 * 1024);").await;
    let shown = out["result"].as_str().unwrap_or_else(|| panic!("{out}"));
    assert!(shown.len() <= (64 << 10) + 4, "{} bytes shown", shown.len());
    let notes = out["notes"].to_string();
    assert!(
        notes.contains("52428800 bytes") && notes.contains("capped"),
        "{notes}"
    );
    let out = run(
        &session,
        "return Array.from({length: 200000}, (_, i) => ({i}));",
    )
    .await;
    assert!(out["notes"].to_string().contains("capped"), "{out}");
    still_works(&session).await;
}

#[tokio::test]
async fn logs_are_capped_with_a_note() {
    let session = session(limits());
    let out = run(
        &session,
        "for (let i = 0; i < 100000; i++) console.log('line', i); return 'done';",
    )
    .await;
    assert_eq!(out["result"], "done");
    let bytes: usize = out["logs"].as_array().map_or(0, |l| {
        l.iter().filter_map(Value::as_str).map(str::len).sum()
    });
    assert!(bytes <= (16 << 10) + 4, "{bytes} bytes of logs");
    assert!(
        out["notes"].to_string().contains("logs are capped"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tool_calls_end_at_the_call_limit() {
    let (registry, counters) = registry(limits().with_wall_time(Duration::from_secs(20)));
    let session = Session::new(registry);
    let out = run(
        &session,
        "for (let i = 0; i < 10000; i++) await tools.count_calls({}); return 'all';",
    )
    .await;
    let error = error_of(&out);
    assert!(error.contains("1000 tool calls"), "{error}");
    assert_eq!(counters.calls.load(Ordering::SeqCst), 1000);
    still_works(&session).await;
}

#[tokio::test]
async fn a_tool_outside_the_scope_is_unknown_inside_programs() {
    let (registry, counters) = registry(limits());
    let scope = ToolScope::new(["hash_*", "count_calls"]).expect("valid scope");
    let session = Session::new(registry).scoped(scope);
    for code in [
        "return await tools.admin_delete_all({});",
        "return await tools.call_tool({name: 'admin_delete_all', arguments: {}});",
    ] {
        let out = run(&session, code).await;
        let error = error_of(&out);
        assert!(error.contains("unknown tool"), "{code}: {error}");
    }
    assert_eq!(
        counters.calls.load(Ordering::SeqCst),
        0,
        "the out-of-scope tool never ran"
    );
    still_works(&session).await;
}

#[tokio::test]
async fn a_secret_in_a_tool_output_is_redacted_in_result_and_logs() {
    let session = session(limits());
    let out = run(
        &session,
        "const c = await tools.read_config({}); console.log('token', c.token); return c;",
    )
    .await;
    let text = out.to_string();
    assert!(!text.contains(SECRET), "{text}");
    assert!(text.contains("[redacted]"), "{text}");
}

#[tokio::test]
async fn syntax_errors_and_thrown_values_name_what_happened() {
    let session = session(limits());
    let out = run(&session, "return (1 + ;").await;
    assert!(error_of(&out).contains("SyntaxError"), "{out}");
    let out = run(&session, "throw {code: 7};").await;
    assert!(error_of(&out).contains("{\"code\":7}"), "{out}");
    let out = run(&session, "await new Promise(() => {});").await;
    assert!(error_of(&out).contains("nothing will settle"), "{out}");
    let empty = session
        .call("run_code", json!({"code": "  "}), &ToolContext::new())
        .await;
    assert!(empty.is_err_and(|e| e.to_string().contains("empty")));
    still_works(&session).await;
}

#[tokio::test]
async fn the_tools_array_stays_fixed_and_tool_info_answers_with_declarations() {
    let session = session(limits());
    let before = session.prompt().tool_names().join(",");
    assert_eq!(before, "run_code,tool_info");
    let answer = session
        .call(
            "tool_info",
            json!({"query": "job_create"}),
            &ToolContext::new(),
        )
        .await
        .expect("tool_info answers");
    let entry = &answer["tools"][0];
    assert!(entry.get("parameters").is_none(), "{entry}");
    let declaration = entry["declaration"].as_str().unwrap_or_default();
    assert!(
        declaration.contains("function job_create(args: {"),
        "{declaration}"
    );
    assert!(declaration.contains("priority?: number;"), "{declaration}");
    run(&session, "return await tools.job_create({prompt: 'x'});").await;
    assert_eq!(
        session.prompt().tool_names().join(","),
        before,
        "the array does not move"
    );
    let note = session.prompt().note.unwrap_or_default();
    assert!(
        note.contains("hash_text") && note.contains("job_create"),
        "{note}"
    );
}

#[tokio::test]
async fn without_code_mode_there_is_no_run_code() {
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .expect("valid");
    assert!(registry.get("run_code").is_none());
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .build()
        .expect("valid");
    assert!(
        registry.get("run_code").is_some(),
        "code mode brings its tool"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_stops_its_program_and_its_running_calls() {
    struct SetOnDrop(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let slow = DynamicTool::new(
        "slow_export",
        "Export everything (takes minutes).",
        json!({"type": "object", "properties": {}}),
    )
    .handler(move |_ctx: ToolContext, _args: Value| {
        let guard = SetOnDrop(Arc::clone(&flag));
        async move {
            let _guard = guard;
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(json!("exported"))
        }
    });
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .tool(slow)
        .build()
        .expect("valid");
    let token = tokio_util::sync::CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let started = std::time::Instant::now();
    let result = registry
        .call(
            "run_code",
            json!({"code": "await tools.slow_export({}); while (true) {}"}),
            &ctx,
        )
        .await;
    canceller.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let err = result.expect_err("a cancelled run is an error");
    assert_eq!(err.kind(), optimclaw::ToolErrorKind::Cancelled, "{err}");
    for _ in 0..50 {
        if dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        dropped.load(Ordering::SeqCst),
        "the running call was dropped with its run"
    );
    let out = registry
        .call(
            "run_code",
            json!({"code": "return 'next';"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(out["result"], "next");
}

#[tokio::test]
async fn namespaced_and_hyphenated_names_are_called_as_written() {
    let echo = |name: &str| {
        let answer = name.to_owned();
        DynamicTool::new(
            name,
            "Echo the tool's own name.",
            json!({"type": "object", "properties": {}}),
        )
        .handler(move |_ctx: ToolContext, _args: Value| {
            let answer = answer.clone();
            async move { Ok(json!(answer)) }
        })
    };
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .tools([echo("github__create_issue"), echo("my-tool")])
        .build()
        .expect("valid");
    let out = registry
        .call(
            "run_code",
            json!({"code": "return [await tools.github__create_issue({}), await tools['my-tool']()];"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        out["result"],
        json!(["github__create_issue", "my-tool"]),
        "{out}"
    );
    let declarations =
        optimclaw::code::declarations(registry.tools().iter().filter(|t| !t.is_core()));
    assert!(
        declarations.contains("function github__create_issue(args?: {}"),
        "{declarations}"
    );
    assert!(
        declarations.contains("// call as tools[\"my-tool\"](args)"),
        "{declarations}"
    );
}

#[tokio::test]
async fn odd_programs_get_an_answer_never_a_panic() {
    let session = session(limits());
    for code in [
        "}); globalThis.escaped = 1; (async () => {",
        "return 1; })(), (async () => { return 2;",
        "return 10n;",
        "return {a: 1n};",
        "const o = {}; o.self = o; return o;",
        "\u{0}\u{1}return 'nul';",
        "\"use strict\"; return typeof this;",
        "return '\u{202e}مرحبا 🎉';",
        "// a comment to the end",
        "return function f() {};",
        "return Symbol('s');",
        "throw null;",
        "return await tools.then;",
        "return await tools[Symbol.iterator];",
        "return await tools.hash_text('not an object');",
        "return await tools.hash_text({text: 'x'.repeat(1 << 20)});",
        "await Promise.reject(new TypeError('typed'));",
    ] {
        let out = run(&session, code).await;
        assert!(
            out.get("result").is_some()
                || out
                    .get("error")
                    .and_then(Value::as_str)
                    .is_some_and(|e| !e.is_empty()),
            "{code:?}: {out}"
        );
    }
    let out = run(&session, "return [typeof globalThis.escaped];").await;
    assert_eq!(
        out["result"],
        json!(["undefined"]),
        "nothing outlives a run: {out}"
    );
    still_works(&session).await;
}
