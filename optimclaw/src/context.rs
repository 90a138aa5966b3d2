//! Shared state that tools borrow: a cheap-to-clone typed map.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::error::ToolError;
use crate::output::{LogLevel, OutputSlot, Progress, SharedReporter, ToolOutput};

type Values = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// A value a tool asked its [`ToolContext`] for
/// ([`require`](ToolContext::require)) that the caller did not put there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("this tool needs a `{type_name}` in its ToolContext, and none was provided")]
#[non_exhaustive]
pub struct MissingState {
    /// The type asked for.
    pub type_name: &'static str,
}

impl From<MissingState> for ToolError {
    fn from(err: MissingState) -> Self {
        ToolError::from_error(err)
    }
}

/// Rewrites a text a tool returned: `None` keeps it as it is. Give one to
/// [`ToolContext::with_output_filter`] (which has an example) to redact
/// what no tool result may show.
pub type OutputFilter = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What a tool can reach besides its arguments: shared values by type (a
/// database handle, an HTTP client, a workspace root), the registry that
/// dispatched the call, and a cancellation token.
///
/// Cloning is a few reference-count increments. A tool takes it as a
/// `&ToolContext` parameter, which is injected and not part of the schema.
///
/// ```
/// use optimclaw::ToolContext;
/// struct Workspace(std::path::PathBuf);
/// let ctx = ToolContext::new().with(Workspace("/tmp".into()));
/// assert_eq!(ctx.get::<Workspace>().unwrap().0, std::path::Path::new("/tmp"));
/// ```
#[derive(Clone, Default)]
pub struct ToolContext {
    values: Arc<Values>,
    /// Behind an `Arc`: cloning a `CancellationToken` takes a lock, and a
    /// context is cloned for every call.
    cancel: Arc<CancellationToken>,
    /// The registry that dispatched the call, kept as `dyn Any` so this
    /// module stays below the registry (`ToolContext::registry`, in the
    /// registry's module, gives it its type back).
    dispatcher: Option<Arc<dyn Any + Send + Sync>>,
    /// Applied to every string of every result and error message.
    output_filter: Option<OutputFilter>,
    /// The id the model gave this call (recorded on its span).
    call_id: Option<Arc<str>>,
    /// Where the call's `ToolOutput` goes, when its caller takes blocks.
    output_slot: Option<Arc<OutputSlot>>,
    /// Where progress and log messages go.
    reporter: Option<SharedReporter>,
}

impl ToolContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the value of type `T`.
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds (or replaces) the value of type `T` in place.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.values).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was added.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    /// The value of type `T`, or an error saying which type is missing.
    /// The error converts into [`ToolError`] and is a
    /// `std::error::Error`, so `?` works in a tool returning either, or
    /// its own error type with a `From<MissingState>`. (State the registry
    /// holds is better taken as a `&T` parameter: it is checked when the
    /// registry is built.)
    pub fn require<T: Send + Sync + 'static>(&self) -> Result<&T, MissingState> {
        self.get::<T>().ok_or(MissingState {
            type_name: type_name::<T>(),
        })
    }

    /// The token cancelled when the caller gives up on the call.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Uses `token` for cancellation of calls made with this context.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Arc::new(token);
        self
    }

    /// Passes every string of every tool result, and every error message,
    /// through `filter` before the caller sees it: one place to redact
    /// secrets from whatever any tool returns (registry, session and MCP
    /// calls all go through it).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use optimclaw::ToolContext;
    /// let ctx = ToolContext::new()
    ///     .with_output_filter(Arc::new(|text: &str| {
    ///         text.contains("hunter2").then(|| text.replace("hunter2", "[secret]"))
    ///     }));
    /// # let _ = ctx;
    /// ```
    #[must_use]
    pub fn with_output_filter(mut self, filter: OutputFilter) -> Self {
        self.output_filter = Some(filter);
        self
    }

    /// Marks calls made with this context with the id the model (or the
    /// MCP client) gave the call: it is recorded on the call's
    /// `execute_tool` span as `gen_ai.tool.call.id`.
    #[must_use]
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(id.into());
        self
    }

    /// The id set by [`with_call_id`](Self::with_call_id).
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// Sends `reporter` what tools called with this context report
    /// ([`progress`](Self::progress), [`log`](Self::log)).
    #[must_use]
    pub fn with_reporter(mut self, reporter: Arc<dyn crate::output::CallReporter>) -> Self {
        self.reporter = Some(reporter);
        self
    }

    /// Reports progress of the running call: `progress` (increasing with
    /// every update) out of `total` when known. Over MCP it reaches the
    /// client as `notifications/progress` when the client asked for
    /// progress; elsewhere it goes nowhere. The message passes the output
    /// filter first.
    ///
    /// ```
    /// # async fn run(ctx: &optimclaw::ToolContext) {
    /// for step in 1..=3 {
    ///     ctx.progress(f64::from(step), Some(3.0), Some("copying")).await;
    /// }
    /// # }
    /// ```
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(reporter) = &self.reporter else {
            return;
        };
        let message = message.map(|m| self.filtered(m));
        reporter
            .progress(Progress {
                progress,
                total,
                message,
            })
            .await;
    }

    /// Sends a log message about the running call: over MCP as
    /// `notifications/message` at or above the level the client set;
    /// elsewhere to `tracing` at the matching level. The message passes
    /// the output filter first.
    pub async fn log(&self, level: LogLevel, message: impl Into<String>) {
        let message = self.filtered(&message.into());
        match &self.reporter {
            Some(reporter) => reporter.log(level, message).await,
            None => match level {
                LogLevel::Debug => tracing::debug!(target: "optimclaw::tool", "{message}"),
                LogLevel::Info | LogLevel::Notice => {
                    tracing::info!(target: "optimclaw::tool", "{message}");
                }
                LogLevel::Warning => tracing::warn!(target: "optimclaw::tool", "{message}"),
                _ => tracing::error!(target: "optimclaw::tool", "{message}"),
            },
        }
    }

    fn filtered(&self, text: &str) -> String {
        self.output_filter
            .as_ref()
            .and_then(|f| f(text))
            .unwrap_or_else(|| text.to_owned())
    }

    pub(crate) fn output_slot(&self) -> Option<&Arc<OutputSlot>> {
        self.output_slot.as_ref()
    }

    pub(crate) fn with_output_slot(mut self, slot: Option<Arc<OutputSlot>>) -> Self {
        self.output_slot = slot;
        self
    }

    pub(crate) fn output_filter(&self) -> Option<&OutputFilter> {
        self.output_filter.as_ref()
    }

    pub(crate) fn cancellation_shared(&self) -> Arc<CancellationToken> {
        Arc::clone(&self.cancel)
    }

    pub(crate) fn dispatcher(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.dispatcher.as_ref()
    }

    pub(crate) fn with_dispatcher(mut self, dispatcher: Arc<dyn Any + Send + Sync>) -> Self {
        self.dispatcher = Some(dispatcher);
        self
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("values", &self.values.len())
            .field("cancelled", &self.cancel.is_cancelled())
            .field("registry", &self.dispatcher.is_some())
            .field("output_filter", &self.output_filter.is_some())
            .field("reporter", &self.reporter.is_some())
            .finish_non_exhaustive()
    }
}

/// Defined here rather than beside [`ToolOutput`]: the output types know
/// nothing of the context that carries them.
impl ToolOutput {
    /// Hands the output to the caller of the running call (the blocks go
    /// to callers that take them) and returns its [`value`](Self::value):
    /// what a dynamic tool's handler returns.
    ///
    /// ```
    /// use optimclaw::{DynamicTool, ToolOutput};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("snapshot", "Takes a snapshot.", json!({"type": "object"}))
    ///     .handler(|ctx, _args| async move {
    ///         Ok(ToolOutput::text("taken").deliver(&ctx))
    ///     });
    /// # let _ = tool;
    /// ```
    pub fn deliver(self, ctx: &ToolContext) -> serde_json::Value {
        let value = self.value();
        if let Some(slot) = ctx.output_slot() {
            slot.put(self);
        }
        value
    }
}
