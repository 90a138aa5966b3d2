//! The small query language of `tool_info`, in the shapes models already
//! know from other tool searches:
//!
//! - `select:a,b` — exactly these tools, by name (no keyword search);
//! - `+term` — every hit must mention `term`;
//! - `-term` — no hit may mention `term`;
//! - `ns:github` or `github__*` — only tools of that namespace (the part of
//!   a name before `__`, as imported MCP servers name their tools).
//!
//! Everything else is keywords. Syntax that is not understood (`+` alone,
//! `ns:` with nothing after it, `foo:bar`) stays keywords: a query is never
//! an error because of its syntax.

use crate::tool::is_valid_tool_name;

/// A parsed `tool_info` query. `tool_info` parses every query itself; use
/// this to run the same syntax over your own tool lists.
///
/// ```
/// use optimclaw::query::ToolQuery;
///
/// let q = ToolQuery::parse("create issue +github -gitlab");
/// // A required word is also ranked on.
/// assert_eq!(q.keywords, "create issue github");
/// assert_eq!(q.required, ["github"]);
/// assert_eq!(q.excluded, ["gitlab"]);
///
/// let q = ToolQuery::parse("select:fs__read,fs__write");
/// assert_eq!(q.select, Some(vec!["fs__read".into(), "fs__write".into()]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolQuery {
    /// `select:` names, in the order given; `None` without `select:`.
    pub select: Option<Vec<String>>,
    /// Keywords, in the order given (without the syntax).
    pub keywords: String,
    /// `+term` words: every hit mentions each of them.
    pub required: Vec<String>,
    /// `-term` words: no hit mentions any of them.
    pub excluded: Vec<String>,
    /// Namespaces (`ns:x`, `x__*`), lower-case: hits come from one of them.
    pub namespaces: Vec<String>,
}

impl ToolQuery {
    /// Parses `query`; never fails (see the [module docs](self)).
    pub fn parse(query: &str) -> Self {
        let mut query = query.trim();
        if let Some(rest) = strip_prefix_ignore_case(query, "select:") {
            let names: Vec<String> = rest
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            if !names.is_empty() && names.iter().all(|n| is_valid_tool_name(n)) {
                return ToolQuery {
                    select: Some(names),
                    ..ToolQuery::default()
                };
            }
            // Not a list of names: what follows is keywords.
            query = rest;
        }
        let mut parsed = ToolQuery::default();
        let mut keywords: Vec<&str> = Vec::new();
        for word in query.split_whitespace() {
            if let Some(term) = word.strip_prefix('+').filter(|t| is_term(t)) {
                parsed.required.push(term.to_owned());
                // A required word is also what the query is about.
                keywords.push(term);
            } else if let Some(term) = word.strip_prefix('-').filter(|t| is_term(t)) {
                parsed.excluded.push(term.to_owned());
            } else if let Some(ns) = namespace_of(word) {
                parsed.namespaces.push(ns.to_lowercase());
            } else {
                keywords.push(word);
            }
        }
        parsed.keywords = keywords.join(" ");
        parsed
    }

    /// Whether the query filters the catalog (required or excluded terms,
    /// namespaces) beyond ranking it.
    pub fn has_filters(&self) -> bool {
        !self.required.is_empty() || !self.excluded.is_empty() || !self.namespaces.is_empty()
    }

    /// Whether `name` is in one of the query's namespaces (always, when it
    /// names none).
    pub fn in_namespaces(&self, name: &str) -> bool {
        self.namespaces.is_empty()
            || namespace(name).is_some_and(|ns| {
                self.namespaces
                    .iter()
                    .any(|wanted| ns.eq_ignore_ascii_case(wanted))
            })
    }
}

/// The namespace of a tool name: the part before the first `__`.
pub fn namespace(name: &str) -> Option<&str> {
    name.split_once("__")
        .map(|(ns, _)| ns)
        .filter(|ns| !ns.is_empty())
}

/// `ns:x` or `x__*` → `x`.
fn namespace_of(word: &str) -> Option<&str> {
    strip_prefix_ignore_case(word, "ns:")
        .or_else(|| word.strip_suffix("__*"))
        .filter(|ns| !ns.is_empty() && ns.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)))
}

/// A word after `+` or `-` that can be a term: it has a letter or a digit.
fn is_term(word: &str) -> bool {
    word.chars().any(char::is_alphanumeric)
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_takes_exact_names() {
        let q = ToolQuery::parse("select: github__create_issue , slack__post ,");
        assert_eq!(
            q.select,
            Some(vec!["github__create_issue".into(), "slack__post".into()])
        );
        assert_eq!(ToolQuery::parse("SELECT:a").select, Some(vec!["a".into()]));
    }

    #[test]
    fn terms_and_namespaces() {
        let q = ToolQuery::parse("create +issue -draft ns:GitHub slack__* pull request");
        assert_eq!(q.keywords, "create issue pull request");
        assert_eq!(q.required, ["issue"]);
        assert_eq!(q.excluded, ["draft"]);
        assert_eq!(q.namespaces, ["github", "slack"]);
        assert!(q.has_filters());
        assert!(q.in_namespaces("github__create_issue"));
        assert!(q.in_namespaces("Slack__post"));
        assert!(!q.in_namespaces("gitlab__create_issue"));
        assert!(!q.in_namespaces("create_issue"));
    }

    #[test]
    fn unknown_syntax_is_keywords() {
        for query in ["+ - ns: select:", "foo:bar e-mail -- ++", "__*", "c++ code"] {
            let q = ToolQuery::parse(query);
            assert_eq!(q.select, None, "{query}");
            assert!(q.namespaces.is_empty(), "{query}");
        }
        let q = ToolQuery::parse("select: weather, city today");
        assert_eq!(q.select, None);
        assert_eq!(q.keywords, "weather, city today");
        let q = ToolQuery::parse("foo:bar e-mail");
        assert_eq!(q.keywords, "foo:bar e-mail");
        assert!(!q.has_filters());
        // `c++` is a keyword, `++` alone too.
        assert_eq!(ToolQuery::parse("c++ ++").keywords, "c++ ++");
    }
}
