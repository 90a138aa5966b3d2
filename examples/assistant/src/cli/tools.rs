//! What the assistant's registry is built from: the linked catalog, tools
//! of MCP `tools/list` manifests, WebAssembly modules and imported MCP
//! servers; and how `tool_info` searches it (keywords, or keywords and
//! vectors from an embeddings endpoint).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use optimclaw::embed::{EmbeddingCache, SemanticConfig};
use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::rerank::RerankConfig;
use optimclaw::{DynamicTool, LazyConfig, Registry, RegistryBuilder};
use optimclaw_embed::HttpEmbedder;
use optimclaw_embed::rerank::{ChatReranker, HttpReranker};
use optimclaw_mcp::{McpClient, McpClientOptions, load_servers_file};

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
    use optimclaw_wasm::{WasmGrants, WasmLimits, WasmRuntime};
    let grants = WasmGrants::default()
        .with_env(grant_env.to_vec())
        .with_dirs(grant_dirs.to_vec());
    let runtime = WasmRuntime::new(WasmLimits::default(), grants).map_err(|e| e.to_string())?;
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
    let file = load_servers_file(path).map_err(|e| e.to_string())?;
    let mut clients = Vec::new();
    for (name, config) in file.servers {
        match McpClient::connect(&name, config, McpClientOptions::default()).await {
            Ok(client) => clients.push(client),
            Err(e) => eprintln!("warning: {e}; its tools are not available"),
        }
    }
    Ok(clients)
}

/// The variable holding the key of `--embed-url`'s endpoint, if it needs one.
pub const EMBED_KEY_VAR: &str = "OPTIMCLAW_EMBED_API_KEY";

/// Vector search for `tool_info` from `--embed-url` and `--embed-model`:
/// `None` without a URL (keywords only, the default). Tool vectors are
/// cached in `HOME/embeddings`, so only new or changed tools are embedded
/// at the next start.
pub fn semantic_search(
    url: Option<&str>,
    model: Option<&str>,
    home: &Path,
) -> Result<Option<SemanticConfig>, String> {
    let url = match (url, model) {
        (None, None) => return Ok(None),
        (None, Some(_)) => {
            return Err("--embed-model needs --embed-url (the embeddings endpoint's base URL, e.g. http://127.0.0.1:11434/v1)".into());
        }
        (Some(_), None) => {
            return Err(
                "--embed-url needs --embed-model (the endpoint's model name, e.g. all-minilm)"
                    .into(),
            );
        }
        (Some(url), Some(_)) => url,
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!(
            "--embed-url {url:?} is not an http:// or https:// URL (expected the endpoint's base URL, e.g. http://127.0.0.1:11434/v1)"
        ));
    }
    let mut embedder = HttpEmbedder::new(url, model.unwrap_or_default());
    if let Some(key) = std::env::var(EMBED_KEY_VAR).ok().filter(|k| !k.is_empty()) {
        embedder = embedder.with_api_key(key);
    }
    let mut config = SemanticConfig::new(Arc::new(embedder));
    config.cache = Some(EmbeddingCache::new(home.join("embeddings")));
    Ok(Some(config))
}

/// How `tool_info` searches beyond keywords: vectors, a reranker.
#[derive(Clone, Debug, Default)]
pub struct SearchStages {
    /// Vector search (`--embed-url`).
    pub semantic: Option<SemanticConfig>,
    /// A second stage (`--rerank-url` or `--rerank-chat-url`).
    pub rerank: Option<RerankConfig>,
}

impl SearchStages {
    /// `builder` with these stages.
    pub fn apply(&self, mut builder: RegistryBuilder) -> RegistryBuilder {
        if let Some(config) = &self.semantic {
            builder = builder.semantic(config.clone());
        }
        if let Some(config) = &self.rerank {
            builder = builder.reranker(config.clone());
        }
        builder
    }
}

/// The environment variable holding the reranking endpoint's key.
pub const RERANK_KEY_VAR: &str = "OPTIMCLAW_RERANK_API_KEY";

/// The reranker of `--rerank-url` (a `/rerank` endpoint) or
/// `--rerank-chat-url` (a chat model picking), with `--rerank-model`.
pub fn reranker(
    url: Option<&str>,
    chat_url: Option<&str>,
    model: Option<&str>,
) -> Result<Option<RerankConfig>, String> {
    let (url, chat) = match (url, chat_url) {
        (None, None) => {
            return match model {
                Some(_) => Err("--rerank-model needs --rerank-url (a /rerank endpoint) or --rerank-chat-url (an OpenAI-compatible chat base URL)".into()),
                None => Ok(None),
            };
        }
        (Some(_), Some(_)) => {
            return Err("give --rerank-url or --rerank-chat-url, not both".into());
        }
        (Some(url), None) => (url, false),
        (None, Some(url)) => (url, true),
    };
    let flag = if chat {
        "--rerank-chat-url"
    } else {
        "--rerank-url"
    };
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("{flag} {url:?} is not an http:// or https:// URL"));
    }
    let model =
        model.ok_or_else(|| format!("{flag} needs --rerank-model (the endpoint's model name)"))?;
    let key = std::env::var(RERANK_KEY_VAR).ok().filter(|k| !k.is_empty());
    let reranker: Arc<dyn optimclaw::rerank::Reranker> = if chat {
        let r = ChatReranker::new(url, model);
        Arc::new(match key {
            Some(k) => r.with_api_key(k),
            None => r,
        })
    } else {
        let r = HttpReranker::new(url, model);
        Arc::new(match key {
            Some(k) => r.with_api_key(k),
            None => r,
        })
    };
    Ok(Some(RerankConfig::new(reranker)))
}

/// The registry: linked tools, manifest tools, then the MCP servers' tools
/// as deferred `server__tool`s. A remote tool whose name is taken is left
/// out: it never shadows a local tool or another server's. With `semantic`,
/// `tool_info` also ranks by vectors (the deferred tools are embedded now).
pub fn build_registry(
    lazy: LazyConfig,
    manifest: &[DynamicTool],
    clients: &[Arc<McpClient>],
    semantic: &SearchStages,
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
    let mut builder = Registry::builder().lazy(lazy).tools(tools);
    builder = semantic.apply(builder);
    builder.build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_search_flags_come_together_and_name_what_is_missing() {
        let home = Path::new("/nonexistent");
        assert!(semantic_search(None, None, home).unwrap().is_none());
        let err = semantic_search(Some("http://127.0.0.1:1/v1"), None, home).unwrap_err();
        assert!(err.contains("--embed-model"), "{err}");
        let err = semantic_search(None, Some("m"), home).unwrap_err();
        assert!(err.contains("--embed-url"), "{err}");
        let err = semantic_search(Some("127.0.0.1:1/v1"), Some("m"), home).unwrap_err();
        assert!(err.contains("not an http"), "{err}");
        let config = semantic_search(Some("http://127.0.0.1:1/v1"), Some("m"), home)
            .unwrap()
            .unwrap();
        assert_eq!(config.cache.unwrap().dir(), home.join("embeddings"));
    }
}
