//! The JSON manifest beside a WebAssembly module: what the tool is, what
//! it asks for (environment, folders), and the limits it may lower.

use serde::Deserialize;
use serde_json::Value;

/// The manifest beside a module (`NAME.json` beside `NAME.wasm`); the
/// [module docs](super) show one. Read by [`WasmRuntime`](super::WasmRuntime);
/// build one in code for [`WasmRuntime::tool`](super::WasmRuntime::tool).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WasmManifest {
    /// Tool name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// Extra search words.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Example user requests the tool answers (searched by `tool_info`).
    #[serde(default)]
    pub asks: Vec<String>,
    /// Example calls (argument objects), checked against `input_schema`
    /// when the module loads.
    #[serde(default)]
    pub examples: Vec<Value>,
    /// JSON schema of the arguments (an object schema).
    #[serde(alias = "inputSchema", alias = "parameters")]
    pub input_schema: Value,
    /// JSON schema of the result.
    #[serde(default, alias = "outputSchema")]
    pub output_schema: Option<Value>,
    /// The module file, relative to the manifest (default: same stem,
    /// `.wasm`, else `.wat`).
    #[serde(default)]
    pub module: Option<String>,
    /// Hex SHA-256 the module file must have.
    #[serde(default)]
    pub sha256: Option<String>,
    /// What the module asks to see.
    #[serde(default)]
    pub permissions: Permissions,
    /// Lower limits for this module.
    #[serde(default)]
    pub limits: ManifestLimits,
}

/// Access a manifest asks for.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// Environment variables.
    #[serde(default)]
    pub env: Vec<String>,
    /// Folders.
    #[serde(default)]
    pub dirs: Vec<DirRequest>,
    /// Network access: never available to WASI preview 1 modules; `true`
    /// fails loading with a message saying so.
    #[serde(default)]
    pub network: bool,
}

/// A folder a manifest asks for.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirRequest {
    /// Host folder, relative to the manifest or absolute.
    pub host: String,
    /// Where the module sees it (default: same as `host`).
    #[serde(default)]
    pub guest: Option<String>,
    /// Writable (default read-only).
    #[serde(default)]
    pub write: bool,
}

/// Limits a manifest sets for itself (each at most the runtime's).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestLimits {
    /// Memory in MiB.
    pub memory_mb: Option<u64>,
    /// Fuel.
    pub fuel: Option<u64>,
    /// Time in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Stdout bytes.
    pub max_output_bytes: Option<usize>,
}
