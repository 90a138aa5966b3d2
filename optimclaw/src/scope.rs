//! Which tools a caller may see and call: a list of name patterns.

use std::fmt;

use crate::tool::{CALL_TOOL, RUN_CODE, TOOL_INFO};

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
