//! Which tools a caller may see and call: a list of name patterns.

use std::fmt;

use crate::config::LazyConfig;
use crate::error::ToolError;
use crate::prompt::Prompt;
use crate::registry::Registry;
use crate::tool::{CALL_TOOL, RUN_CODE, TOOL_INFO, Tool};
use crate::tool_info_answer::ToolInfoAnswer;

/// A set of tool names, written as patterns: an exact name (`echo`), or a
/// pattern with `*` standing for any run of characters (`github__*`,
/// `*_list`, `*`).
///
/// A session with a scope ([`Session::scoped`](crate::Session::scoped))
/// lists, finds (`tool_info`) and calls only the tools in it; the MCP
/// server gives each access key one. `tool_info` and `call_tool` are always
/// in scope (what they reach is checked against the scope in turn).
///
/// ```
/// use optimclaw::ToolScope;
/// let scope = ToolScope::new(["echo", "github__*"]).unwrap();
/// assert!(scope.allows("github__create_issue"));
/// assert!(!scope.allows("shell"));
/// assert!(ToolScope::all().allows("shell"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ToolScope {
    /// `None`: every tool.
    patterns: Option<Vec<String>>,
}

impl ToolScope {
    /// Every tool.
    pub fn all() -> Self {
        ToolScope { patterns: None }
    }

    /// The tools matching any of `patterns`. A pattern holds letters,
    /// digits, `_`, `-` and `*`; anything else is an error naming it.
    pub fn new<I, S>(patterns: I) -> Result<Self, ScopeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut kept = Vec::new();
        for pattern in patterns {
            let pattern = pattern.as_ref().trim();
            if pattern.is_empty()
                || !pattern
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-*".contains(&b))
            {
                return Err(ScopeError {
                    pattern: pattern.to_owned(),
                });
            }
            kept.push(pattern.to_owned());
        }
        if kept.iter().any(|p| p == "*") {
            return Ok(Self::all());
        }
        Ok(ToolScope {
            patterns: Some(kept),
        })
    }

    /// Whether every tool is in scope.
    pub fn is_all(&self) -> bool {
        self.patterns.is_none()
    }

    /// Whether the tool `name` is in scope.
    pub fn allows(&self, name: &str) -> bool {
        match &self.patterns {
            None => true,
            Some(patterns) => {
                name == TOOL_INFO
                    || name == CALL_TOOL
                    // Its programs' calls are checked against the scope.
                    || name == RUN_CODE
                    || patterns.iter().any(|p| glob(p.as_bytes(), name.as_bytes()))
            }
        }
    }
}

impl Default for ToolScope {
    fn default() -> Self {
        Self::all()
    }
}

impl fmt::Debug for ToolScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.patterns {
            None => f.write_str("ToolScope(*)"),
            Some(p) => write!(f, "ToolScope({})", p.join(", ")),
        }
    }
}

/// A tool pattern that is not a name with `*` wildcards
/// ([`ToolScope::new`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool pattern {pattern:?}: expected a tool name, with `*` for any run of characters (e.g. github__*)"
)]
#[non_exhaustive]
pub struct ScopeError {
    /// The pattern as given (trimmed).
    pub pattern: String,
}

/// A registry seen through a [`ToolScope`]: search, `tool_info`, prompts
/// and "did you mean" names that never name, rank or send a tool outside
/// the scope. [`Registry::scoped`] makes one; the registry's own methods
/// of the same names are these with [`ToolScope::all`].
///
/// ```rust,standalone_crate
/// use optimclaw::{LazyConfig, Registry, ToolScope, tool};
///
/// /// Lists the open issues of a repository.
/// #[tool(deferred, keywords = ["issues", "bugs"])]
/// fn github__list_issues(
///     /// The repository, as owner/name.
///     repo: String,
/// ) -> Vec<String> {
///     vec![repo]
/// }
///
/// /// Deletes a repository.
/// #[tool(deferred, keywords = ["repository", "delete"])]
/// fn admin__delete_repo(
///     /// The repository, as owner/name.
///     repo: String,
/// ) {
///     let _ = repo;
/// }
///
/// let registry = Registry::from_linked().unwrap();
/// let scope = ToolScope::new(["github__*"]).unwrap();
/// let view = registry.scoped(&scope);
/// let hits = view.search("delete the repository", 5);
/// assert!(hits.iter().all(|t| t.name().starts_with("github__")));
/// assert_eq!(registry.search("delete the repository", 1)[0].name(), "admin__delete_repo");
/// assert!(view.get("admin__delete_repo").is_none());
/// let answer = view.tool_info("admin__delete_repo", 3).unwrap();
/// assert!(answer.tools.iter().all(|t| t.name != "admin__delete_repo"));
/// assert!(!serde_json::to_string(&answer).unwrap().contains("admin__"));
/// let prompt = view.prompt::<&str>(&LazyConfig::default(), &[]);
/// assert!(!prompt.note.unwrap_or_default().contains("admin__delete_repo"));
/// ```
#[derive(Clone, Copy)]
pub struct Scoped<'r> {
    registry: &'r Registry,
    scope: &'r ToolScope,
}

impl Registry {
    /// This registry seen through `scope` (see [`Scoped`]).
    pub fn scoped<'r>(&'r self, scope: &'r ToolScope) -> Scoped<'r> {
        Scoped {
            registry: self,
            scope,
        }
    }
}

impl<'r> Scoped<'r> {
    /// The registry behind the view.
    pub fn registry(&self) -> &'r Registry {
        self.registry
    }

    /// The scope.
    pub fn scope(&self) -> &'r ToolScope {
        self.scope
    }

    /// The tools in scope, sorted by name.
    pub fn tools(&self) -> impl Iterator<Item = &'r Tool> + 'r {
        let scope = self.scope;
        self.registry
            .tools()
            .iter()
            .filter(move |t| scope.allows(t.name()))
    }

    /// The tool with exactly this name, when it is in scope.
    pub fn get(&self, name: &str) -> Option<&'r Tool> {
        self.registry
            .get(name)
            .filter(|t| self.scope.allows(t.name()))
    }

    /// [`Registry::search`] among the tools in scope: tools outside it are
    /// never returned (nor ranked).
    pub fn search(&self, query: &str, k: usize) -> Vec<&'r Tool> {
        self.registry.search_scoped(query, k, self.scope)
    }

    /// [`Registry::nearest_names`] among the tools in scope.
    pub fn nearest_names(&self, name: &str, n: usize) -> Vec<&'r str> {
        self.registry.nearest_names_scoped(name, n, self.scope)
    }

    /// [`Registry::prompt`] with only the tools in scope: tools outside it
    /// are neither sent nor named in the note.
    pub fn prompt<S: AsRef<str>>(&self, lazy: &LazyConfig, loaded: &[S]) -> Prompt<'r> {
        self.registry.prompt_scoped(lazy, loaded, self.scope)
    }

    /// [`Registry::tool_info`] among the tools in scope: a tool outside it
    /// is answered as if it did not exist (never named, never suggested).
    pub fn tool_info(&self, query: &str, max_results: usize) -> Result<ToolInfoAnswer, ToolError> {
        self.registry
            .tool_info_scoped(query, max_results, self.scope)
    }
}

impl fmt::Debug for Scoped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scoped")
            .field("tools", &self.registry.len())
            .field("scope", self.scope)
            .finish()
    }
}

/// Whether `text` matches `pattern`, where `*` is any run of bytes.
/// (Iterative with one backtrack point: linear in practice, no recursion.)
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_names() {
        let scope = ToolScope::new(["echo", "github__*", "*_list", "a*b*c"]).unwrap();
        for yes in [
            "echo",
            "github__x",
            "github__",
            "job_list",
            "abc",
            "aXbYc",
            "tool_info",
            "call_tool",
        ] {
            assert!(scope.allows(yes), "{yes}");
        }
        for no in ["echo2", "git", "job_lists", "ab", "shell", "xecho"] {
            assert!(!scope.allows(no), "{no}");
        }
        assert!(ToolScope::new(["*"]).unwrap().is_all());
        assert!(
            ToolScope::new(["bad pattern"])
                .unwrap_err()
                .to_string()
                .contains("bad pattern")
        );
        assert!(
            ToolScope::new(Vec::<String>::new())
                .unwrap()
                .allows("tool_info")
        );
        assert!(!ToolScope::new(Vec::<String>::new()).unwrap().allows("echo"));
    }
}
