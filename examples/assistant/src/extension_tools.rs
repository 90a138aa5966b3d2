//! Extensions: MCP server entries in a config file of the common
//! `mcpServers` shape (`command`/`args`/`env` for stdio, `url` for HTTP).

use std::collections::BTreeMap;

use optimclaw::{ToolContext, ToolError, tool};
use serde_json::{Map, Value, json};

use crate::core_tools::app;

fn read(path: &std::path::Path) -> Result<Map<String, Value>, ToolError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let v: Value = serde_json::from_str(&text).map_err(|e| {
                ToolError::new(format!("{} is not valid JSON: {e}", path.display()))
            })?;
            Ok(v.get("mcpServers")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(ToolError::new(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn write(path: &std::path::Path, servers: Map<String, Value>) -> Result<(), ToolError> {
    let text = serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap_or_default();
    std::fs::write(path, text)
        .map_err(|e| ToolError::new(format!("cannot write {}: {e}", path.display())))
}

/// Add (or replace) an MCP server in the extensions config: a `command`
/// with `args` and `env` for stdio servers, or a `url` for HTTP servers.
#[tool(deferred, keywords = ["mcp", "server", "plugin", "integration", "add", "connect", "enable"], destructive)]
fn extension_install(
    ctx: &ToolContext,
    /// The server's name; its tools are named `name__tool`.
    name: String,
    /// The program to start (stdio servers).
    command: Option<String>,
    /// Its arguments.
    #[arg(default)]
    args: Vec<String>,
    /// Environment variables for it.
    #[arg(default)]
    env: BTreeMap<String, String>,
    /// The server's URL (streamable HTTP servers).
    url: Option<String>,
) -> Result<Value, ToolError> {
    let valid = (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid || name.contains("__") {
        return Err(ToolError::new(
            "extension names use letters, digits, `_` and `-` (1 to 32 characters, no `__`)",
        ));
    }
    let entry = match (command, url) {
        (Some(c), None) if !c.trim().is_empty() => json!({"command": c, "args": args, "env": env}),
        (None, Some(u)) => {
            let parsed = url::Url::parse(&u)
                .map_err(|e| ToolError::new(format!("invalid url {u:?}: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(ToolError::new("the url must be http or https"));
            }
            json!({"url": u})
        }
        _ => {
            return Err(ToolError::new(
                "give exactly one of `command` (stdio server) or `url` (HTTP server)",
            ));
        }
    };
    let app = app(ctx)?;
    let mut servers = read(&app.extensions_file)?;
    let replaced = servers.insert(name.clone(), entry).is_some();
    write(&app.extensions_file, servers)?;
    Ok(json!({"installed": name, "replaced": replaced}))
}

/// List configured MCP servers (environment values hidden).
#[tool(deferred, keywords = ["mcp", "server", "plugin", "integration", "installed", "configured", "connected"], read_only)]
fn extension_list(ctx: &ToolContext) -> Result<Vec<Value>, ToolError> {
    let servers = read(&app(ctx)?.extensions_file)?;
    Ok(servers
        .into_iter()
        .map(|(name, entry)| {
            let env_keys: Vec<&str> = entry
                .get("env")
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            json!({
                "name": name,
                "command": entry.get("command"),
                "args": entry.get("args"),
                "env": env_keys,
                "url": entry.get("url"),
            })
        })
        .collect())
}

/// Remove an MCP server from the extensions config.
#[tool(deferred, keywords = ["mcp", "server", "plugin", "uninstall", "delete", "disconnect", "disable"], destructive, idempotent)]
fn extension_remove(
    ctx: &ToolContext,
    /// The server's name.
    name: String,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let mut servers = read(&app.extensions_file)?;
    if servers.remove(&name).is_none() {
        return Err(ToolError::new(format!(
            "no extension is named {name:?}; extension_list shows them"
        )));
    }
    write(&app.extensions_file, servers)?;
    Ok(json!({"removed": name}))
}
