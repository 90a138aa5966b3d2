//! Code mode for optimclaw: the `run_code` tool, which runs one JavaScript
//! program that calls tools, instead of a dozen tool calls.
//!
//! With [`LazyConfig::code_mode`](optimclaw::LazyConfig::code_mode) on, a
//! registry gains the core tool `run_code(code)` from this crate. `code` is
//! the body of an async JavaScript function; every tool the caller may use
//! is `await tools.NAME(args)`, through the same path as any call (argument
//! checks, scopes, the output filter, time limits, spans). The `tools`
//! array stays fixed (core tools, `tool_info`, `run_code`) and `tool_info`
//! answers with TypeScript declarations
//! ([`optimclaw::code::declarations`]) instead of JSON schemas.
//!
//! The program runs in an embedded interpreter (QuickJS-NG) with no file,
//! network, process, module or timer API, under
//! [`CodeLimits`].
//!
//! `run_code` is registered like any `#[tool]`, so the binary must link this
//! crate: name it once (`use optimclaw_code as _;`). A registry asked for
//! code mode without it fails to build and says so.
//!
//! - `engine.rs`: one program in the interpreter and its limits; `host.rs`
//!   the calls it makes; `report.rs` what it produced;
//! - `run.rs`: the `run_code` tool: the interpreter's calls dispatched.

#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod engine;
mod host;
mod report;
mod run;

use optimclaw::CodeLimits;
