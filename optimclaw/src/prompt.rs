//! What goes to the model: the tools to send in full and the system-prompt
//! note that lists the rest by name.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::config::{LazyConfig, LoadStrategy};
use crate::registry::Registry;
use crate::scope::ToolScope;
pub use crate::tool::TOOL_INFO;
use crate::tool::{Tool, is_framework_tool};

/// The note's fixed opening, as in the OptimClaw lazy-tools document.
pub const NOTE_PREFIX: &str = "Additional tools available (use tool_info to load): ";

/// What one request sends: tools with full schemas, and the note (lazy
/// mode only). Build it with [`Registry::prompt`] or
/// [`Session::prompt`](crate::Session::prompt), then
/// [`render`](Self::render) it in the dialect of your endpoint; use its
/// [`specs`](Self::specs) when you write the request format yourself.
#[derive(Clone, Debug)]
pub struct Prompt<'r> {
    /// Tools sent with their schemas, in a deterministic order.
    pub tools: Vec<&'r Tool>,
    /// The system-prompt note listing deferred tools, in lazy mode.
    pub note: Option<String>,
    /// The registry the prompt was made from.
    pub(crate) registry: &'r Registry,
    /// How loaded tools reach requests ([`LoadStrategy::Append`] when eager).
    pub strategy: LoadStrategy,
}

impl Prompt<'_> {
    /// The tools as canonical specs `{name, description, parameters}`.
    pub fn specs(&self) -> Vec<Value> {
        self.tools.iter().map(|t| canonical_spec(t)).collect()
    }

    /// Names of the tools sent in full.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }
}

/// `{name, description, parameters, examples?}`: the shape `tool_info`
/// returns.
pub fn canonical_spec(tool: &Tool) -> Value {
    let mut spec = json!({
        "name": tool.name(),
        "description": tool.description(),
        "parameters": tool.input_schema(),
    });
    if !tool.examples().is_empty() {
        spec["examples"] = Value::Array(tool.examples().to_vec());
    }
    spec
}

impl Registry {
    /// What a request sends under `lazy`, with `loaded` deferred tools (in
    /// load order) added after the core tools.
    ///
    /// Eager: every tool but `tool_info`, sorted by name. Lazy: the core
    /// tools (with `tool_info`) sorted by name, then the loaded tools, and a
    /// note listing every deferred tool. The note does not change as tools
    /// are loaded, so the system prompt stays byte-identical through a
    /// session and provider prompt caches keep hitting.
    pub fn prompt<'r, S: AsRef<str>>(&'r self, lazy: &LazyConfig, loaded: &[S]) -> Prompt<'r> {
        self.prompt_scoped(lazy, loaded, &ToolScope::all())
    }

    /// [`prompt`](Self::prompt) with only the tools in `scope`: tools
    /// outside it are neither sent nor named in the note.
    pub(crate) fn prompt_scoped<'r, S: AsRef<str>>(
        &'r self,
        lazy: &LazyConfig,
        loaded: &[S],
        scope: &ToolScope,
    ) -> Prompt<'r> {
        if !lazy.enabled {
            return Prompt {
                tools: self
                    .tools()
                    .iter()
                    .filter(|t| !is_framework_tool(t.name()) && scope.allows(t.name()))
                    .collect(),
                note: None,
                registry: self,
                strategy: LoadStrategy::Append,
            };
        }
        let mut tools: Vec<&Tool> = self
            .tools()
            .iter()
            .filter(|t| t.is_core() && scope.allows(t.name()))
            .collect();
        // Code mode: the array is core tools, `tool_info` and `run_code`,
        // whatever the strategy; programs reach every other tool.
        let code_mode = self.in_code_mode(lazy);
        let strategy = if code_mode {
            LoadStrategy::Bridge
        } else {
            lazy.strategy
        };
        match strategy {
            _ if code_mode => {}
            LoadStrategy::Append => {
                for name in loaded {
                    if let Some(tool) = self.get(name.as_ref())
                        && !tool.is_core()
                        && scope.allows(tool.name())
                        && !tools.iter().any(|t| t.name() == tool.name())
                    {
                        tools.push(tool);
                    }
                }
            }
            // The same array for every request of the conversation: core
            // tools, `tool_info` and the bridge, sorted by name.
            LoadStrategy::Bridge | LoadStrategy::Native => {
                tools.push(self.bridge_tool());
                tools.sort_by(|a, b| a.name().cmp(b.name()));
            }
        }
        let deferred: Vec<&str> = self
            .tools()
            .iter()
            .filter(|t| !t.is_core() && scope.allows(t.name()))
            .map(Tool::name)
            .collect();
        let note = (!deferred.is_empty()).then(|| lazy_note(&deferred, lazy.note_budget_chars));
        Prompt {
            tools,
            note,
            registry: self,
            strategy,
        }
    }
}

/// Renders the note for sorted `names`, keeping the list within
/// `budget` characters: first every name; over budget, names sharing an MCP
/// namespace (`server__tool`) become `server__*: N tools`; still over, names
/// sharing a first word (`job_create`, `job_list`, …) become `job_*: N tools`;
/// still over, the list is cut and ends with how many more `tool_info` can
/// find. Every level is deterministic.
pub fn lazy_note(names: &[&str], budget: usize) -> String {
    let list = |entries: &[String]| entries.join(", ");
    let mut entries: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    if list(&entries).len() > budget {
        entries = group(
            names,
            |n| n.split_once("__").map(|(p, _)| format!("{p}__")),
            2,
        );
    }
    if list(&entries).len() > budget {
        let singles: Vec<&str> = entries
            .iter()
            .filter(|e| !e.contains(": "))
            .map(String::as_str)
            .collect();
        let mut regrouped = group(&singles, first_word_prefix, 3);
        regrouped.extend(entries.iter().filter(|e| e.contains(": ")).cloned());
        regrouped.sort_by(|a, b| entry_key(a).cmp(entry_key(b)));
        entries = regrouped;
    }
    let mut out = String::from(NOTE_PREFIX);
    let full = list(&entries);
    if full.len() <= budget {
        out.push_str(&full);
        return out;
    }
    let mut used = 0;
    let mut shown = 0;
    for entry in &entries {
        if used + entry.len() + 2 > budget {
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(entry);
        used += entry.len() + 2;
        shown += 1;
    }
    let hidden: usize = entries[shown..].iter().map(|e| entry_count(e)).sum();
    out.push_str(&format!(
        ", … and {hidden} more (search them with tool_info)"
    ));
    out
}

fn first_word_prefix(name: &str) -> Option<String> {
    let cut = name.find(['_', '-'])?;
    (cut > 0).then(|| name[..=cut].to_owned())
}

/// Groups names by `prefix`; groups of at least `min` become one entry.
fn group(names: &[&str], prefix: impl Fn(&str) -> Option<String>, min: usize) -> Vec<String> {
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut singles = Vec::new();
    for name in names {
        match prefix(name) {
            Some(p) => groups.entry(p).or_default().push(name),
            None => singles.push((*name).to_owned()),
        }
    }
    let mut entries = singles;
    for (p, members) in groups {
        if members.len() >= min {
            entries.push(format!("{p}*: {} tools", members.len()));
        } else {
            entries.extend(members.iter().map(|m| (*m).to_owned()));
        }
    }
    entries.sort_by(|a, b| entry_key(a).cmp(entry_key(b)));
    entries
}

fn entry_key(entry: &str) -> &str {
    entry.split_once('*').map_or(entry, |(p, _)| p)
}

fn entry_count(entry: &str) -> usize {
    entry
        .split_once("*: ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_are_listed_whole() {
        let note = lazy_note(&["job_create", "job_status"], 100);
        assert_eq!(note, format!("{NOTE_PREFIX}job_create, job_status"));
    }

    #[test]
    fn namespaces_are_grouped_over_budget() {
        let mut names: Vec<String> = (0..37).map(|i| format!("github__tool_{i:02}")).collect();
        names.push("job_create".into());
        names.push("slack__post".into());
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let note = lazy_note(&refs, 200);
        assert_eq!(
            note,
            format!("{NOTE_PREFIX}github__*: 37 tools, job_create, slack__post")
        );
    }

    #[test]
    fn first_words_are_grouped_next_and_the_rest_is_cut() {
        let names = ["job_a", "job_b", "job_c", "memo", "zeta_x"];
        assert_eq!(
            lazy_note(&names, 30),
            format!("{NOTE_PREFIX}job_*: 3 tools, memo, zeta_x")
        );
        let note = lazy_note(&names, 20);
        assert_eq!(
            note,
            format!("{NOTE_PREFIX}job_*: 3 tools, … and 2 more (search them with tool_info)")
        );
    }
}
