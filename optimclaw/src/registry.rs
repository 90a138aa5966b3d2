//! The registry: every linked `#[tool]` plus dynamic tools, validated once,
//! callable by name with JSON arguments.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::Value;

use crate::ToolContext;
use crate::config::LazyConfig;
use crate::descriptor::{
    CallFn, SourceLocation, ToolDescriptor, ToolFuture, ToolKind, linked_tools,
};
use crate::error::{RegistryError, ToolError, ToolErrorKind};
use crate::prompt::TOOL_INFO;
use crate::schema;
use crate::search::{SearchIndex, Weights};

/// The provider rule for tool names: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The JSON type of a value, for error messages.
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Handles calls of a dynamic tool (an MCP server's tool, a WASM module…).
///
/// Implemented for every `Fn(ToolContext, Value) -> impl Future` closure.
pub trait ToolHandler: Send + Sync + 'static {
    /// Starts a call with JSON arguments.
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture;
}

impl<F, Fut> ToolHandler for F
where
    F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
{
    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        Box::pin(self(ctx, args))
    }
}

#[derive(Clone)]
enum Handler {
    Linked(CallFn),
    Dynamic(Arc<dyn ToolHandler>),
    None,
}

/// Where a registered tool comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolOrigin {
    /// A `#[tool]` function.
    Linked(SourceLocation),
    /// Added at run time; the text says from where (e.g. `manifest tools.json`).
    Dynamic(String),
}

impl fmt::Display for ToolOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolOrigin::Linked(loc) => write!(f, "{loc}"),
            ToolOrigin::Dynamic(from) => f.write_str(from),
        }
    }
}

/// A tool added at run time: name, description, JSON schema and a handler.
///
/// ```
/// use optimclaw::{DynamicTool, Registry, ToolContext};
/// use serde_json::json;
/// let tool = DynamicTool::new("add", "Add two numbers.", json!({
///     "type": "object",
///     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///     "required": ["a", "b"],
/// }))
/// .keywords(["sum", "plus"])
/// .handler(|_ctx, args: serde_json::Value| async move {
///     Ok(json!(args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)))
/// });
/// let registry = Registry::builder().without_linked().tool(tool).build().unwrap();
/// assert!(registry.get("add").is_some());
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    name: String,
    description: String,
    kind: ToolKind,
    keywords: Vec<String>,
    input_schema: Value,
    output_schema: Option<Value>,
    handler: Handler,
    origin: String,
}

impl DynamicTool {
    /// A deferred tool without a handler (it can be searched and loaded,
    /// and answers a call with a "not callable here" error).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        DynamicTool {
            name: name.into(),
            description: description.into(),
            kind: ToolKind::Deferred,
            keywords: Vec::new(),
            input_schema,
            output_schema: None,
            handler: Handler::None,
            origin: "dynamic".into(),
        }
    }

    /// Sets the handler that runs calls.
    #[must_use]
    pub fn handler(mut self, handler: impl ToolHandler) -> Self {
        self.handler = Handler::Dynamic(Arc::new(handler));
        self
    }

    /// Sets a shared handler.
    #[must_use]
    pub fn shared_handler(mut self, handler: Arc<dyn ToolHandler>) -> Self {
        self.handler = Handler::Dynamic(handler);
        self
    }

    /// Makes the tool core or deferred (the default).
    #[must_use]
    pub fn kind(mut self, kind: ToolKind) -> Self {
        self.kind = kind;
        self
    }

    /// Adds search keywords.
    #[must_use]
    pub fn keywords<I, S>(mut self, keywords: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.keywords.extend(keywords.into_iter().map(Into::into));
        self
    }

    /// Sets the schema of the result.
    #[must_use]
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Says where the tool comes from, for error messages.
    #[must_use]
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = origin.into();
        self
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same tool under another name.
    #[must_use]
    pub fn renamed(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// One tool in a [`Registry`], with its schemas materialised.
pub struct Tool {
    name: String,
    description: String,
    kind: ToolKind,
    keywords: Vec<String>,
    input_schema: Value,
    output_schema: Option<Value>,
    handler: Handler,
    origin: ToolOrigin,
}

impl Tool {
    fn new(parts: DynamicTool, origin: ToolOrigin) -> Self {
        let DynamicTool {
            name,
            description,
            kind,
            keywords,
            mut input_schema,
            output_schema,
            handler,
            origin: _,
        } = parts;
        schema::clean_root(&mut input_schema);
        let output_schema = output_schema.map(|mut s| {
            schema::clean_root(&mut s);
            s
        });
        Tool {
            name,
            description,
            kind,
            keywords,
            input_schema,
            output_schema,
            handler,
            origin,
        }
    }

    fn from_descriptor(d: &'static ToolDescriptor) -> Self {
        let parts = DynamicTool {
            name: d.name.to_owned(),
            description: d.description.to_owned(),
            kind: d.kind,
            keywords: d.keywords.iter().map(|k| (*k).to_owned()).collect(),
            input_schema: (d.input_schema)(),
            output_schema: (d.output_schema)(),
            handler: Handler::Linked(d.call),
            origin: String::new(),
        };
        Tool::new(parts, ToolOrigin::Linked(d.location))
    }

    fn from_dynamic(d: DynamicTool) -> Self {
        let origin = ToolOrigin::Dynamic(d.origin.clone());
        Tool::new(d, origin)
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The description sent to the model.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Core or deferred.
    pub fn kind(&self) -> ToolKind {
        self.kind
    }
    /// Whether the tool is always sent.
    pub fn is_core(&self) -> bool {
        self.kind == ToolKind::Core
    }
    /// Search keywords.
    pub fn keywords(&self) -> &[String] {
        &self.keywords
    }
    /// The canonical JSON schema of the arguments.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
    /// The canonical JSON schema of the result, if known.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }
    /// Where the tool comes from.
    pub fn origin(&self) -> &ToolOrigin {
        &self.origin
    }
    /// Whether calls can run here (a manifest tool without handler cannot).
    pub fn is_callable(&self) -> bool {
        !matches!(self.handler, Handler::None)
    }

    /// Drops `null` values of optional arguments, at any depth the schema
    /// describes: strict-mode models send `null` for what they leave out.
    ///
    /// Arguments nested deeper than [`MAX_ARGUMENT_DEPTH`] are refused (and
    /// taken apart without recursion): JSON text that deep never parses,
    /// and dropping such a value recursively would overflow the stack.
    fn prepare_args(&self, mut args: Value) -> Result<Value, ToolError> {
        let shape = inspect(&args);
        if shape.too_deep {
            drop_iteratively(args);
            return Err(ToolError::invalid_arguments(
                &self.name,
                "",
                format!(
                    "the arguments nest more than {MAX_ARGUMENT_DEPTH} levels deep; flatten them"
                ),
            ));
        }
        if shape.has_null {
            strip_optional_nulls(&mut args, &self.input_schema, &self.input_schema, 0);
        }
        Ok(args)
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// Options of one call.
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Give up after this long (needs a Tokio runtime with its timer).
    pub timeout: Option<Duration>,
}

impl CallOptions {
    /// Options with a time limit.
    pub fn timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
        }
    }
}

/// Builds a [`Registry`].
#[derive(Debug)]
pub struct RegistryBuilder {
    linked: bool,
    descriptors: Vec<&'static ToolDescriptor>,
    dynamic: Vec<DynamicTool>,
    call_timeout: Option<Duration>,
    lazy: Option<LazyConfig>,
    weights: Weights,
}

impl RegistryBuilder {
    /// Sets lazy loading explicitly. Without it, `build` reads
    /// `OPTIMCLAW_LAZY_TOOLS` (environment, then `~/.optimclaw/.env`).
    #[must_use]
    pub fn lazy(mut self, lazy: LazyConfig) -> Self {
        self.lazy = Some(lazy);
        self
    }

    /// Sets the field weights of `tool_info` search.
    #[must_use]
    pub fn search_weights(mut self, weights: Weights) -> Self {
        self.weights = weights;
        self
    }

    /// Leaves out the tools linked with `#[tool]`; add some back with
    /// [`descriptor`](Self::descriptor).
    #[must_use]
    pub fn without_linked(mut self) -> Self {
        self.linked = false;
        self
    }

    /// Adds one linked tool (for registries built `without_linked`).
    #[must_use]
    pub fn descriptor(mut self, descriptor: &'static ToolDescriptor) -> Self {
        self.descriptors.push(descriptor);
        self
    }

    /// Adds a dynamic tool.
    #[must_use]
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.push(tool);
        self
    }

    /// Adds dynamic tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = DynamicTool>) -> Self {
        self.dynamic.extend(tools);
        self
    }

    /// A time limit for every call that sets none itself.
    #[must_use]
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// Validates every tool and builds the registry. Fails with every
    /// problem found: invalid names, duplicates (with both origins),
    /// argument schemas that are not object schemas.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut descriptors = self.descriptors;
        if self.linked {
            descriptors.extend(linked_tools());
        }
        // The same descriptor added twice is one tool, not a duplicate.
        descriptors.sort_by_key(|d| std::ptr::from_ref(*d) as usize);
        descriptors.dedup_by_key(|d| std::ptr::from_ref(*d) as usize);
        let mut tools: Vec<Tool> = descriptors.into_iter().map(Tool::from_descriptor).collect();
        tools.extend(self.dynamic.into_iter().map(Tool::from_dynamic));

        let mut problems = Vec::new();
        let lazy = match self.lazy {
            Some(lazy) => lazy,
            None => LazyConfig::from_env().unwrap_or_else(|e| {
                problems.push(e.to_string());
                LazyConfig::default()
            }),
        };
        for tool in &tools {
            if !is_valid_tool_name(&tool.name) {
                problems.push(format!(
                    "invalid tool name {:?} ({}): names must match ^[a-zA-Z0-9_-]{{1,64}}$",
                    tool.name.chars().take(80).collect::<String>(),
                    tool.origin
                ));
            }
            if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
                problems.push(format!(
                    "tool `{}` ({}): its input schema must have \"type\": \"object\" (providers accept only object schemas for arguments)",
                    tool.name, tool.origin
                ));
            }
        }
        // Deterministic order: by name, so prompts are stable across builds.
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        for pair in tools.windows(2) {
            if pair[0].name == pair[1].name {
                problems.push(format!(
                    "duplicate tool name `{}`: defined at {} and at {}",
                    pair[0].name, pair[0].origin, pair[1].origin
                ));
            }
        }
        if !problems.is_empty() {
            return Err(RegistryError::new(problems));
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        let lower = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.to_ascii_lowercase(), i))
            .collect();
        let search = SearchIndex::build(
            tools
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.is_core() && t.name != TOOL_INFO),
            self.weights,
        );
        Ok(Registry {
            inner: Arc::new(Inner {
                tools,
                index,
                lower,
                call_timeout: self.call_timeout,
                lazy,
                search,
            }),
        })
    }
}

struct Inner {
    /// Sorted by name.
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    lower: HashMap<String, usize>,
    call_timeout: Option<Duration>,
    lazy: LazyConfig,
    search: SearchIndex,
}

/// Every tool of a program, validated, with schemas materialised once.
/// Cloning is cheap (a shared pointer).
///
/// ```
/// # use optimclaw::Registry;
/// let registry = Registry::from_linked().expect("tools are valid");
/// assert!(registry.get("tool_info").is_some());
/// ```
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

impl Registry {
    /// A builder that starts with every linked `#[tool]`.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder {
            linked: true,
            descriptors: Vec::new(),
            dynamic: Vec::new(),
            call_timeout: None,
            lazy: None,
            weights: Weights::default(),
        }
    }

    /// The lazy-loading setting of this registry (sessions start from it).
    pub fn lazy_config(&self) -> &LazyConfig {
        &self.inner.lazy
    }

    /// Ranked keyword search over the deferred tools, best first.
    pub fn search(&self, query: &str, k: usize) -> Vec<&Tool> {
        self.inner
            .search
            .search(query, k)
            .into_iter()
            .map(|hit| &self.inner.tools[hit.tool])
            .collect()
    }

    /// The search index (for scores and benchmarks).
    pub fn search_index(&self) -> &SearchIndex {
        &self.inner.search
    }

    /// The registry of every linked `#[tool]`.
    pub fn from_linked() -> Result<Self, RegistryError> {
        Self::builder().build()
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.inner.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.inner.tools.is_empty()
    }

    /// The tool with exactly this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.inner.index.get(name).map(|&i| &self.inner.tools[i])
    }

    /// The tool with this name, ignoring ASCII case.
    pub fn get_ignore_case(&self, name: &str) -> Option<&Tool> {
        self.get(name).or_else(|| {
            self.inner
                .lower
                .get(&name.to_ascii_lowercase())
                .map(|&i| &self.inner.tools[i])
        })
    }

    /// Up to `n` known names closest to `name` (edit distance and
    /// containment), best first, for "did you mean" answers.
    pub fn nearest_names(&self, name: &str, n: usize) -> Vec<&str> {
        let query = name.to_ascii_lowercase();
        if query.is_empty() || query.len() > 256 {
            return Vec::new();
        }
        let mut scored: Vec<(f64, &str)> = self
            .inner
            .tools
            .iter()
            .filter_map(|t| {
                let lower = t.name.to_ascii_lowercase();
                let mut score = strsim::normalized_damerau_levenshtein(&query, &lower);
                if query.len() >= 3 && (lower.contains(&query) || query.contains(&lower)) {
                    score = score.max(0.75);
                }
                (score >= 0.5).then_some((score, t.name.as_str()))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(n).map(|(_, name)| name).collect()
    }

    /// Calls a tool by name with JSON arguments.
    ///
    /// Errors are written for the model: an unknown name lists the nearest
    /// names, invalid arguments give the field path and what was expected,
    /// a panic inside the tool is caught and reported, and the registry
    /// stays usable in every case.
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        self.call_with(name, args, ctx, CallOptions::default())
            .await
    }

    /// [`call`](Self::call) with options (a time limit).
    pub async fn call_with(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        options: CallOptions,
    ) -> Result<Value, ToolError> {
        let Some(tool) = self.get(name) else {
            return Err(ToolError::unknown_tool(name, &self.nearest_names(name, 3)));
        };
        let handler = tool.handler.clone();
        if matches!(handler, Handler::None) {
            return Err(ToolError::with_kind(
                ToolErrorKind::NotCallable,
                format!(
                    "tool `{}` is known here ({}) but cannot be called here: no handler is attached",
                    tool.name, tool.origin
                ),
            ));
        }
        let args = tool.prepare_args(args)?;
        let ctx = ctx.clone().with_registry(self.clone());
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
        let timeout = options.timeout.or(self.inner.call_timeout);
        let outcome = match timeout {
            Some(limit) => {
                match until_cancelled(&cancel, tokio::time::timeout(limit, future)).await {
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
                }
            }
            None => match until_cancelled(&cancel, future).await {
                None => return Err(cancelled(name)),
                Some(outcome) => outcome,
            },
        };
        match outcome {
            Ok(result) => result.map_err(|e| e.in_tool(name)),
            Err(payload) => Err(panicked(name, &*payload)),
        }
    }
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

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}
