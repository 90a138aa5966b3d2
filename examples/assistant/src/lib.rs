//! The assistant's tool catalog: the twelve core tools of the OptimClaw
//! lazy-tools document (`tool_info` comes from the framework) and a
//! deferred catalog of everyday tools, each a plain `#[tool]` function.
//!
//! Tools reach shared state through `ctx.require::<App>()`: the workspace,
//! the URL allowlist, the SQLite database, the job runner, the secret store.

pub mod app;
pub mod chat;
pub mod cli;
pub mod jobs;
pub mod memory;
pub mod net;
pub mod redact;
pub mod requests;
pub mod secrets;
pub mod shell;
pub mod workspace;

mod clock;
mod core_tools;
mod data_tools;
mod extension_tools;
mod file_tools;
mod job_tools;
mod routine_tools;
mod secret_tools;
mod skill_tools;

pub use app::{App, AppConfig};
// Links code mode's `run_code` tool (`assistant --code-mode`).
use optimclaw_code as _;

/// Names of the twelve core tools, as the document lists them.
pub const CORE_TOOLS: [&str; 12] = [
    "echo",
    "time",
    "json",
    "http",
    "web_fetch",
    "file_read",
    "file_write",
    "shell",
    "memory_search",
    "memory_write",
    "message",
    "tool_info",
];
