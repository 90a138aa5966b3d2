//! WebAssembly modules as tools: sandboxed, deferred, found by `tool_info`.
//!
//! # The module contract
//!
//! A tool is a WASI preview 1 *command* module (`_start`, as any language's
//! `wasm32-wasip1` target builds it), plus a JSON manifest beside it:
//!
//! - the module reads its JSON arguments (one object) on **stdin**, writes
//!   its JSON result on **stdout**, and exits with status 0; a non-zero exit
//!   is a tool error whose message is what it wrote on **stderr**;
//! - `NAME.json` describes `NAME.wasm` (or `NAME.wat`, WebAssembly text):
//!
//! ```json
//! {
//!   "name": "word_stats",
//!   "description": "Count words and lines of a text.",
//!   "keywords": ["count", "words"],
//!   "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
//!   "output_schema": {"type": "object"},
//!   "permissions": {"env": ["LANG"], "dirs": [{"host": "data", "guest": "/data", "write": false}]},
//!   "limits": {"memory_mb": 32, "fuel": 100000000, "timeout_ms": 2000, "max_output_bytes": 65536},
//!   "sha256": "…"
//! }
//! ```
//!
//! Only `name`, `description` and `input_schema` are required (`inputSchema`
//! and `parameters` are accepted too). `module` names another file.
//!
//! # The sandbox
//!
//! A module sees nothing by default: no files, no environment, no network
//! (WASI preview 1 cannot open sockets at all), no arguments beyond its
//! name. A manifest may ask for environment variables and folders; it gets
//! them only when [`WasmGrants`] grants them, else loading the tool fails
//! with an error naming the request. Each call runs in a fresh instance
//! with a memory limit, a fuel limit (instructions, deterministic) and a
//! wall-clock limit, and its stdout is capped; a manifest may lower these
//! limits, never raise them. A trap, a loop, a memory blow-up or output
//! that is not JSON is an error for that call and nothing else.
//!
//! Modules are compiled once, when loaded; calls instantiate the compiled
//! module.
//!
//! Files: the runtime and its limits here, the manifest format in
//! `manifest.rs`, and one call in its sandbox in `run.rs`.

#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod limits;
mod manifest;
mod run;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use wasmtime::{Config, Engine, ExternType, Linker, Module};
use wasmtime_wasi::p1::{self};

use optimclaw::ToolError;
use optimclaw::{DynamicTool, is_valid_tool_name};

/// The import module every allowed import comes from.
const WASI_MODULE: &str = "wasi_snapshot_preview1";
/// How often the wall-clock deadline is checked.
const TICK: Duration = Duration::from_millis(10);

pub use limits::{WasmGrants, WasmLimits};
pub use manifest::{DirRequest, ManifestLimits, Permissions, WasmManifest};
use run::{Runner, Sandbox, State, root_cause};

/// Why a module could not become a tool (naming the file, when there is
/// one), or why the engine could not start. Report it and go on: the other
/// modules of a folder still load.
///
/// Its text is complete on its own; [`source`](std::error::Error::source)
/// gives the I/O error behind it, when there is one.
#[derive(Debug, thiserror::Error)]
#[error("{}{message}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
#[non_exhaustive]
pub struct WasmError {
    /// The file concerned, when there is one.
    pub path: Option<PathBuf>,
    /// What is wrong.
    pub message: String,
    /// The cause.
    #[source]
    source: Option<std::io::Error>,
}

impl WasmError {
    fn new(message: String) -> Self {
        WasmError {
            path: None,
            message,
            source: None,
        }
    }

    fn at(path: &Path, message: String) -> Self {
        WasmError {
            path: Some(path.to_owned()),
            message,
            source: None,
        }
    }

    fn read(path: &Path, message: String, source: std::io::Error) -> Self {
        WasmError {
            path: Some(path.to_owned()),
            message,
            source: Some(source),
        }
    }
}

/// Tools loaded from a folder, and the files that failed.
#[derive(Debug, Default)]
pub struct WasmLoad {
    /// One deferred tool per good module.
    pub tools: Vec<DynamicTool>,
    /// One error per bad manifest or module (the others still load).
    pub errors: Vec<WasmError>,
}

/// Compiles and runs WebAssembly tools. Cloning shares the engine. Use it
/// to let users add tools written in any language that compiles to WASI,
/// without trusting them with the host.
///
/// ```no_run
/// use std::path::Path;
/// use optimclaw_wasm::WasmRuntime;
/// use optimclaw::Registry;
///
/// let runtime = WasmRuntime::sandboxed()?;
/// let loaded = runtime.load_dir(Path::new("tools"));
/// for error in &loaded.errors {
///     eprintln!("{error}");
/// }
/// let registry = Registry::builder().tools(loaded.tools).build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct WasmRuntime {
    engine: Engine,
    /// WASI preview 1 linked once; every module is instantiated through it.
    linker: Arc<Linker<State>>,
    limits: WasmLimits,
    grants: WasmGrants,
    compilations: Arc<AtomicUsize>,
}

impl fmt::Debug for WasmRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WasmRuntime")
            .field("limits", &self.limits)
            .field("grants", &self.grants)
            .finish_non_exhaustive()
    }
}

impl WasmRuntime {
    /// A runtime with these limits and grants.
    pub fn new(limits: WasmLimits, grants: WasmGrants) -> Result<Self, WasmError> {
        let mut config = Config::new();
        config.consume_fuel(true);
        config.epoch_interruption(true);
        let engine = Engine::new(&config)
            .map_err(|e| WasmError::new(format!("the WebAssembly engine cannot start: {e}")))?;
        // The wall-clock deadline counts epochs; one thread ticks them and
        // ends when the engine is gone.
        let weak = engine.weak();
        std::thread::Builder::new()
            .name("optimclaw-wasm-epoch".into())
            .spawn(move || {
                while let Some(engine) = weak.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(TICK);
                }
            })
            .map_err(|e| WasmError {
                path: None,
                message: format!("the WebAssembly timer thread cannot start: {e}"),
                source: Some(e),
            })?;
        let mut linker: Linker<State> = Linker::new(&engine);
        p1::add_to_linker_sync(&mut linker, |s: &mut State| &mut s.wasi)
            .map_err(|e| WasmError::new(format!("WASI cannot be linked: {e}")))?;
        Ok(WasmRuntime {
            engine,
            linker: Arc::new(linker),
            limits,
            grants,
            compilations: Arc::default(),
        })
    }

    /// The default limits and no grants.
    pub fn sandboxed() -> Result<Self, WasmError> {
        Self::new(WasmLimits::default(), WasmGrants::default())
    }

    /// Modules compiled so far (calls never compile).
    pub fn compilations(&self) -> usize {
        self.compilations.load(Ordering::Relaxed)
    }

    /// The runtime's limits.
    pub fn limits(&self) -> WasmLimits {
        self.limits
    }

    /// Loads every `*.json` manifest in `dir` (not recursive), in name
    /// order. A missing folder loads nothing.
    pub fn load_dir(&self, dir: &Path) -> WasmLoad {
        let mut load = WasmLoad::default();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return load,
            Err(e) => {
                load.errors.push(WasmError::read(
                    dir,
                    format!("cannot read the folder: {e}"),
                    e,
                ));
                return load;
            }
        };
        let mut manifests: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        manifests.sort();
        for path in manifests {
            match self.load_manifest(&path) {
                Ok(tool) => load.tools.push(tool),
                Err(e) => load.errors.push(e),
            }
        }
        load
    }

    /// Loads one tool from its manifest file.
    pub fn load_manifest(&self, path: &Path) -> Result<DynamicTool, WasmError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WasmError::read(path, format!("cannot read: {e}"), e))?;
        let manifest: WasmManifest = serde_json::from_str(&text)
            .map_err(|e| WasmError::at(path, format!("not a valid tool manifest: {e}")))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let module_path = match &manifest.module {
            Some(file) => dir.join(file),
            None => {
                let wasm = path.with_extension("wasm");
                if wasm.exists() {
                    wasm
                } else {
                    path.with_extension("wat")
                }
            }
        };
        let bytes = std::fs::read(&module_path).map_err(|e| {
            WasmError::read(
                &module_path,
                format!("the manifest's module cannot be read: {e}"),
                e,
            )
        })?;
        self.tool(manifest, &bytes, dir).map_err(|mut e| {
            e.path = Some(module_path);
            e
        })
    }

    /// Makes a tool of a manifest and module bytes (binary or text);
    /// relative folders in the manifest are resolved against `base`.
    pub fn tool(
        &self,
        manifest: WasmManifest,
        module: &[u8],
        base: &Path,
    ) -> Result<DynamicTool, WasmError> {
        self.make_tool(manifest, module, base)
            .map_err(WasmError::new)
    }

    fn make_tool(
        &self,
        manifest: WasmManifest,
        module: &[u8],
        base: &Path,
    ) -> Result<DynamicTool, String> {
        if !is_valid_tool_name(&manifest.name) {
            return Err(format!(
                "the manifest's name {:?} is not a valid tool name (^[a-zA-Z0-9_-]{{1,64}}$)",
                manifest.name
            ));
        }
        if manifest.description.trim().is_empty() {
            return Err("the manifest's description is empty".into());
        }
        if manifest.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(
                "the manifest's input_schema must be an object schema (\"type\": \"object\")"
                    .into(),
            );
        }
        if let Some(expected) = &manifest.sha256 {
            let actual = sha256_hex(module);
            if !expected.eq_ignore_ascii_case(&actual) {
                return Err(format!(
                    "the module does not match the manifest: sha256 is {actual}, the manifest says {expected}"
                ));
            }
        }
        let sandbox = self.sandbox(&manifest, base)?;
        let compiled = Module::new(&self.engine, module)
            .map_err(|e| format!("not a valid WebAssembly module: {}", root_cause(&e)))?;
        self.compilations.fetch_add(1, Ordering::Relaxed);
        check_interface(&compiled)?;
        let pre = self
            .linker
            .instantiate_pre(&compiled)
            .map_err(|e| format!("the module cannot be linked: {}", root_cause(&e)))?;
        let runner = Arc::new(Runner {
            engine: self.engine.clone(),
            pre,
            name: manifest.name.clone(),
            sandbox,
        });
        for (n, example) in manifest.examples.iter().enumerate() {
            optimclaw::schema::check_instance(example, &manifest.input_schema).map_err(
                |(path, message)| {
                    format!(
                        "example {} is not a valid call at `{path}`: {message}",
                        n + 1
                    )
                },
            )?;
        }
        let mut tool = DynamicTool::new(manifest.name, manifest.description, manifest.input_schema)
            .keywords(manifest.keywords)
            .asks(manifest.asks)
            .examples(manifest.examples)
            .origin(format!("wasm {}", base.display()))
            .handler(move |_ctx, args: Value| {
                let runner = Arc::clone(&runner);
                async move {
                    if !args.is_object() {
                        return Err(ToolError::invalid_arguments(
                            &runner.name,
                            "",
                            "the arguments must be a JSON object",
                        ));
                    }
                    tokio::task::spawn_blocking(move || runner.call(&args))
                        .await
                        .map_err(|e| {
                            ToolError::new(format!("the WebAssembly call was lost: {e}"))
                        })?
                }
            });
        if let Some(schema) = manifest.output_schema {
            tool = tool.output_schema(schema);
        }
        Ok(tool)
    }

    /// The manifest's requests checked against the grants, and its limits.
    fn sandbox(&self, manifest: &WasmManifest, base: &Path) -> Result<Sandbox, String> {
        let asked = &manifest.permissions;
        if asked.network {
            return Err(
                "the manifest asks for network access, which WASI preview 1 modules cannot have"
                    .into(),
            );
        }
        let mut env = Vec::new();
        for name in &asked.env {
            if !self.grants.env.iter().any(|g| g == name) {
                return Err(format!(
                    "the manifest asks for the environment variable {name}, which is not granted (WasmGrants::env)"
                ));
            }
            if let Ok(value) = std::env::var(name) {
                env.push((name.clone(), value));
            }
        }
        let mut dirs = Vec::new();
        for request in &asked.dirs {
            let host = base.join(&request.host);
            let canonical = host
                .canonicalize()
                .map_err(|e| format!("the manifest asks for the folder {}: {e}", host.display()))?;
            let granted = self
                .grants
                .dirs
                .iter()
                .any(|g| g.canonicalize().is_ok_and(|g| canonical.starts_with(g)));
            if !granted {
                return Err(format!(
                    "the manifest asks for the folder {}, which is not granted (WasmGrants::dirs)",
                    canonical.display()
                ));
            }
            let guest = request
                .guest
                .clone()
                .unwrap_or_else(|| request.host.clone());
            dirs.push((canonical, guest, request.write));
        }
        let l = manifest.limits;
        let limits = WasmLimits {
            memory_bytes: l.memory_mb.map_or(self.limits.memory_bytes, |mb| {
                (mb << 20).min(self.limits.memory_bytes)
            }),
            fuel: l.fuel.map_or(self.limits.fuel, |f| f.min(self.limits.fuel)),
            timeout: l.timeout_ms.map_or(self.limits.timeout, |ms| {
                Duration::from_millis(ms).min(self.limits.timeout)
            }),
            max_output_bytes: l
                .max_output_bytes
                .map_or(self.limits.max_output_bytes, |b| {
                    b.min(self.limits.max_output_bytes)
                }),
        };
        Ok(Sandbox { env, dirs, limits })
    }
}

/// Hex SHA-256, for the manifest's `sha256` check.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// `_start` exported with no parameters or results; every import from WASI.
fn check_interface(module: &Module) -> Result<(), String> {
    for import in module.imports() {
        if import.module() != WASI_MODULE {
            return Err(format!(
                "the module imports `{}.{}`; a tool module may import only from `{WASI_MODULE}`",
                import.module(),
                import.name()
            ));
        }
    }
    match module.get_export("_start") {
        Some(ExternType::Func(f)) if f.params().len() == 0 && f.results().len() == 0 => Ok(()),
        Some(_) => Err("the module's `_start` export is not a function without parameters or results".into()),
        None => Err("the module exports no `_start`: a tool module must be a WASI command (read JSON on stdin, write JSON on stdout)".into()),
    }
}
