//! `tool_info`: the core tool through which a model discovers and loads
//! deferred tools. Defined with our own `#[tool(core)]`.

use crate::code::declaration;
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::preload::PreloadOptions;
use crate::query::{ToolQuery, namespace};
use crate::ranking::Ranking;
use crate::registry::Registry;
use crate::scope::ToolScope;
use crate::search::Constraints;
use crate::telemetry;
use crate::tool::TOOL_INFO;
use crate::tool_info_answer::{MatchStrength, SHORTENED, ToolInfoAnswer, ToolInfoEntry};
use optimclaw_macros::tool;

/// Longest query read, in characters: a longer one is cut here (and the
/// answer says it was shortened), never refused. Search itself reads only
/// the [`MAX_QUERY_TERMS`](crate::search::MAX_QUERY_TERMS) most distinctive
/// terms of any query.
pub const MAX_QUERY_CHARS: usize = 1_000_000;
/// Most tools one answer returns.
pub const MAX_RESULTS: usize = 20;

/// Discover and load additional tools on demand. Pass an exact tool name
/// (several names separated by commas load several at once) or keywords
/// describing what you need; returns the matching tools with their full
/// parameter schemas. Loaded tools are called via call_tool when offered.
/// Syntax: `select:a,b` exact names only, `+word` required, `-word`
/// excluded, `ns:name` one namespace.
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
    let k = usize::try_from(max_results).unwrap_or(1);
    let answer = match tokio::runtime::Handle::try_current() {
        // Embedding the query or reranking may block (a model, an HTTP
        // call): off the async threads.
        Ok(handle) if registry.has_vector_search() || registry.reranker().is_some() => {
            let query = query.clone();
            handle
                .spawn_blocking(move || registry.tool_info_scoped(&query, k, &scope))
                .await
                .map_err(|e| ToolError::new(format!("tool_info did not finish: {e}")))??
        }
        _ => registry.tool_info_scoped(&query, k, &scope)?,
    };
    telemetry::tool_info_event(&query, answer.tools.len(), answer.no_match);
    Ok(answer)
}

impl Registry {
    /// Answers a `tool_info` query: exact names (case-insensitive, several
    /// comma-separated) first, otherwise ranked keyword search over the
    /// deferred tools; never an empty answer without nearest names.
    /// `max_results` is clamped to 1..=20.
    ///
    /// In code mode (a registry with `run_code`), entries that would carry
    /// a JSON schema carry a TypeScript [`declaration`](crate::code::declaration)
    /// instead. [`Scoped::tool_info`](crate::Scoped::tool_info) answers
    /// among the tools of a scope.
    pub fn tool_info(&self, query: &str, max_results: usize) -> Result<ToolInfoAnswer, ToolError> {
        self.tool_info_scoped(query, max_results, &ToolScope::all())
    }

    /// [`tool_info`](Self::tool_info) among the tools in `scope`.
    pub(crate) fn tool_info_scoped(
        &self,
        query: &str,
        max_results: usize,
        scope: &ToolScope,
    ) -> Result<ToolInfoAnswer, ToolError> {
        let mut answer = self.tool_info_answer(query, max_results, scope)?;
        if self.in_code_mode(self.lazy_config()) {
            for entry in &mut answer.tools {
                if entry.parameters.take().is_some()
                    && let Some(tool) = self.get(&entry.name)
                {
                    entry.declaration = Some(declaration(tool));
                }
            }
        }
        Ok(answer)
    }

    fn tool_info_answer(
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
        // Cut at a character boundary; what is cut is said in the answer.
        let cut = query.char_indices().nth(MAX_QUERY_CHARS).map(|(i, _)| i);
        let query = cut.map_or(query, |i| &query[..i]);
        let k = max_results.clamp(1, MAX_RESULTS);
        let parsed = ToolQuery::parse(query);
        if let Some(names) = &parsed.select {
            return Ok(self.exact_names(names, k, scope));
        }
        // Comma-separated names: exact names when any of them is one.
        let parts: Vec<String> = query
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        if parts.iter().any(|p| {
            self.get_ignore_case(p)
                .is_some_and(|t| scope.allows(t.name()))
        }) {
            return Ok(self.exact_names(&parts, k, scope));
        }
        let mut answer = self.keyword_search(query, &parsed, k, scope);
        answer.shortened |= cut.is_some();
        if answer.shortened {
            answer.note(SHORTENED);
        }
        Ok(answer)
    }

    /// The tools to attach to a user's message ([`Session::preload`](crate::Session::preload)),
    /// best first, at most `k`: the ranking's first hit when it is strong
    /// and stands out from the next keyword hit by
    /// [`PreloadOptions::stand_out`]; the two best keyword hits when the
    /// first is strong but does not stand out and the second is at least
    /// [`PreloadOptions::close_second`];
    /// otherwise none. The flag says the tools are such a close pair. The
    /// message is searched as text (no query syntax), cut like any query.
    pub(crate) fn preload_candidates(
        &self,
        message: &str,
        options: &PreloadOptions,
        scope: &ToolScope,
    ) -> (Vec<usize>, bool) {
        let k = options.max_tools;
        let cut = message.char_indices().nth(MAX_QUERY_CHARS).map(|(i, _)| i);
        let message = cut.map_or(message, |i| &message[..i]);
        if message.trim().is_empty() || k == 0 {
            return (Vec::new(), false);
        }
        let tools = self.tools();
        let keep = |i: usize| scope.allows(tools[i].name());
        let constraints = Constraints {
            required: &[],
            excluded: &[],
            keep: (!scope.is_all()).then_some(&keep as &dyn Fn(usize) -> bool),
        };
        let ranking = self.rank(message, k.clamp(1, MAX_RESULTS), &constraints);
        if ranking.listed {
            return (Vec::new(), false);
        }
        let Some(first) = ranking.hits.first().filter(|h| h.strong) else {
            return (Vec::new(), false);
        };
        let lexical = self.search_index().search_with(message, 2, &constraints);
        match lexical.hits.first() {
            Some(top) if top.tool == first.tool && top.signals.margin < options.stand_out => {
                // Two close and strong: one of them is most often the one
                // (docs/benchmarks-history.md §8); a close call alone is not attached.
                let pair = k >= 2
                    && lexical
                        .hits
                        .get(1)
                        .is_some_and(|next| next.strength >= options.close_second);
                if pair {
                    (lexical.hits.iter().map(|h| h.tool).collect(), true)
                } else {
                    (Vec::new(), false)
                }
            }
            // It stands out, or vectors or a reranker put it first: they
            // judged it.
            _ => (vec![first.tool], false),
        }
    }

    /// The answer for exact names: each name found (case-insensitive) with
    /// its schema, each one not found with the nearest names. Honours
    /// `max_results` and lists the names left out.
    fn exact_names(&self, names: &[String], k: usize, scope: &ToolScope) -> ToolInfoAnswer {
        let visible = |p: &str| self.get_ignore_case(p).filter(|t| scope.allows(t.name()));
        let mut tools: Vec<ToolInfoEntry> = Vec::new();
        let mut left_out: Vec<&str> = Vec::new();
        for tool in names.iter().filter_map(|n| visible(n)) {
            if tools.iter().any(|t| t.name == tool.name()) || left_out.contains(&tool.name()) {
                continue;
            }
            if tools.len() < k {
                tools.push(ToolInfoEntry::of(tool, MatchStrength::Exact));
            } else {
                left_out.push(tool.name());
            }
        }
        let mut missing: Vec<String> = names
            .iter()
            .filter(|n| visible(n).is_none())
            .map(|n| {
                let near = self.nearest_names_scoped(n, 3, scope);
                if near.is_empty() {
                    format!("no tool is named \"{}\"", shorten(n))
                } else {
                    format!(
                        "no tool is named \"{}\" (nearest: {})",
                        shorten(n),
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
        let mut answer =
            ToolInfoAnswer::new(tools, (!missing.is_empty()).then(|| missing.join("; ")));
        answer.no_match = answer.tools.is_empty();
        answer
    }

    /// The answer for keywords (and filters): the best hits, the strong
    /// ones first with schemas; or, when no hit is strong, a plain "no
    /// match" with what did not match and what is near.
    fn keyword_search(
        &self,
        query: &str,
        parsed: &ToolQuery,
        k: usize,
        scope: &ToolScope,
    ) -> ToolInfoAnswer {
        let tools = self.tools();
        let keep = |i: usize| {
            let name = tools[i].name();
            scope.allows(name) && parsed.in_namespaces(name)
        };
        let narrowed = !scope.is_all() || !parsed.namespaces.is_empty();
        let constraints = Constraints {
            required: &parsed.required,
            excluded: &parsed.excluded,
            keep: narrowed.then_some(&keep as &dyn Fn(usize) -> bool),
        };
        let ranking = self.rank(&parsed.keywords, k, &constraints);
        if ranking.listed {
            // A filter alone: every tool passing it, names in order.
            let entries = ranking
                .hits
                .iter()
                .map(|h| ToolInfoEntry::brief(&tools[h.tool], MatchStrength::Listed))
                .collect();
            return ToolInfoAnswer::new(
                entries,
                Some("listed by the filter, without schemas; ask tool_info for one by name to get its schema".to_owned()),
            );
        }
        if !ranking.hits.first().is_some_and(|h| h.strong) {
            return self.no_match(query, parsed, &ranking, scope);
        }
        let full = self.lazy_config().full_schemas.max(1);
        let entries: Vec<ToolInfoEntry> = ranking
            .hits
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let tool = &tools[h.tool];
                match (h.strong, i < full) {
                    (true, true) => ToolInfoEntry::of(tool, MatchStrength::Strong),
                    (true, false) => ToolInfoEntry::brief(tool, MatchStrength::Strong),
                    (false, _) => ToolInfoEntry::brief(tool, MatchStrength::Weak),
                }
            })
            .collect();
        let brief = entries.iter().filter(|e| e.parameters.is_none()).count();
        let mut notes: Vec<String> = Vec::new();
        if brief > 0 {
            notes.push(format!(
                "{brief} listed without their schemas; ask tool_info for one by name to get its schema"
            ));
        }
        notes.extend(semantic_note(&ranking));
        let mut answer =
            ToolInfoAnswer::new(entries, (!notes.is_empty()).then(|| notes.join("; ")));
        answer.unmatched_words = ranking.unmatched;
        answer.shortened = ranking.shortened;
        answer
    }

    /// "No tool matches": the words nothing has, a few weak hits without
    /// schemas, the nearest names and namespaces.
    fn no_match(
        &self,
        query: &str,
        parsed: &ToolQuery,
        ranking: &Ranking,
        scope: &ToolScope,
    ) -> ToolInfoAnswer {
        let tools = self.tools();
        // Every candidate asked for (`max_results`), briefly: a wrong "no
        // match" still leaves the right tool one call by name away.
        let weak: Vec<ToolInfoEntry> = ranking
            .hits
            .iter()
            .map(|h| ToolInfoEntry::brief(&tools[h.tool], MatchStrength::Weak))
            .collect();
        let near: Vec<&str> = if weak.is_empty() {
            self.nearest_deferred(&parsed.keywords, 3, scope)
        } else {
            Vec::new()
        };
        let namespaces = self.nearest_namespaces(parsed, &weak, scope);
        let mut parts = vec![format!("no tool matches \"{}\" well", shorten(query))];
        if !ranking.unmatched.is_empty() {
            parts.push(format!(
                "no tool mentions: {}",
                ranking.unmatched.join(", ")
            ));
        }
        if !weak.is_empty() {
            parts.push("the weak matches are listed without schemas".to_owned());
        }
        if !near.is_empty() {
            parts.push(format!("nearest names: {}", near.join(", ")));
        }
        if !namespaces.is_empty() {
            parts.push(format!("namespaces: {}", namespaces.join(", ")));
        }
        parts.extend(semantic_note(ranking));
        let message = format!(
            "{}. If none of these fits, use the tools you have or answer without a tool; other keywords or an exact name may still find one.",
            parts.join("; ")
        );
        let mut answer = ToolInfoAnswer::new(weak, Some(message));
        answer.no_match = true;
        answer.unmatched_words = ranking.unmatched.clone();
        answer.namespaces = namespaces;
        answer.shortened = ranking.shortened;
        answer
    }

    /// Up to three namespaces for a "no match": those of the weak hits, then
    /// those whose name is nearest to a query word.
    fn nearest_namespaces(
        &self,
        parsed: &ToolQuery,
        weak: &[ToolInfoEntry],
        scope: &ToolScope,
    ) -> Vec<String> {
        let mut all: Vec<&str> = self
            .tools()
            .iter()
            .filter(|t| !t.is_core() && scope.allows(t.name()))
            .filter_map(|t| namespace(t.name()))
            .collect();
        all.sort_unstable();
        all.dedup();
        if all.is_empty() {
            return Vec::new();
        }
        let mut chosen: Vec<String> = Vec::new();
        for ns in weak.iter().filter_map(|e| namespace(&e.name)) {
            if !chosen.iter().any(|c| c == ns) {
                chosen.push(ns.to_owned());
            }
        }
        let words: Vec<String> = parsed
            .keywords
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let closeness = |ns: &str| {
            let ns = ns.to_lowercase();
            words
                .iter()
                .map(|w| strsim::jaro_winkler(w, &ns))
                .fold(0.0, f64::max)
        };
        let mut by_closeness: Vec<(f64, &str)> =
            all.iter().map(|ns| (closeness(ns), *ns)).collect();
        by_closeness.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (_, ns) in by_closeness {
            if chosen.len() >= 3 {
                break;
            }
            if !chosen.iter().any(|c| c == ns) {
                chosen.push(ns.to_owned());
            }
        }
        chosen.truncate(3);
        chosen
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

/// Says that vector search or reranking failed for this query.
fn semantic_note(ranking: &Ranking) -> Option<String> {
    let vectors = ranking
        .semantic_error
        .as_ref()
        .map(|e| format!("vector search unavailable ({e}); keyword results only"));
    let rerank = ranking
        .rerank_error
        .as_ref()
        .map(|e| format!("reranking unavailable ({e}); first-stage results only"));
    match (vectors, rerank) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(60).flat_map(char::escape_debug).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s
}
