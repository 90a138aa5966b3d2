//! Code mode: the registry as a typed JavaScript API, and one sandboxed
//! program instead of a dozen tool calls.
//!
//! With [`LazyConfig::code_mode`](crate::LazyConfig::code_mode) on (and the
//! `code-mode` feature), a registry gains the core tool `run_code(code)`.
//! `code` is the body of an async JavaScript function; every tool the
//! caller may use is `await tools.NAME(args)`, through the same path as any
//! call (argument checks, scopes, the output filter, time limits, spans).
//! The `tools` array stays fixed (core tools, `tool_info`, `run_code`) and
//! `tool_info` answers with [`declarations`] instead of JSON schemas.
//!
//! The program runs in an embedded interpreter (QuickJS-NG) with no file,
//! network, process, module or timer API, under [`CodeLimits`].
//!
//! - `declare.rs`: tools as TypeScript declarations, `types.rs` a schema as
//!   a TypeScript type (no feature needed);
//! - `engine.rs`: one program in the interpreter and its limits; `host.rs`
//!   the calls it makes; `report.rs` what it produced;
//! - `run.rs`: the `run_code` tool: the interpreter's calls dispatched.

mod declare;
mod types;

pub use crate::config::CodeLimits;
pub use declare::{declaration, declarations};
pub use types::ts_type;
