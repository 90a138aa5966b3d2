//! The `'static` description of a tool that `#[tool]` generates, and how
//! the descriptors of a binary are collected (inventory, or a linkme slice).

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::context::ToolContext;
use crate::error::ToolError;

/// The future a tool call returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send + 'static>>;

/// The call shim of a linked tool: decode the JSON arguments, call the
/// function, encode its result.
pub type CallFn = fn(ToolContext, Value) -> ToolFuture;

/// Whether a tool is always sent to the model or loaded on demand. Make a
/// tool [`Core`](Self::Core) when most conversations need it (the
/// OptimClaw lazy-tools document keeps about a dozen); everything else
/// [`Deferred`](Self::Deferred), with keywords that help `tool_info` find it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolKind {
    /// Always sent with its full schema.
    Core,
    /// Listed by name only in lazy mode; loaded through `tool_info`.
    Deferred,
}

/// What a tool says about its behaviour, for clients that decide what to
/// confirm or retry (MCP tool annotations). `None` is "not said": MCP's
/// defaults apply (a tool may change things, destructively, and reach the
/// outside world). Hints, not guarantees: clients must not trust them from
/// servers they do not trust. Set them with `#[tool(read_only)]`,
/// `#[tool(destructive)]`, `#[tool(idempotent)]`, `#[tool(open_world)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolHints {
    /// Changes nothing (`#[tool(read_only)]`).
    pub read_only: Option<bool>,
    /// May destroy or overwrite data (`#[tool(destructive)]`).
    pub destructive: Option<bool>,
    /// Calling twice with the same arguments does no more than once.
    pub idempotent: Option<bool>,
    /// Reaches things outside the program (the web, other services).
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// Whether no hint is given.
    pub fn is_empty(&self) -> bool {
        *self == ToolHints::default()
    }

    /// Whether the tool may destroy or overwrite data, with MCP's defaults
    /// for hints not given: `destructive` when said, else any tool not
    /// marked `read_only`.
    ///
    /// ```
    /// use optimclaw::ToolHints;
    /// assert!(ToolHints::default().may_destroy());
    /// let read_only = ToolHints { read_only: Some(true), ..ToolHints::default() };
    /// assert!(!read_only.may_destroy());
    /// let additive = ToolHints { destructive: Some(false), ..ToolHints::default() };
    /// assert!(!additive.may_destroy());
    /// ```
    pub fn may_destroy(&self) -> bool {
        self.destructive.unwrap_or(self.read_only != Some(true))
    }
}

/// Where a linked tool was defined: registry errors name it, so a bad
/// tool among hundreds is found at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    /// `file!()` of the function.
    pub file: &'static str,
    /// `line!()` of the function name.
    pub line: u32,
    /// `column!()` of the function name.
    pub column: u32,
    /// `module_path!()` of the function.
    pub module_path: &'static str,
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Everything `#[tool]` knows about a function, registered at link time.
/// You rarely touch one: [`Registry::from_linked`](crate::Registry::from_linked)
/// collects them all; [`linked_tools`] and
/// [`RegistryBuilder::descriptor`](crate::RegistryBuilder::descriptor) are
/// for building a registry from a chosen few (tests, one registry per node).
///
/// Schemas are functions so they are produced once, when a
/// [`Registry`](crate::Registry) is built, not at start-up of every binary.
pub struct ToolDescriptor {
    /// The tool name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: &'static str,
    /// The description sent to the model (the function's doc comment).
    pub description: &'static str,
    /// Core or deferred.
    pub kind: ToolKind,
    /// Extra words for `tool_info` search.
    pub keywords: &'static [&'static str],
    /// Example user requests the tool answers, searched too.
    pub asks: &'static [&'static str],
    /// Produces the JSON schema of the arguments.
    pub input_schema: fn() -> Value,
    /// Produces the JSON schema of the result, where the result type has one.
    pub output_schema: fn() -> Option<Value>,
    /// Decodes arguments, calls the function, encodes the result.
    pub call: CallFn,
    /// Example calls (`#[tool(examples = [...])]`), as JSON objects in text.
    pub examples: &'static [&'static str],
    /// A human-readable title (`#[tool(title = "…")]`, MCP `title`).
    pub title: Option<&'static str>,
    /// Behaviour hints (`read_only`, `destructive`, …; MCP annotations).
    pub hints: ToolHints,
    /// Decodes arguments without calling the function: how examples are
    /// checked when a registry is built.
    pub check_arguments: fn(Value) -> Result<(), ToolError>,
    /// The shared state the tool takes as `&T` parameters: a registry
    /// without it does not build.
    pub state: &'static [StateNeed],
    /// Where the function is.
    pub location: SourceLocation,
}

/// A `&T` parameter of a tool: state the registry must hold
/// ([`RegistryBuilder::state`](crate::RegistryBuilder::state)).
#[derive(Clone, Copy)]
pub struct StateNeed {
    /// `TypeId::of::<T>()`.
    pub type_id: fn() -> std::any::TypeId,
    /// `type_name::<T>()`, for errors.
    pub type_name: fn() -> &'static str,
    /// The parameter's name.
    pub param: &'static str,
}

impl fmt::Debug for StateNeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateNeed")
            .field("type", &(self.type_name)())
            .field("param", &self.param)
            .finish()
    }
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("keywords", &self.keywords)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

#[cfg(not(feature = "linkme"))]
inventory::collect!(ToolDescriptor);

/// The distributed slice tools register into under the `linkme` feature.
#[cfg(feature = "linkme")]
#[allow(unsafe_code)]
#[linkme::distributed_slice]
pub static TOOLS: [ToolDescriptor];

/// Every tool linked into this binary with `#[tool]`, in link order.
pub fn linked_tools() -> impl Iterator<Item = &'static ToolDescriptor> {
    #[cfg(not(feature = "linkme"))]
    {
        inventory::iter::<ToolDescriptor>.into_iter()
    }
    #[cfg(feature = "linkme")]
    {
        TOOLS.iter()
    }
}
