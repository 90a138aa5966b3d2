//! `tool_info`: the core tool through which a model discovers and loads
//! deferred tools. Defined with our own `#[tool(core)]`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::registry::Registry;
use crate::scope::ToolScope;
use crate::telemetry;
use crate::tool::{TOOL_INFO, Tool};
use optimclaw_macros::tool;

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 1024;
/// Most tools one answer returns.
pub const MAX_RESULTS: usize = 20;

/// One tool in a `tool_info` answer.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ToolInfoEntry {
    /// The tool name.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The JSON schema of its arguments; absent for the lower hits of a
    /// keyword search (ask for the tool by name to get it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub parameters: Option<Value>,
    /// Example calls (argument objects), where the tool has them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub examples: Vec<Value>,
}

/// The answer of `tool_info`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ToolInfoAnswer {
    /// Matching tools, best first: exact names and the best keyword hits
    /// with their full schemas, lower keyword hits by name and description.
    pub tools: Vec<ToolInfoEntry>,
    /// Said when nothing (or not everything) matched, with nearest names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ToolInfoEntry {
    fn of(tool: &Tool) -> Self {
        ToolInfoEntry {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters: Some(tool.input_schema().clone()),
            examples: tool.examples().to_vec(),
        }
    }

    /// Name and description only (the first sentence), for the lower hits
    /// of a keyword search: they stay out of the conversation's history
    /// until the model asks for one by name.
    fn brief(tool: &Tool) -> Self {
        let description = tool.description();
        let first = description
            .split_inclusive(". ")
            .next()
            .unwrap_or(description)
            .trim_end();
        ToolInfoEntry {
            name: tool.name().to_owned(),
            description: first.to_owned(),
            parameters: None,
            examples: Vec::new(),
        }
    }
}

/// Discover and load additional tools on demand. Pass an exact tool name
/// (several names separated by commas load several at once) or keywords
/// describing what you need; returns the matching tools with their full
/// parameter schemas. Loaded tools can then be called like any other.
#[tool(core, keywords = ["discover", "load", "find", "search", "tools", "schema"])]
async fn tool_info(
    ctx: &ToolContext,
    /// Exact tool name, several names separated by commas, or keywords
    /// describing the task.
    query: String,
    /// Maximum tools to return (default 5, at most 20).
    #[arg(default = 5)]
    max_results: i64,
) -> Result<ToolInfoAnswer, ToolError> {
    let registry = ctx.registry().ok_or_else(|| {
        ToolError::new("tool_info needs the registry; call it through a Registry or Session")
    })?;
    // A scoped session puts its scope in the context (`Session::scoped`).
    let scope = ctx.get::<ToolScope>().cloned().unwrap_or_default();
    let answer =
        registry.tool_info_in(&query, usize::try_from(max_results).unwrap_or(1), &scope)?;
    telemetry::tool_info_event(&query, answer.tools.len());
    Ok(answer)
}

impl Registry {
    /// Answers a `tool_info` query: exact names (case-insensitive, several
    /// comma-separated) first, otherwise ranked keyword search over the
    /// deferred tools; never an empty answer without nearest names.
    /// `max_results` is clamped to 1..=20.
    pub fn tool_info(&self, query: &str, max_results: usize) -> Result<ToolInfoAnswer, ToolError> {
        self.tool_info_in(query, max_results, &ToolScope::all())
    }

    /// [`tool_info`](Self::tool_info) among the tools in `scope`: a tool
    /// outside it is answered as if it did not exist (never named, never
    /// suggested).
    pub fn tool_info_in(
        &self,
        query: &str,
        max_results: usize,
        scope: &ToolScope,
    ) -> Result<ToolInfoAnswer, ToolError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(ToolError::invalid_arguments(
                TOOL_INFO,
                "query",
                "the query is empty; pass a tool name or a few keywords describing the task",
            ));
        }
        let chars = query.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(ToolError::invalid_arguments(
                TOOL_INFO,
                "query",
                format!(
                    "the query has {chars} characters; the limit is {MAX_QUERY_CHARS}: pass a tool name or a few keywords"
                ),
            ));
        }
        let k = max_results.clamp(1, MAX_RESULTS);

        let parts: Vec<&str> = query
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let visible = |p: &str| self.get_ignore_case(p).filter(|t| scope.allows(t.name()));
        let named: Vec<&Tool> = parts.iter().filter_map(|p| visible(p)).collect();
        if !named.is_empty() {
            // Exact names honour `max_results` too; the names left out are
            // listed so the model can ask for them next.
            let mut tools: Vec<ToolInfoEntry> = Vec::new();
            let mut left_out: Vec<&str> = Vec::new();
            for tool in named {
                if tools.iter().any(|t| t.name == tool.name()) || left_out.contains(&tool.name()) {
                    continue;
                }
                if tools.len() < k {
                    tools.push(ToolInfoEntry::of(tool));
                } else {
                    left_out.push(tool.name());
                }
            }
            let mut missing: Vec<String> = parts
                .iter()
                .filter(|p| visible(p).is_none())
                .map(|p| {
                    let near = self.nearest_names_in(p, 3, scope);
                    if near.is_empty() {
                        format!("no tool is named \"{}\"", shorten(p))
                    } else {
                        format!(
                            "no tool is named \"{}\" (nearest: {})",
                            shorten(p),
                            near.join(", ")
                        )
                    }
                })
                .collect();
            if !left_out.is_empty() {
                missing.push(format!(
                    "not returned because max_results is {k}: {}; ask for them in another call",
                    left_out.join(", ")
                ));
            }
            let message = (!missing.is_empty()).then(|| missing.join("; "));
            return Ok(ToolInfoAnswer { tools, message });
        }

        let hits = self.search_in(query, k, scope);
        if hits.is_empty() {
            let near = self.nearest_deferred(query, 3, scope);
            return Ok(ToolInfoAnswer {
                tools: Vec::new(),
                message: Some(format!(
                    "no tool matches \"{}\"; nearest names: {}. Try other keywords or an exact name.",
                    shorten(query),
                    near.join(", ")
                )),
            });
        }
        let full = self.lazy_config().full_schemas.max(1);
        let brief = hits.len().saturating_sub(full);
        Ok(ToolInfoAnswer {
            tools: hits
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    if i < full {
                        ToolInfoEntry::of(t)
                    } else {
                        ToolInfoEntry::brief(t)
                    }
                })
                .collect(),
            message: (brief > 0).then(|| {
                format!(
                    "the last {brief} are listed without their schemas; ask tool_info for one by name to get its schema"
                )
            }),
        })
    }

    /// The deferred tools most similar by name to `text`, always up to `n`
    /// names when any deferred tool exists.
    fn nearest_deferred(&self, text: &str, n: usize, scope: &ToolScope) -> Vec<&str> {
        let lower = text.to_lowercase();
        let mut scored: Vec<(f64, &str)> = self
            .tools()
            .iter()
            .filter(|t| !t.is_core() && scope.allows(t.name()))
            .map(|t| {
                (
                    strsim::jaro_winkler(&lower, &t.name().to_lowercase()),
                    t.name(),
                )
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored.into_iter().take(n).map(|(_, name)| name).collect()
    }
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(60).flat_map(char::escape_debug).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s
}
