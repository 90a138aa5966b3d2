#![doc = include_str!("../../README.md")]
#![warn(missing_docs)]

mod context;
mod descriptor;
mod error;
mod registry;
pub mod schema;
pub mod testing;

#[doc(hidden)]
pub mod __private;

pub use context::ToolContext;
pub use descriptor::{CallFn, SourceLocation, ToolDescriptor, ToolFuture, ToolKind, linked_tools};
pub use error::{RegistryError, ToolError, ToolErrorKind};
pub use optimclaw_macros::tool;
pub use registry::{
    CallOptions, DynamicTool, Registry, RegistryBuilder, Tool, ToolHandler, ToolOrigin,
    is_valid_tool_name,
};
