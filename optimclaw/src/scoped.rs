//! A registry seen through a [`ToolScope`]: what a scoped caller can list,
//! find, prompt with and call.

use std::fmt;

use crate::config::LazyConfig;
use crate::error::ToolError;
use crate::prompt::Prompt;
use crate::registry::Registry;
use crate::scope::ToolScope;
use crate::tool::Tool;
use crate::tool_info_answer::ToolInfoAnswer;

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
