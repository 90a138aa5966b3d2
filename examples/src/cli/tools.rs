//! What the assistant's registry is built from: the linked catalog, tools
//! of MCP `tools/list` manifests, WebAssembly modules and imported MCP
//! servers.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::mcp::{McpClient, McpClientOptions, load_servers_file};
use optimclaw::{DynamicTool, LazyConfig, Registry};

/// The tools of MCP `tools/list` JSON files.
pub fn manifest_tools(paths: &[PathBuf]) -> Result<Vec<DynamicTool>, String> {
    let mut tools = Vec::new();
    for path in paths {
        tools.extend(load_manifest(path, &ManifestOptions::default()).map_err(|e| e.to_string())?);
    }
    Ok(tools)
}

/// The WebAssembly tools of `dir`, sandboxed but for what `--wasm-grant-*`
/// grants; bad files are reported on stderr and skipped.
#[cfg(feature = "wasm")]
pub fn wasm_tools(
    dir: &std::path::Path,
    grant_env: &[String],
    grant_dirs: &[PathBuf],
) -> Result<Vec<DynamicTool>, String> {
    use optimclaw::wasm::{WasmGrants, WasmLimits, WasmRuntime};
    let grants = WasmGrants {
        env: grant_env.to_vec(),
        dirs: grant_dirs.to_vec(),
    };
    let runtime = WasmRuntime::new(WasmLimits::default(), grants)?;
    let load = runtime.load_dir(dir);
    for error in &load.errors {
        let hint = if error.message.contains("not granted") {
            "; grant it with --wasm-grant-env NAME or --wasm-grant-dir DIR"
        } else {
            ""
        };
        eprintln!("warning: WASM tool skipped: {error}{hint}");
    }
    Ok(load.tools)
}

#[cfg(not(feature = "wasm"))]
pub fn wasm_tools(
    dir: &std::path::Path,
    _grant_env: &[String],
    _grant_dirs: &[PathBuf],
) -> Result<Vec<DynamicTool>, String> {
    let manifests = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    if manifests > 0 {
        eprintln!(
            "warning: {manifests} WASM tool manifest(s) in {} ignored: this build has no WebAssembly runtime (build with `--features wasm`)",
            dir.display()
        );
    }
    Ok(Vec::new())
}

/// Connects to every server of an `mcpServers` file. A server that fails
/// to start is reported and left out.
pub async fn mcp_clients(path: &std::path::Path) -> Result<Vec<Arc<McpClient>>, String> {
    let file = load_servers_file(path)?;
    let mut clients = Vec::new();
    for (name, config) in file.servers {
        match McpClient::connect(&name, config, McpClientOptions::default()).await {
            Ok(client) => clients.push(client),
            Err(e) => eprintln!("warning: {e}; its tools are not available"),
        }
    }
    Ok(clients)
}

/// The registry: linked tools, manifest tools, then the MCP servers' tools
/// as deferred `server__tool`s. A remote tool whose name is taken is left
/// out: it never shadows a local tool or another server's.
pub fn build_registry(
    lazy: LazyConfig,
    manifest: &[DynamicTool],
    clients: &[Arc<McpClient>],
) -> Result<Registry, String> {
    let mut taken: HashSet<String> = optimclaw::linked_tools()
        .map(|d| d.name.to_owned())
        .collect();
    let mut tools: Vec<DynamicTool> = manifest.to_vec();
    taken.extend(tools.iter().map(|t| t.name().to_owned()));
    for client in clients {
        let (imported, skipped) = client.dynamic_tools();
        for s in skipped {
            eprintln!("warning: MCP server `{}`: skipped {s}", client.name());
        }
        for tool in imported {
            if taken.insert(tool.name().to_owned()) {
                tools.push(tool);
            } else {
                eprintln!(
                    "warning: MCP server `{}`: {} is already taken; skipped",
                    client.name(),
                    tool.name()
                );
            }
        }
    }
    Registry::builder()
        .lazy(lazy)
        .tools(tools)
        .build()
        .map_err(|e| e.to_string())
}
