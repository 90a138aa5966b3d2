//! MCP both ways, through rmcp (the official Rust SDK): [`McpServer`]
//! serves a registry (lazily or eagerly) to MCP clients, over standard
//! input and output or streamable HTTP, and [`McpClient`] imports MCP
//! servers' tools as deferred tools named `server__tool`.

#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod answers;
mod auth;
mod client;
mod front;
mod hosts;
mod http;
mod inspect;
pub mod layers;
mod limits;
mod memory;
mod quota;
mod report;
mod server;
mod servers;
mod sessions;

pub use auth::{AuthError, HttpAuth, MIN_TOKEN_CHARS, TOKEN_ENV};
pub use client::{McpClient, McpClientOptions};
pub use front::McpSessions;
pub use http::{HttpBody, McpHttpEndpoint, McpHttpService};
pub use limits::HttpLimits;
pub use server::McpServer;
pub use servers::{ServerConfig, ServersFile, ServersFileError, load_servers_file};
