#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The README shows the one-line test users add to their own crates.
#![allow(clippy::test_attr_in_doctest)]

extern crate self as optimclaw;

mod bridge;
mod call;
pub mod code;
pub mod config;
mod context;
mod descriptor;
pub mod embed;
mod error;
pub mod manifest;
mod output;
pub mod preload;
pub mod prompt;
pub mod provider;
pub mod query;
mod ranking;
mod registry;
pub mod rerank;
pub mod schema;
mod scope;
mod scoped;
pub mod search;
mod session;
pub mod telemetry;
pub mod testing;
#[cfg(feature = "tokens")]
pub mod tokens;
mod tool;
mod tool_info;
mod tool_info_answer;

#[doc(hidden)]
pub mod __private;

pub use bridge::unpack_bridge_call;
pub use call::{CallOptions, MAX_ARGUMENT_DEPTH};
pub use config::{CodeLimits, ConfigError, LazyConfig, LoadStrategy};
pub use context::{MissingState, OutputFilter, ToolContext};
pub use descriptor::{
    CallFn, SourceLocation, StateNeed, ToolDescriptor, ToolFuture, ToolHints, ToolKind,
    linked_tools,
};
pub use error::{RegistryError, ToolError, ToolErrorKind, error_causes};
#[doc = include_str!("tool_attribute.md")]
#[doc(inline)]
pub use optimclaw_macros::tool;
pub use output::{
    CallOutput, CallReporter, Content, EmbeddedResource, LogLevel, Progress, ToolOutput,
};
pub use prompt::Prompt;
pub use registry::{Registry, RegistryBuilder};
pub use scope::{ScopeError, ToolScope};
pub use scoped::Scoped;
pub use session::Session;
pub use tool::{
    CALL_TOOL, DynamicTool, RUN_CODE, TOOL_INFO, Tool, ToolHandler, ToolOrigin, is_valid_tool_name,
};
pub use tool_info_answer::{MatchStrength, ToolInfoAnswer, ToolInfoEntry};

/// The repository's README, whose code blocks run as doctests here (it is
/// not part of the published crate).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct RepositoryReadme;
