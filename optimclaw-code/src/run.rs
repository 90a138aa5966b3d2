//! The `run_code` tool: starts a program on a thread of its own (the
//! interpreter blocks), dispatches the tool calls it makes through the
//! registry, concurrently up to the limit, and returns what it produced.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use optimclaw::tool;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tracing::Instrument;

use super::engine;
use super::host::{Failure, Host, Request, Response};
use optimclaw::CallOptions;
use optimclaw::Registry;
use optimclaw::ToolContext;
use optimclaw::ToolScope;
use optimclaw::config::CodeLimits;
use optimclaw::telemetry;
use optimclaw::unpack_bridge_call;
use optimclaw::{CALL_TOOL, RUN_CODE};
use optimclaw::{ToolError, ToolErrorKind};

/// Run a JavaScript program that calls tools: use it when a task takes
/// several calls or work on their results. `code` is the body of an async
/// function. Call any tool as `await tools.NAME(args)` (tool_info answers
/// with TypeScript declarations of them), combine results with plain
/// JavaScript (loops, filters, `Promise.all`) and `return` what you need:
/// only the returned value and `console.log` lines come back. A failed call
/// throws an Error you can catch. There is no network, file, timer or
/// module access.
#[tool(core, keywords = ["code", "program", "javascript", "script"])]
async fn run_code(
    ctx: &ToolContext,
    /// The body of an async JavaScript function, e.g. `const a = await
    /// tools.calculate({expression: "6*7"}); return a;`.
    code: String,
) -> Result<Value, ToolError> {
    let registry = ctx.registry().ok_or_else(|| {
        ToolError::new("run_code needs the registry; call it through a Registry or Session")
    })?;
    let limits = Arc::new(registry.lazy_config().code_limits.clone());
    run(code, ctx.clone(), registry, &limits).await
}

/// Sets the flag when dropped: a cancelled `run_code` stops its program.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

async fn run(
    code: String,
    ctx: ToolContext,
    registry: Registry,
    limits: &Arc<CodeLimits>,
) -> Result<Value, ToolError> {
    if code.trim().is_empty() {
        return Err(ToolError::invalid_arguments(
            RUN_CODE,
            "code",
            "the program is empty; pass the body of an async function that calls `await tools.NAME(args)` and returns a value",
        ));
    }
    if code.len() > limits.max_code_bytes {
        return Err(ToolError::invalid_arguments(
            RUN_CODE,
            "code",
            format!(
                "the program is {} bytes, over the {}-byte limit; write a shorter one",
                code.len(),
                limits.max_code_bytes
            ),
        ));
    }
    let scope = ctx.get::<ToolScope>().cloned().unwrap_or_default();
    let span = telemetry::code_span();
    let (call_tx, mut call_rx) = tokio::sync::mpsc::unbounded_channel::<Request>();
    let (result_tx, result_rx) = std::sync::mpsc::channel::<Response>();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let cancelled = Arc::new(AtomicBool::new(false));
    let _stop = StopOnDrop(Arc::clone(&cancelled));
    let host = Host {
        calls: call_tx,
        results: result_rx,
        cancelled,
    };
    let thread_limits = Arc::clone(limits);
    // The interpreter measures its stack from where it starts: the thread
    // has room for its limit and for the host's own frames.
    std::thread::Builder::new()
        .name("optimclaw-run-code".into())
        .stack_size(limits.stack_bytes + (4 << 20))
        .spawn(move || {
            let report = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                engine::run(&code, &thread_limits, host)
            }));
            let _ = done_tx.send(report);
        })
        .map_err(|e| ToolError::new(format!("run_code could not start its interpreter: {e}")))?;

    let semaphore = Arc::new(Semaphore::new(limits.max_concurrent_calls.max(1)));
    let mut tasks = JoinSet::new();
    let base_id = ctx.call_id().unwrap_or(RUN_CODE).to_owned();
    // Ends when the program ends (it drops its side of the channel).
    while let Some(request) = call_rx.recv().await {
        while tasks.try_join_next().is_some() {}
        let registry = registry.clone();
        let scope = scope.clone();
        let ctx = ctx
            .clone()
            .with_call_id(format!("{base_id}.{}", request.id));
        let semaphore = Arc::clone(&semaphore);
        let results = result_tx.clone();
        tasks.spawn(
            async move {
                let _permit = semaphore.acquire_owned().await;
                let result = call_one(&registry, &scope, request.name, request.args, &ctx)
                    .await
                    .map_err(|e| Failure {
                        message: e.to_string(),
                        kind: e.kind().as_str(),
                        data: e.data().cloned(),
                    });
                let _ = results.send(Response {
                    id: request.id,
                    result,
                });
            }
            .instrument(span.clone()),
        );
    }
    tasks.abort_all();
    let report = match done_rx.await {
        Ok(Ok(report)) => report,
        _ => {
            return Err(ToolError::new(
                "run_code's interpreter stopped unexpectedly; the program's effects so far stand, its result is lost",
            ));
        }
    };
    span.record("tool_calls", report.tool_calls);
    // The caller cancelled while the program waited on a call: the call
    // failed as cancelled and the program ended on that error, sometimes
    // before the cancellation reached this run. Its outcome is the
    // cancellation's, so the run is reported cancelled (a program that
    // finished keeps its result).
    if matches!(report.outcome, Some(Err(_))) && ctx.cancellation().is_cancelled() {
        return Err(ToolError::with_kind(
            ToolErrorKind::Cancelled,
            format!("the call of tool `{RUN_CODE}` was cancelled"),
        ));
    }
    if let Some(Err(message)) = &report.outcome {
        span.record("otel.status_code", "ERROR");
        span.record("error.message", message.as_str());
    }
    Ok(report.to_json())
}

/// One call a program made: the same path as a direct call, within the
/// caller's scope.
async fn call_one(
    registry: &Registry,
    scope: &ToolScope,
    name: String,
    args: Value,
    ctx: &ToolContext,
) -> Result<Value, ToolError> {
    if name == RUN_CODE {
        return Err(ToolError::new(
            "run_code cannot be called from a program; call the tools themselves",
        ));
    }
    let (name, args) = if name == CALL_TOOL {
        unpack_bridge_call(args)?
    } else {
        (name, args)
    };
    if !scope.allows(&name) || registry.get(&name).is_none() {
        let near = registry.scoped(scope).nearest_names(&name, 3);
        return Err(ToolError::unknown_tool(&name, &near));
    }
    registry
        .call_with(&name, args, ctx, CallOptions::default())
        .await
}
