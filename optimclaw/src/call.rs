//! One call of one tool: arguments checked before any tool code runs
//! (depth limit, `null` for optional arguments dropped), then the tool run
//! under the call's cancellation token and time limit, with a panic inside
//! it caught and reported as an error the model can read.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::Value;

mod lenient;

use crate::context::ToolContext;
use crate::error::{ToolError, ToolErrorKind};
use crate::output::{CallOutput, OutputSlot, filter_strings};
use crate::schema;
use crate::tool::{Handler, Tool};

/// Options of one call, for
/// [`Registry::call_with`](crate::Registry::call_with) and
/// [`Session::call_with`](crate::Session::call_with): use them when one call
/// needs another time limit than the registry's.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Give up after this long (needs a Tokio runtime with its timer).
    pub timeout: Option<Duration>,
    /// Take the noise small models add to otherwise valid arguments
    /// (default off: every problem is refused). With it, before the
    /// arguments are checked:
    ///
    /// - a field the tool does not have is dropped when every required
    ///   field is there (`{"text": "hi", "data": "base64"}` for a tool
    ///   taking `text`);
    /// - an object or array sent as a JSON text is parsed, a number sent
    ///   as a numeric string becomes the number, `"true"`/`"false"` the
    ///   boolean, where the schema asks for that type;
    /// - for a tool marked `read_only` and not `open_world`, the one field
    ///   the tool does not have is read as its one missing required field
    ///   when the value is of that field's type (`{"input": "hi"}` for a
    ///   tool taking `text`), unless the field's name is of a path, file,
    ///   directory, URL, host, scope, key, token, secret, password,
    ///   credential or command.
    ///
    /// A value whose schema is a string is never changed, so paths, names,
    /// scopes and secrets reach the tool exactly as sent; everything else
    /// is still refused with every problem named. What was taken is
    /// recorded at `debug` on the call's span.
    pub lenient: bool,
}

impl CallOptions {
    /// Sets [`timeout`](Self::timeout).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets [`lenient`](Self::lenient).
    #[must_use]
    pub fn with_lenient(mut self, on: bool) -> Self {
        self.lenient = on;
        self
    }
}

impl Tool {
    /// The arguments as this tool's handler would receive them from a call
    /// with `options`: optional fields sent as `null` dropped and, with
    /// [`CallOptions::lenient`], the repairs it allows made (a field read
    /// under its right name, a number sent as text parsed); or the error
    /// such a call returns before the tool runs. A dynamic tool's schema
    /// check is part of it; a linked tool's arguments are decoded only when
    /// it runs. Nothing is run: use it to see what a model's call would do,
    /// or to judge a call by what the tool was given.
    ///
    /// ```
    /// # use optimclaw::{CallOptions, DynamicTool, Registry, ToolHints};
    /// # use serde_json::json;
    /// let schema = json!({"type": "object", "additionalProperties": false,
    ///     "properties": {"start": {"type": "string"}}, "required": ["start"]});
    /// let read_only = ToolHints { read_only: Some(true), ..ToolHints::default() };
    /// let registry = Registry::builder()
    ///     .without_linked()
    ///     .tools([DynamicTool::new("days", "Days since a date.", schema).hints(read_only)])
    ///     .build()?;
    /// let tool = registry.get("days").expect("registered");
    /// let sent = json!({"start_date": "2026-01-01"});
    /// let lenient = CallOptions::default().with_lenient(true);
    /// assert_eq!(
    ///     tool.prepare_arguments(sent.clone(), &lenient)?,
    ///     json!({"start": "2026-01-01"})
    /// );
    /// assert!(tool.prepare_arguments(sent, &CallOptions::default()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The call's argument error: arguments nested too deep, or (for a
    /// dynamic tool) every problem its schema finds.
    pub fn prepare_arguments(
        &self,
        args: Value,
        options: &CallOptions,
    ) -> Result<Value, ToolError> {
        prepare_args(self, args, options.lenient)
    }
}

/// Runs one call of `tool` (its registry already in `ctx`). The options'
/// `timeout` is the call's own limit or the registry's.
pub(crate) async fn run(
    tool: &Tool,
    args: Value,
    ctx: ToolContext,
    options: CallOptions,
) -> Result<Value, ToolError> {
    let timeout = options.timeout;
    let name = tool.name();
    let handler = tool.handler().clone();
    if matches!(handler, Handler::None) {
        return Err(ToolError::with_kind(
            ToolErrorKind::NotCallable,
            format!(
                "tool `{name}` is known here ({}) but cannot be called here: no handler is attached",
                tool.origin()
            ),
        ));
    }
    let args = prepare_args(tool, args, options.lenient)?;
    let filter = ctx.output_filter().cloned();
    // The outermost call owns the caller's output slot; the tools it calls
    // in turn get none, so their blocks are not taken for its own.
    let slot = ctx.output_slot().filter(|slot| slot.claim()).cloned();
    let ctx = ctx.with_output_slot(slot.clone());
    let result = execute(tool, handler, args, ctx, timeout).await;
    if let Some(slot) = &slot {
        match (&result, &filter) {
            (Err(_), _) => drop(slot.take()),
            (Ok(_), Some(filter)) => slot.with_output(|out| out.filter_texts(&**filter)),
            (Ok(_), None) => {}
        }
    }
    match filter {
        None => result,
        Some(filter) => match result {
            Ok(mut value) => {
                filter_strings(&mut value, &*filter);
                Ok(value)
            }
            Err(err) => Err(err.map_texts(|text| filter(text))),
        },
    }
}

async fn execute(
    tool: &Tool,
    handler: Handler,
    args: Value,
    ctx: ToolContext,
    timeout: Option<Duration>,
) -> Result<Value, ToolError> {
    let (name, schema) = (tool.name(), tool.input_schema());
    let cancel = ctx.cancellation_shared();
    if cancel.is_cancelled() {
        return Err(cancelled(name));
    }
    let start = std::panic::catch_unwind(AssertUnwindSafe(move || match handler {
        Handler::Linked(call) => call(ctx, args),
        Handler::Dynamic(h) => h.call(ctx, args),
        Handler::None => unreachable!("checked above"),
    }));
    let future = match start {
        Ok(future) => AssertUnwindSafe(future).catch_unwind(),
        Err(payload) => return Err(panicked(name, &*payload)),
    };
    let outcome = match timeout {
        Some(limit) => match until_cancelled(&cancel, tokio::time::timeout(limit, future)).await {
            None => return Err(cancelled(name)),
            Some(Err(_)) => {
                return Err(ToolError::with_kind(
                    ToolErrorKind::Timeout,
                    format!(
                        "tool `{name}` did not finish within {:.1} s and was stopped",
                        limit.as_secs_f64()
                    ),
                ));
            }
            Some(Ok(outcome)) => outcome,
        },
        None => match until_cancelled(&cancel, future).await {
            None => return Err(cancelled(name)),
            Some(outcome) => outcome,
        },
    };
    match outcome {
        Ok(result) => result.map_err(|e| e.in_tool(name, schema)),
        Err(payload) => Err(panicked(name, &*payload)),
    }
}

/// Drops `null` values of optional arguments, at any depth the schema
/// describes: strict-mode models send `null` for what they leave out.
///
/// Arguments nested deeper than [`MAX_ARGUMENT_DEPTH`] are refused (and
/// taken apart without recursion): JSON text that deep never parses,
/// and dropping such a value recursively would overflow the stack.
fn prepare_args(tool: &Tool, mut args: Value, lenient: bool) -> Result<Value, ToolError> {
    let shape = inspect(&args);
    if shape.too_deep {
        drop_iteratively(args);
        return Err(ToolError::invalid_arguments(
            tool.name(),
            "",
            format!("the arguments nest more than {MAX_ARGUMENT_DEPTH} levels deep; flatten them"),
        ));
    }
    if shape.has_null {
        let schema = tool.input_schema();
        strip_optional_nulls(&mut args, schema, schema, 0);
    }
    if lenient {
        // A tool that changes nothing and reaches nothing outside may have
        // a lone field read under its right name (see `lenient`).
        let hints = tool.hints();
        let rename = hints.read_only == Some(true) && hints.open_world != Some(true);
        let taken = lenient::repair(&mut args, tool.input_schema(), rename);
        if !taken.is_empty() {
            tracing::debug!(
                target: "optimclaw::call",
                tool = tool.name(),
                taken = %taken.join("; "),
                "arguments repaired"
            );
        }
    }
    // Linked tools are checked by decoding into their argument type (and,
    // when that fails, against their schema, to list every problem); a
    // dynamic tool's arguments are checked against its schema here, before
    // its handler (an MCP server, a WASM module) sees them.
    if !tool.is_linked() {
        let (problems, more) = schema::argument_problems(&args, tool.input_schema());
        if !problems.is_empty() {
            return Err(ToolError::invalid_arguments_all(
                tool.name(),
                &problems,
                more,
            ));
        }
    }
    Ok(args)
}

/// Runs `future` unless `token` is cancelled first. The future is polled
/// before the token, so a tool that finishes at once never touches the
/// token's waiter list (registering there takes a lock: most of the cost
/// of a call otherwise).
async fn until_cancelled<F: Future>(
    token: &tokio_util::sync::CancellationToken,
    future: F,
) -> Option<F::Output> {
    let future = std::pin::pin!(future);
    let cancelled = std::pin::pin!(token.cancelled());
    match futures_util::future::select(future, cancelled).await {
        futures_util::future::Either::Left((output, _)) => Some(output),
        futures_util::future::Either::Right(((), _)) => None,
    }
}

/// How deep argument walks go; deeper input is left to the deserialiser.
const MAX_WALK_DEPTH: usize = 64;

/// The deepest nesting accepted in arguments (serde_json's own limit when
/// parsing text).
pub const MAX_ARGUMENT_DEPTH: usize = 128;

struct Shape {
    has_null: bool,
    too_deep: bool,
}

/// One iterative pass over the arguments: any `null`, and too deep?
fn inspect(value: &Value) -> Shape {
    let mut shape = Shape {
        has_null: false,
        too_deep: false,
    };
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_ARGUMENT_DEPTH {
            shape.too_deep = true;
            return shape;
        }
        match v {
            Value::Null => shape.has_null = true,
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    shape
}

/// Drops a value of any depth without recursion.
fn drop_iteratively(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Follows a local `$ref` (`#/$defs/Name`) to its definition.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

fn strip_optional_nulls(args: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    match args {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                map.retain(|k, v| {
                    !(v.is_null() && props.contains_key(k) && !schema::is_required(schema, k))
                });
                for (k, v) in map.iter_mut() {
                    if let Some(prop) = props.get(k) {
                        strip_optional_nulls(v, prop, root, depth + 1);
                    }
                }
            }
            // A value of `anyOf`/`oneOf` alternatives: walk with the first
            // object alternative that describes its keys.
            for key in ["anyOf", "oneOf"] {
                if let Some(options) = schema.get(key).and_then(Value::as_array)
                    && let Some(option) = options.iter().map(|o| resolve(o, root)).find(|o| {
                        o.get("properties")
                            .and_then(Value::as_object)
                            .is_some_and(|p| map.keys().all(|k| p.contains_key(k)))
                    })
                {
                    strip_optional_nulls(args, option, root, depth + 1);
                    return;
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    strip_optional_nulls(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn cancelled(name: &str) -> ToolError {
    ToolError::with_kind(
        ToolErrorKind::Cancelled,
        format!("the call of tool `{name}` was cancelled"),
    )
}

fn panicked(name: &str, payload: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    ToolError::with_kind(
        ToolErrorKind::Panicked,
        format!(
            "tool `{name}` failed with an internal error (panic: {detail}); the call had no result"
        ),
    )
}

/// Runs `call` with a context whose output slot it then reads.
pub(crate) async fn capture<F, Fut>(ctx: &ToolContext, call: F) -> Result<CallOutput, ToolError>
where
    F: FnOnce(ToolContext) -> Fut,
    Fut: Future<Output = Result<Value, ToolError>>,
{
    let slot = Arc::new(OutputSlot::default());
    let value = call(ctx.clone().with_output_slot(Some(Arc::clone(&slot)))).await?;
    Ok(CallOutput {
        value,
        rich: slot.take(),
    })
}
