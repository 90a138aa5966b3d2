//! One program in an embedded JavaScript interpreter (QuickJS-NG through
//! rquickjs): a fresh runtime per run, with no file, network, process,
//! module or timer API, under limits on memory, stack, wall time, tool
//! calls and the size of what comes back.
//!
//! The interpreter runs on its own thread and never touches the registry:
//! each `tools.NAME(args)` becomes a request on a channel, answered by the
//! async side (`run.rs`) with the call's result. This file is the
//! event loop between the two: run every job the program queued, send the
//! calls it made, wait for one to finish, settle its promise, repeat.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

use rquickjs::{
    CatchResultExt, CaughtError, Context, Ctx, Function, Object, Promise, Runtime,
    Value as JsValue, promise::PromiseState,
};
use serde_json::Value;

use super::CodeLimits;
use super::host::{Failure, Host, Request, Response};
use super::report::{Logs, Report, cut};

/// What the wait reports when the async side is gone.
const CANCELLED: &str = "cancelled";

/// The file name errors point into.
const FILE: &str = "program.js";

/// What the program sees as `tools` and `console`. The host functions are
/// captured in closures and removed from the global object, so a program
/// can reach them only the way it is meant to.
const PRELUDE: &str = r#"
(() => {
  const call = globalThis.__optimclaw_call;
  const log = globalThis.__optimclaw_log;
  delete globalThis.__optimclaw_call;
  delete globalThis.__optimclaw_log;
  const show = (v) => {
    if (typeof v === "string") return v;
    try {
      const s = JSON.stringify(v);
      return s === undefined ? String(v) : s;
    } catch (_) {
      try { return String(v); } catch (_) { return "[value that cannot be printed]"; }
    }
  };
  const line = (...args) => log(args.map(show).join(" "));
  const console = Object.freeze({ log: line, info: line, warn: line, error: line, debug: line });
  const names = /^[A-Za-z0-9_-]{1,64}$/;
  const tools = new Proxy(Object.create(null), {
    get(_, name) {
      // `then` stays undefined so that `await tools` is not a call.
      if (typeof name !== "string" || name === "then" || !names.test(name)) return undefined;
      return (args) => {
        // Where the program made the call: a failure points at its line.
        const site = new Error();
        return call(name, args === undefined ? "{}" : JSON.stringify(args)).catch((e) => {
          try { e.stack = site.stack; } catch (_) {}
          throw e;
        });
      };
    },
    has(_, name) { return typeof name === "string" && names.test(name); },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
  Object.defineProperty(globalThis, "tools", { value: tools, enumerable: false });
  Object.defineProperty(globalThis, "console", { value: console, enumerable: false });
})();
"#;

/// Why the interpreter was stopped from outside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Time,
    Cancelled,
}

/// Runs `code` (the body of an async function) to the end. Blocks: call it
/// on a thread of its own.
pub(crate) fn run(code: &str, limits: &CodeLimits, host: Host) -> Report {
    let mut report = Report::default();
    let deadline = Instant::now() + limits.wall_time;
    let runtime = match Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            report.outcome = Some(Err(format!("the interpreter could not start: {e}")));
            return report;
        }
    };
    runtime.set_memory_limit(limits.memory_bytes);
    runtime.set_max_stack_size(limits.stack_bytes);
    {
        let cancelled = Arc::clone(&host.cancelled);
        runtime.set_interrupt_handler(Some(Box::new(move || {
            cancelled.load(Ordering::Relaxed) || Instant::now() >= deadline
        })));
    }
    let context = match Context::full(&runtime) {
        Ok(c) => c,
        Err(e) => {
            report.outcome = Some(Err(format!("the interpreter could not start: {e}")));
            return report;
        }
    };
    let logs = Rc::new(RefCell::new(Logs::new(limits.max_log_bytes)));
    let outcome = context.with(|ctx| {
        let mut lp = Loop {
            ctx: ctx.clone(),
            host: &host,
            limits,
            deadline,
            waiting: Rc::default(),
            queued: Rc::default(),
            next_id: Rc::new(RefCell::new(0)),
            in_flight: 0,
        };
        let result = lp.program(code, &logs);
        // A run stopped with calls still pending (cancelled, out of time)
        // leaves their promises' resolve and reject functions here, held
        // from Rust by the call function's closure: a cycle the garbage
        // collector cannot see. Dropped now, or the interpreter is torn
        // down with live objects (QuickJS aborts on that in debug builds,
        // and leaks them otherwise).
        lp.waiting.borrow_mut().clear();
        lp.queued.borrow_mut().clear();
        report.tool_calls = *lp.next_id.borrow();
        match result {
            Ok(value) => lp.json(value, &mut report.notes),
            Err(e) => Err(e),
        }
    });
    // Why the interpreter stopped, when it was stopped from outside.
    let stop = if host.cancelled.load(Ordering::Relaxed) {
        Some(Stop::Cancelled)
    } else if Instant::now() >= deadline {
        Some(Stop::Time)
    } else {
        None
    };
    report.outcome = Some(match (outcome, stop) {
        (Err(_), Some(Stop::Time)) => Err(format!(
            "the program ran longer than {} s, the time limit of one run, and was stopped; do less per run (fewer calls, smaller loops) or split the work",
            limits.wall_time.as_secs_f64()
        )),
        (Err(_), Some(Stop::Cancelled)) => Err("the program was cancelled".into()),
        (Err(e), None) if e.contains("out of memory") => Err(format!(
            "{e}: the program used more than its {} MiB of memory and was stopped; keep less at once (process items in parts)",
            limits.memory_bytes >> 20
        )),
        (Err(e), None) if e == CANCELLED => Err("the program was cancelled".into()),
        (other, _) => other,
    });
    let logs = Rc::try_unwrap(logs)
        .map(RefCell::into_inner)
        .unwrap_or_else(|l| l.borrow().clone());
    report.notes.extend(logs.note());
    report.logs = logs.lines;
    report
}

type Settle<'js> = (Function<'js>, Function<'js>);

struct Loop<'a, 'js> {
    ctx: Ctx<'js>,
    host: &'a Host,
    limits: &'a CodeLimits,
    deadline: Instant,
    /// The resolve and reject functions of each call's promise.
    waiting: Rc<RefCell<HashMap<u64, Settle<'js>>>>,
    /// Calls made since the last send.
    queued: Rc<RefCell<Vec<Request>>>,
    next_id: Rc<RefCell<u64>>,
    in_flight: usize,
}

impl<'js> Loop<'_, 'js> {
    /// Installs the host functions, evaluates the program and drives it
    /// until its promise settles.
    fn program(&mut self, code: &str, logs: &Rc<RefCell<Logs>>) -> Result<JsValue<'js>, String> {
        let ctx = self.ctx.clone();
        let globals = ctx.globals();
        let setup = || -> rquickjs::Result<()> {
            let log_sink = Rc::clone(logs);
            globals.set(
                "__optimclaw_log",
                Function::new(ctx.clone(), move |line: String| {
                    log_sink.borrow_mut().push(line);
                })?,
            )?;
            let waiting = Rc::clone(&self.waiting);
            let queued = Rc::clone(&self.queued);
            let next_id = Rc::clone(&self.next_id);
            let max_calls = self.limits.max_tool_calls;
            globals.set(
                "__optimclaw_call",
                Function::new(
                    ctx.clone(),
                    move |ctx: Ctx<'js>, name: String, args: String| -> rquickjs::Result<Promise<'js>> {
                        let (promise, resolve, reject) = ctx.promise()?;
                        let id = {
                            let mut next = next_id.borrow_mut();
                            *next += 1;
                            *next
                        };
                        if id > max_calls {
                            let error = make_error(
                                &ctx,
                                &name,
                                &Failure {
                                    message: format!(
                                        "this program already made {max_calls} tool calls, the most one run may make; return what you have and continue in another run_code call"
                                    ),
                                    kind: "limit",
                                    data: None,
                                },
                            )?;
                            reject.call::<_, ()>((error,))?;
                            return Ok(promise);
                        }
                        let args = serde_json::from_str(&args).unwrap_or(Value::Null);
                        waiting.borrow_mut().insert(id, (resolve, reject));
                        queued.borrow_mut().push(Request { id, name, args });
                        Ok(promise)
                    },
                )?,
            )?;
            ctx.eval::<(), _>(PRELUDE)?;
            Ok(())
        };
        setup()
            .catch(&ctx)
            .map_err(|e| format!("the interpreter could not be prepared: {}", describe(&e)))?;
        // The code is the body of an async function; it starts on line 1.
        let source = format!("(async () => {{{code}\n}})()");
        let mut options = rquickjs::context::EvalOptions::default();
        options.filename = Some(FILE.into());
        options.strict = false;
        let promise: Promise<'js> = ctx
            .eval_with_options(source, options)
            .catch(&ctx)
            .map_err(|e| describe(&e))?;
        loop {
            while ctx.execute_pending_job() {}
            if ctx.has_exception() {
                // A job stopped by the interrupt leaves its exception here.
                let e = ctx.catch();
                return Err(describe_value(&e));
            }
            match promise.state() {
                PromiseState::Resolved => {
                    return promise
                        .result::<JsValue<'js>>()
                        .unwrap_or(Ok(JsValue::new_undefined(ctx.clone())))
                        .catch(&ctx)
                        .map_err(|e| describe(&e));
                }
                PromiseState::Rejected => {
                    let e = promise
                        .result::<JsValue<'js>>()
                        .map(|r| r.catch(&ctx))
                        .and_then(Result::err);
                    return Err(match e {
                        Some(e) => describe(&e),
                        None => "the program failed".into(),
                    });
                }
                PromiseState::Pending => {}
            }
            self.send();
            if self.in_flight == 0 {
                return Err(
                    "the program waits on a promise that nothing will settle (there are no timers or events here); await tool calls or values only".into(),
                );
            }
            self.wait()?;
        }
    }

    /// Sends the calls queued since the last send.
    fn send(&mut self) {
        for request in self.queued.borrow_mut().drain(..) {
            let id = request.id;
            if self.host.calls.send(request).is_err() {
                self.waiting.borrow_mut().remove(&id);
                continue;
            }
            self.in_flight += 1;
        }
    }

    /// Waits for at least one call to finish and settles every finished
    /// one's promise.
    fn wait(&mut self) -> Result<(), String> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let first = match self.host.results.recv_timeout(remaining) {
            Ok(r) => r,
            // The deadline is reported by `run`, which sees it passed.
            Err(RecvTimeoutError::Timeout) => return Err("time".into()),
            Err(RecvTimeoutError::Disconnected) => return Err(CANCELLED.into()),
        };
        let mut next = Some(first);
        while let Some(response) = next {
            self.in_flight -= 1;
            self.settle(response)?;
            next = self.host.results.try_recv().ok();
        }
        Ok(())
    }

    fn settle(&mut self, response: Response) -> Result<(), String> {
        let Some((resolve, reject)) = self.waiting.borrow_mut().remove(&response.id) else {
            return Ok(());
        };
        let ctx = self.ctx.clone();
        let outcome = match response.result {
            Ok(value) => {
                let text = value.to_string();
                match ctx.json_parse(text) {
                    Ok(v) => resolve.call::<_, ()>((v,)),
                    Err(_) => {
                        let _ = ctx.catch();
                        let failure = Failure {
                            message: "the tool's result did not fit in the program's memory".into(),
                            kind: "limit",
                            data: None,
                        };
                        make_error(&ctx, "", &failure).and_then(|e| reject.call::<_, ()>((e,)))
                    }
                }
            }
            Err(failure) => make_error(&ctx, "", &failure).and_then(|e| reject.call::<_, ()>((e,))),
        };
        outcome.catch(&ctx).map_err(|e| describe(&e))
    }

    /// The returned value as JSON, cut to the result limit.
    fn json(&self, value: JsValue<'js>, notes: &mut Vec<String>) -> Result<Value, String> {
        let max = self.limits.max_result_bytes;
        if value.is_undefined() {
            return Ok(Value::Null);
        }
        if let Some(s) = value.as_string() {
            let s = s
                .to_string()
                .map_err(|e| format!("the returned string could not be read: {e}"))?;
            if let Some(shown) = shown_cut(&s, "a string", max, notes) {
                return Ok(shown);
            }
            return Ok(Value::String(s));
        }
        let text = self
            .ctx
            .json_stringify(value)
            .catch(&self.ctx)
            .map_err(|e| {
                format!(
                    "the returned value cannot be written as JSON: {}",
                    describe(&e)
                )
            })?;
        let Some(text) = text else {
            return Ok(Value::Null);
        };
        let text = text
            .to_string()
            .map_err(|e| format!("the result could not be read: {e}"))?;
        if let Some(shown) = shown_cut(&text, "JSON", max, notes) {
            return Ok(shown);
        }
        serde_json::from_str(&text).map_err(|e| format!("the result is not valid JSON: {e}"))
    }
}

/// `text` cut to `max` bytes, with a note saying it was `what` of how many
/// bytes; `None` when it fits.
fn shown_cut(text: &str, what: &str, max: usize, notes: &mut Vec<String>) -> Option<Value> {
    (text.len() > max).then(|| {
        notes.push(format!(
            "the result was {what} of {} bytes; only the first {max} are shown, as text (results are capped at {max} bytes: return less, a summary or a slice)",
            text.len()
        ));
        Value::String(format!("{}…", cut(text, max)))
    })
}

/// A failed call as the `Error` a program catches: `message`, `name`
/// (`ToolError`), `tool`, `kind` and `data` (the problems of invalid
/// arguments, the schema…).
fn make_error<'js>(ctx: &Ctx<'js>, tool: &str, failure: &Failure) -> rquickjs::Result<Object<'js>> {
    let error = rquickjs::Exception::from_message(ctx.clone(), &failure.message)?.into_object();
    error.set("name", "ToolError")?;
    if !tool.is_empty() {
        error.set("tool", tool)?;
    }
    error.set("kind", failure.kind)?;
    if let Some(data) = &failure.data {
        error.set("data", ctx.json_parse(data.to_string())?)?;
    }
    Ok(error)
}

/// An error as the model reads it: the message, and the line of the
/// program it came from.
fn describe(error: &CaughtError<'_>) -> String {
    match error {
        CaughtError::Exception(e) => {
            let message = e.message().unwrap_or_default();
            let name: Option<String> = e.get("name").ok();
            let head = match name {
                Some(name) if !name.is_empty() => format!("{name}: {message}"),
                _ => message,
            };
            with_line(head, e.stack().as_deref())
        }
        CaughtError::Value(v) => describe_value(v),
        CaughtError::Error(e) => e.to_string(),
    }
}

/// A thrown value that is not an `Error`.
fn describe_value(value: &JsValue<'_>) -> String {
    if let Some(e) = value.as_exception() {
        return describe(&CaughtError::Exception(e.clone()));
    }
    let shown = value
        .ctx()
        .json_stringify(value.clone())
        .ok()
        .flatten()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| format!("{:?}", value.type_of()));
    format!("uncaught {shown}")
}

/// `message (line N)` from the first frame of the stack in the program.
fn with_line(message: String, stack: Option<&str>) -> String {
    let line = stack.and_then(|s| {
        let at = s.find(&format!("{FILE}:"))?;
        let rest = &s[at + FILE.len() + 1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (!digits.is_empty()).then_some(digits)
    });
    match line {
        Some(n) => format!("{message} (line {n})"),
        None => message,
    }
}
