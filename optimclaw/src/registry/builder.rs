//! Building a [`Registry`]: linked and dynamic tools gathered, validated
//! (names, duplicates, schemas, declared state) and indexed once.

use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap as HashMap;
use serde_json::Value;

use super::{Inner, Registry};
use crate::bridge::bridge_tool;
use crate::config::LazyConfig;
use crate::descriptor::{ToolDescriptor, linked_tools};
use crate::embed::{Embedder, SemanticConfig, SemanticSearch};
use crate::error::RegistryError;
use crate::rerank::RerankConfig;
use crate::search::{SearchIndex, Weights};
use crate::tool::{CALL_TOOL, DynamicTool, RUN_CODE, Tool, is_framework_tool, is_valid_tool_name};

/// Builds a [`Registry`]: start from [`Registry::builder`] when the
/// program adds tools at run time (MCP imports, manifests, WASM), changes
/// lazy loading or search, or wants only some of its linked tools; otherwise
/// [`Registry::from_linked`] is enough.
///
/// ```
/// use std::time::Duration;
/// use optimclaw::{DynamicTool, LazyConfig, Registry, ToolContext};
/// use serde_json::{Value, json};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let echo = DynamicTool::new("echo", "Repeats its text.", json!({
///     "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
///     .handler(|_ctx, args: Value| async move { Ok(args["text"].clone()) });
/// let registry = Registry::builder()
///     .lazy(LazyConfig::lazy())
///     .call_timeout(Duration::from_secs(30))
///     .tool(echo)
///     .build()?;
/// let out = registry.call("echo", json!({"text": "hi"}), &ToolContext::new()).await?;
/// assert_eq!(out, "hi");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct RegistryBuilder {
    linked: bool,
    descriptors: Vec<&'static ToolDescriptor>,
    dynamic: Vec<DynamicTool>,
    call_timeout: Option<Duration>,
    lazy: Option<LazyConfig>,
    weights: Weights,
    strong_match: f32,
    semantic: Option<SemanticConfig>,
    rerank: Option<RerankConfig>,
    state: StateMap,
}

/// Shared state by type.
pub(super) type StateMap = HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

impl RegistryBuilder {
    /// Sets lazy loading explicitly. Without it, `build` reads
    /// `OPTIMCLAW_LAZY_TOOLS` (environment, then `~/.optimclaw/.env`).
    #[must_use]
    pub fn lazy(mut self, lazy: LazyConfig) -> Self {
        self.lazy = Some(lazy);
        self
    }

    /// Sets the keyword strength ([`Hit::strength`](crate::search::Hit::strength),
    /// 0 to 1) from which `tool_info` calls a match strong, and below which
    /// its best hit means "no tool matches" (default 0.12, chosen on eight
    /// dev catalogs of different shapes so that at most 5 % of the requests
    /// that have a tool are called "no match" on each;
    /// docs/benchmarks-history.md §2c). Raise it for fewer false matches,
    /// lower it for fewer false "no match"; measure with `bash bench/catalogs.sh`.
    #[must_use]
    pub fn strong_match(mut self, strength: f32) -> Self {
        self.strong_match = strength;
        self
    }

    /// Adds shared state: the value every tool taking a `&T` parameter of
    /// this type gets (one per type; a second replaces the first). Give
    /// mutable state interior mutability (a `Mutex`, an atomic, a pool).
    /// A registry whose tools need a type it was not given does not build,
    /// and its error names the tool, the parameter and the type.
    ///
    /// ```rust,standalone_crate
    /// use std::sync::Mutex;
    /// use optimclaw::{Registry, ToolContext, tool};
    /// use serde_json::json;
    ///
    /// /// The notes.
    /// #[derive(Default)]
    /// struct Notes(Mutex<Vec<String>>);
    ///
    /// /// Add a note.
    /// #[tool]
    /// fn note_add(
    ///     notes: &Notes,
    ///     /// The note.
    ///     text: String,
    /// ) -> usize {
    ///     let mut list = notes.0.lock().unwrap();
    ///     list.push(text);
    ///     list.len()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let err = Registry::builder().build().unwrap_err();
    /// let text = err.to_string();
    /// assert!(text.contains("tool `note_add`") && text.contains("needs a"), "{text}");
    /// let registry = Registry::builder().state(Notes::default()).build().unwrap();
    /// let n = registry
    ///     .call("note_add", json!({"text": "milk"}), &ToolContext::new())
    ///     .await
    ///     .unwrap();
    /// assert_eq!(n, 1);
    /// # }
    /// ```
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state
            .insert(std::any::TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Sets the field weights of `tool_info` search.
    #[must_use]
    pub fn search_weights(mut self, weights: Weights) -> Self {
        self.weights = weights;
        self
    }

    /// Adds vector search to `tool_info` with `embedder` (fused with
    /// keyword search; vectors cached in [`EmbeddingCache::default_dir`]).
    /// The deferred tools are embedded when the registry is built; a
    /// failure then fails the build. Off by default.
    ///
    /// [`EmbeddingCache::default_dir`]: crate::embed::EmbeddingCache::default_dir
    #[must_use]
    pub fn embedder(self, embedder: Arc<dyn Embedder>) -> Self {
        self.semantic(SemanticConfig::new(embedder))
    }

    /// Adds vector search with every setting given
    /// ([`embedder`](Self::embedder) with the defaults).
    #[must_use]
    pub fn semantic(mut self, config: SemanticConfig) -> Self {
        self.semantic = Some(config);
        self
    }

    /// Adds a second stage to `tool_info` and [`Registry::search`]: the
    /// reranker reorders the best candidates and may judge that none fits
    /// (see [`rerank`](crate::rerank)). Off by default.
    #[must_use]
    pub fn reranker(mut self, config: RerankConfig) -> Self {
        self.rerank = Some(config);
        self
    }

    /// Leaves out the tools linked with `#[tool]`; add some back with
    /// [`descriptor`](Self::descriptor).
    #[must_use]
    pub fn without_linked(mut self) -> Self {
        self.linked = false;
        self
    }

    /// Adds one linked tool (for registries built `without_linked`).
    #[must_use]
    pub fn descriptor(mut self, descriptor: &'static ToolDescriptor) -> Self {
        self.descriptors.push(descriptor);
        self
    }

    /// Adds a dynamic tool.
    #[must_use]
    pub fn tool(mut self, tool: DynamicTool) -> Self {
        self.dynamic.push(tool);
        self
    }

    /// Adds dynamic tools.
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = DynamicTool>) -> Self {
        self.dynamic.extend(tools);
        self
    }

    /// A time limit for every call that sets none itself.
    #[must_use]
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// Validates every tool and builds the registry. Fails with every
    /// problem found: invalid names, duplicates (with both origins),
    /// argument schemas that are not object schemas.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut problems = Vec::new();
        let lazy = match self.lazy {
            Some(lazy) => lazy,
            None => LazyConfig::from_env().unwrap_or_else(|e| {
                problems.push(e.to_string());
                LazyConfig::default()
            }),
        };
        let mut descriptors = self.descriptors;
        if self.linked {
            descriptors.extend(linked_tools());
        } else if lazy.code_mode {
            // Code mode's own tool comes with code mode.
            descriptors.extend(linked_tools().filter(|d| is_code_mode_tool(d)));
        }
        if !lazy.code_mode {
            descriptors.retain(|d| !is_code_mode_tool(d));
        } else if !descriptors.iter().any(|d| is_code_mode_tool(d)) {
            problems.push(
                "code mode (LazyConfig::code_mode) needs the `run_code` tool of the optimclaw-code crate, which this binary does not link: add optimclaw-code to [dependencies] and name it once, e.g. `use optimclaw_code as _;`, or leave code mode off".to_owned(),
            );
        }
        // The same descriptor added twice is one tool, not a duplicate.
        descriptors.sort_by_key(|d| std::ptr::from_ref(*d) as usize);
        descriptors.dedup_by_key(|d| std::ptr::from_ref(*d) as usize);
        // Shared state: every `&T` a linked tool takes must be here.
        for descriptor in &descriptors {
            for need in descriptor.state {
                if !self.state.contains_key(&(need.type_id)()) {
                    problems.push(format!(
                        "tool `{}` ({}) needs a `{}` for its parameter `{}`: give the registry one with Registry::builder().state(value)",
                        descriptor.name,
                        descriptor.location,
                        (need.type_name)(),
                        need.param
                    ));
                }
            }
        }
        let mut tools: Vec<Tool> = descriptors.into_iter().map(Tool::from_descriptor).collect();
        tools.extend(self.dynamic.into_iter().map(Tool::from_dynamic));
        for tool in &tools {
            if !is_valid_tool_name(tool.name()) {
                problems.push(format!(
                    "invalid tool name {:?} ({}): names must match ^[a-zA-Z0-9_-]{{1,64}}$",
                    tool.name().chars().take(80).collect::<String>(),
                    tool.origin()
                ));
            }
            if tool.name() == CALL_TOOL {
                problems.push(format!(
                    "tool `{CALL_TOOL}` ({}): the name is reserved for the bridge of the bridge load strategy; rename the tool",
                    tool.origin()
                ));
            }
            if let Err(problem) = tool.check_examples() {
                problems.push(problem);
            }
            if tool.input_schema().get("type").and_then(Value::as_str) != Some("object") {
                problems.push(format!(
                    "tool `{}` ({}): its input schema must have \"type\": \"object\" (providers accept only object schemas for arguments)",
                    tool.name(), tool.origin()
                ));
            }
        }
        // Deterministic order: by name, so prompts are stable across builds.
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        for pair in tools.windows(2) {
            if pair[0].name() == pair[1].name() {
                problems.push(format!(
                    "duplicate tool name `{}`: defined at {} and at {}",
                    pair[0].name(),
                    pair[0].origin(),
                    pair[1].origin()
                ));
            }
        }
        if !problems.is_empty() {
            return Err(RegistryError::new(problems));
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        let lower = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_ascii_lowercase(), i))
            .collect();
        let deferred = || {
            tools
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.is_core() && !is_framework_tool(t.name()))
        };
        let search = SearchIndex::build(deferred(), self.weights);
        let semantic = match self.semantic {
            Some(config) => {
                Some(SemanticSearch::build(config, deferred()).map_err(RegistryError::embedding)?)
            }
            None => None,
        };
        Ok(Registry {
            inner: Arc::new(Inner {
                tools,
                index,
                lower,
                call_timeout: self.call_timeout,
                lazy,
                search,
                state: self.state,
                strong_match: self.strong_match,
                semantic,
                rerank: self.rerank,
                bridge: Tool::from_dynamic(bridge_tool()),
            }),
        })
    }
}

/// Whether `d` is `run_code`, the tool of code mode (defined in the
/// optimclaw-code crate): in a registry only when code mode is on.
fn is_code_mode_tool(d: &ToolDescriptor) -> bool {
    d.name == RUN_CODE && d.location.module_path.starts_with("optimclaw_code::")
}

impl Registry {
    /// A builder that starts with every linked `#[tool]`.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder {
            linked: true,
            descriptors: Vec::new(),
            dynamic: Vec::new(),
            call_timeout: None,
            lazy: None,
            weights: Weights::default(),
            strong_match: crate::search::STRONG_MATCH,
            state: StateMap::default(),
            semantic: None,
            rerank: None,
        }
    }
}
