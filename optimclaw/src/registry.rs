//! The registry: every linked `#[tool]` plus dynamic tools, validated once
//! (names, duplicates, schemas), sorted by name, looked up by name, and
//! called by name with JSON arguments.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tracing::Instrument;

use crate::bridge::unpack_bridge_call;
use crate::call::{self, CallOptions};
use crate::config::LazyConfig;
use crate::context::ToolContext;
use crate::embed::SemanticSearch;
use crate::error::{RegistryError, ToolError};
use crate::rerank::RerankConfig;
use crate::scope::ToolScope;
use crate::search::{Constraints, SearchIndex};
use crate::telemetry;
use crate::tool::{CALL_TOOL, RUN_CODE, Tool, is_framework_tool};

mod builder;

pub use builder::RegistryBuilder;
use builder::StateMap;

struct Inner {
    /// Sorted by name.
    tools: Vec<Tool>,
    index: HashMap<String, usize>,
    lower: HashMap<String, usize>,
    call_timeout: Option<Duration>,
    lazy: LazyConfig,
    search: SearchIndex,
    state: StateMap,
    strong_match: f32,
    semantic: Option<SemanticSearch>,
    rerank: Option<RerankConfig>,
    /// `call_tool`, sent in bridge prompts; not in `tools`.
    bridge: Tool,
}

/// Every tool of a program, validated, with schemas materialised once.
/// Cloning is cheap (a shared pointer).
///
/// ```
/// use optimclaw::{Registry, tool};
///
/// /// Add two numbers.
/// #[tool]
/// fn add(
///     /// The first.
///     a: f64,
///     /// The second.
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
///
/// let registry = Registry::from_linked().expect("tools are valid");
/// assert!(registry.get("add").is_some() && registry.get("tool_info").is_some());
/// ```
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

impl Registry {
    /// Whether `lazy` puts this registry's prompts and answers in code
    /// mode: asked for, and the registry holds `run_code` (it was built
    /// with code mode).
    pub fn in_code_mode(&self, lazy: &LazyConfig) -> bool {
        lazy.code_mode && self.get(RUN_CODE).is_some()
    }

    /// The lazy-loading setting of this registry (sessions start from it).
    pub fn lazy_config(&self) -> &LazyConfig {
        &self.inner.lazy
    }

    /// Vector search, when the registry was built with an embedder.
    pub(crate) fn semantic(&self) -> Option<&SemanticSearch> {
        self.inner.semantic.as_ref()
    }

    /// Whether `tool_info` fuses vector search with keyword search
    /// ([`RegistryBuilder::embedder`]).
    pub fn has_vector_search(&self) -> bool {
        self.inner.semantic.is_some()
    }

    /// The second search stage, when the registry has one
    /// ([`RegistryBuilder::reranker`]).
    pub fn reranker(&self) -> Option<&RerankConfig> {
        self.inner.rerank.as_ref()
    }

    /// Ranked search over the deferred tools, best first: keywords, fused
    /// with vectors when the registry has an embedder.
    pub fn search(&self, query: &str, k: usize) -> Vec<&Tool> {
        self.search_scoped(query, k, &ToolScope::all())
    }

    /// [`search`](Self::search) among the tools in `scope`: tools outside
    /// it are never returned (nor ranked).
    pub(crate) fn search_scoped(&self, query: &str, k: usize, scope: &ToolScope) -> Vec<&Tool> {
        let keep = |i: usize| scope.allows(self.inner.tools[i].name());
        let constraints = Constraints {
            keep: (!scope.is_all()).then_some(&keep as &dyn Fn(usize) -> bool),
            ..Constraints::default()
        };
        self.rank(query, k, &constraints)
            .hits
            .into_iter()
            .map(|hit| &self.inner.tools[hit.tool])
            .collect()
    }

    /// The bridge tool `call_tool` of [`LoadStrategy::Bridge`]: in bridge
    /// prompts, never in [`tools`](Self::tools).
    ///
    /// [`LoadStrategy::Bridge`]: crate::config::LoadStrategy::Bridge
    pub fn bridge_tool(&self) -> &Tool {
        &self.inner.bridge
    }

    /// The keyword strength from which `tool_info` calls a match strong
    /// ([`RegistryBuilder::strong_match`]).
    pub fn strong_match(&self) -> f32 {
        self.inner.strong_match
    }

    /// The search index (for scores and benchmarks).
    pub fn search_index(&self) -> &SearchIndex {
        &self.inner.search
    }

    /// The registry of every linked `#[tool]`.
    ///
    /// Fails when none of the program's own tools is linked (only the
    /// framework's `tool_info`): tools defined in a library crate are
    /// linked only when the binary names that crate, so a forgotten
    /// `use my_tools as _;` would otherwise lose them silently. The error
    /// says so. [`Registry::builder`] builds a registry without that check
    /// (for one made of dynamic tools only).
    pub fn from_linked() -> Result<Self, RegistryError> {
        let registry = Self::builder().build()?;
        let own = |t: &Tool| !is_framework_tool(t.name()) && t.name() != RUN_CODE;
        if !registry.tools().iter().any(own) {
            return Err(RegistryError::new(vec![
                "no #[tool] of this program is linked: Registry::from_linked found only the framework's own tools. Tools in a library crate are linked only when the binary names that crate: add `use your_tools_crate as _;` to the binary (the crate's name, with `-` as `_`), or build with Registry::builder() for a registry without linked tools".to_owned(),
            ]));
        }
        Ok(registry)
    }

    /// Every tool, sorted by name.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.inner.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.inner.tools.is_empty()
    }

    /// The tool with exactly this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.inner.index.get(name).map(|&i| &self.inner.tools[i])
    }

    /// The tool with this name, ignoring ASCII case.
    pub fn get_ignore_case(&self, name: &str) -> Option<&Tool> {
        self.get(name).or_else(|| {
            self.inner
                .lower
                .get(&name.to_ascii_lowercase())
                .map(|&i| &self.inner.tools[i])
        })
    }

    /// Up to `n` known names closest to `name` (edit distance and
    /// containment), best first, for "did you mean" answers; when none is
    /// spelled alike, the tools whose words the name's words match strongly
    /// (`md5` finds a hashing tool with the keyword `md5`).
    pub fn nearest_names(&self, name: &str, n: usize) -> Vec<&str> {
        self.nearest_names_scoped(name, n, &ToolScope::all())
    }

    /// [`nearest_names`](Self::nearest_names) among the tools in `scope`.
    pub(crate) fn nearest_names_scoped(
        &self,
        name: &str,
        n: usize,
        scope: &ToolScope,
    ) -> Vec<&str> {
        let alike = self.spelled_alike(name, n, scope);
        if alike.is_empty() {
            // Nothing spelled alike: the tools the name's words match.
            return self.names_for_words(name, n, scope);
        }
        alike
    }

    /// Up to `n` names in `scope` spelled like `name` (edit distance and
    /// containment), best first.
    pub(crate) fn spelled_alike(&self, name: &str, n: usize, scope: &ToolScope) -> Vec<&str> {
        let query = name.to_ascii_lowercase();
        if query.is_empty() || query.len() > 256 {
            return Vec::new();
        }
        let mut scored: Vec<(f64, &str)> = self
            .inner
            .tools
            .iter()
            .filter(|t| scope.allows(t.name()))
            .filter_map(|t| {
                let lower = t.name().to_ascii_lowercase();
                let mut score = strsim::normalized_damerau_levenshtein(&query, &lower);
                if query.len() >= 3 && (lower.contains(&query) || query.contains(&lower)) {
                    score = score.max(0.75);
                }
                (score >= 0.5).then_some((score, t.name()))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(n).map(|(_, name)| name).collect()
    }

    /// Calls a tool by name with JSON arguments.
    ///
    /// Errors are written for the model: an unknown name lists the nearest
    /// names, invalid arguments give the field path and what was expected,
    /// a panic inside the tool is caught and reported, and the registry
    /// stays usable in every case.
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        self.call_with(name, args, ctx, CallOptions::default())
            .await
    }

    /// [`call_with`](Self::call_with) for callers that can show more
    /// than JSON: the value, and the blocks of content when the tool
    /// returned a [`ToolOutput`](crate::ToolOutput).
    pub async fn call_output(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        options: CallOptions,
    ) -> Result<crate::CallOutput, ToolError> {
        crate::call::capture(ctx, |ctx| async move {
            self.call_with(name, args, &ctx, options).await
        })
        .await
    }

    /// [`call`](Self::call) with options (a time limit).
    pub async fn call_with(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        options: CallOptions,
    ) -> Result<Value, ToolError> {
        if name == CALL_TOOL {
            let (inner, args) = unpack_bridge_call(args)?;
            return Box::pin(self.call_with(&inner, args, ctx, options)).await;
        }
        let span = telemetry::tool_span(name, ctx.call_id());
        telemetry::record_arguments(&span, &args, ctx.output_filter());
        let result = match self.get(name) {
            None => Err(ToolError::unknown_tool(name, &self.nearest_names(name, 3))),
            Some(tool) => {
                let ctx = ctx.clone().with_dispatcher(self.inner.clone());
                let options = CallOptions {
                    timeout: options.timeout.or(self.inner.call_timeout),
                    ..options
                };
                call::run(tool, args, ctx, options)
                    .instrument(span.clone())
                    .await
            }
        };
        telemetry::record_outcome(&span, &result, ctx.output_filter());
        result
    }
}

/// The state of type `T` of the registry that dispatched the call in
/// `ctx` (what a `&T` parameter of a tool gets).
pub(crate) fn dispatched_state<T: Send + Sync + 'static>(ctx: &ToolContext) -> Option<&T> {
    let inner = ctx.dispatcher()?.downcast_ref::<Inner>()?;
    inner
        .state
        .get(&std::any::TypeId::of::<T>())?
        .downcast_ref::<T>()
}

impl ToolContext {
    /// The registry that dispatched the current call, if any.
    pub fn registry(&self) -> Option<Registry> {
        let inner = self.dispatcher()?.clone().downcast::<Inner>().ok()?;
        Some(Registry { inner })
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}
