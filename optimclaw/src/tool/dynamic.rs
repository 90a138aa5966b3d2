//! Tools added at run time ([`DynamicTool`]) and what handles their calls
//! ([`ToolHandler`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::Handler;
use crate::context::ToolContext;
use crate::descriptor::{ToolFuture, ToolHints, ToolKind};
use crate::error::ToolError;

/// Handles calls of a dynamic tool (an MCP server's tool, a WASM module…).
///
/// Implemented for every `Fn(ToolContext, Value) -> impl Future` closure:
/// pass a closure to [`DynamicTool::handler`]. Implement it on a type of
/// your own when the handler holds state worth naming (a connection, a
/// compiled module).
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
    pub(super) name: String,
    pub(super) description: String,
    pub(super) kind: ToolKind,
    pub(super) keywords: Vec<String>,
    pub(super) asks: Vec<String>,
    pub(super) input_schema: Value,
    pub(super) output_schema: Option<Value>,
    pub(super) examples: Vec<Value>,
    pub(super) title: Option<String>,
    pub(super) hints: ToolHints,
    pub(super) handler: Handler,
    pub(super) origin: String,
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
            asks: Vec::new(),
            input_schema,
            output_schema: None,
            examples: Vec::new(),
            title: None,
            hints: ToolHints::default(),
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

    /// Adds example user requests the tool answers ("remind me to call
    /// mom tomorrow"): searched by `tool_info` like the words of its
    /// description. Blank ones are dropped.
    pub fn asks<I, S>(mut self, asks: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.asks.extend(
            asks.into_iter()
                .map(Into::into)
                .filter(|a: &String| !a.trim().is_empty()),
        );
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

    /// Adds example calls (argument objects). They are checked against the
    /// input schema when the registry is built, returned by `tool_info`,
    /// and sent where a dialect has a place for them.
    #[must_use]
    pub fn examples(mut self, examples: impl IntoIterator<Item = Value>) -> Self {
        self.examples.extend(examples);
        self
    }

    /// Sets a human-readable title (MCP `title`).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets behaviour hints (MCP annotations).
    #[must_use]
    pub fn hints(mut self, hints: ToolHints) -> Self {
        self.hints = hints;
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
