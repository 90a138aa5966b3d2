//! Discoverability an author can test: do the requests users write find
//! the tool meant for them, how surely, and which tools get confused?

use std::collections::BTreeSet;
use std::fmt;

use crate::registry::Registry;
use crate::tool_info_answer::MatchStrength;

/// How many ranked names are kept per request.
const KEPT: usize = 5;

/// What `tool_info` answered one request of a [`Discoverability`] check.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RequestResult {
    /// The request.
    pub request: String,
    /// The tool meant to answer it (`None`: no tool should).
    pub expected: Option<String>,
    /// The names `tool_info` ranked, best first (at most 5).
    pub ranked: Vec<String>,
    /// How sure the first hit was.
    pub strength: Option<MatchStrength>,
    /// Whether the answer was "no tool matches".
    pub no_match: bool,
    /// Whether the expected tool is a core tool (always in the prompt;
    /// `tool_info` does not search it): such requests are not counted.
    pub core: bool,
}

impl RequestResult {
    /// Where the expected tool was ranked, from 1 (`None`: not in the first 5,
    /// or no tool expected).
    pub fn rank(&self) -> Option<usize> {
        let expected = self.expected.as_deref()?;
        self.ranked
            .iter()
            .position(|n| n == expected)
            .map(|i| i + 1)
    }

    /// Whether the expected tool came first, strong.
    pub fn found_strongly(&self) -> bool {
        self.rank() == Some(1) && self.strength == Some(MatchStrength::Strong)
    }
}

/// A report on how well a catalog's tools are found by the requests meant
/// for them ([`discoverability`]): recall at 1 and 5, how often the right
/// tool came first **strong**, requests no tool answered, requests for no
/// tool that still got a strong match, and pairs of tools that take each
/// other's requests. Its `Display` is a short readable report.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Discoverability {
    /// One result per request, in the order given.
    pub results: Vec<RequestResult>,
}

impl Discoverability {
    /// The requests for a deferred tool (what the figures count).
    fn with_tool(&self) -> impl Iterator<Item = &RequestResult> {
        self.results
            .iter()
            .filter(|r| r.expected.is_some() && !r.core)
    }

    /// The share of requests (with an expected tool) that ranked it in the
    /// first `k` (1 to 5); 0 with no such request.
    pub fn recall_at(&self, k: usize) -> f64 {
        let k = k.clamp(1, KEPT);
        share(self.with_tool(), |r| r.rank().is_some_and(|rank| rank <= k))
    }

    /// The share of requests whose expected tool came first and strong.
    pub fn strong_at_1(&self) -> f64 {
        share(self.with_tool(), RequestResult::found_strongly)
    }

    /// Requests with an expected tool that `tool_info` answered "no tool
    /// matches".
    pub fn unanswered(&self) -> Vec<&RequestResult> {
        self.with_tool().filter(|r| r.no_match).collect()
    }

    /// Requests with an expected tool that it did not rank in the first 5.
    pub fn missed(&self) -> Vec<&RequestResult> {
        self.with_tool().filter(|r| r.rank().is_none()).collect()
    }

    /// Requests whose expected tool was ranked, but not first.
    pub fn not_first(&self) -> Vec<&RequestResult> {
        self.with_tool()
            .filter(|r| r.rank().is_some_and(|rank| rank > 1))
            .collect()
    }

    /// Requests meant for no tool that still got a strong match.
    pub fn false_matches(&self) -> Vec<&RequestResult> {
        self.results
            .iter()
            .filter(|r| r.expected.is_none() && r.strength == Some(MatchStrength::Strong))
            .collect()
    }

    /// Pairs of tools that rank each other first on each other's requests
    /// (a request for `a` ranked `b` first, and one for `b` ranked `a`
    /// first): their descriptions, keywords or asks need telling apart.
    /// Sorted, each pair once.
    pub fn confusable_pairs(&self) -> Vec<(String, String)> {
        let taken: BTreeSet<(&str, &str)> = self
            .with_tool()
            .filter_map(|r| {
                let expected = r.expected.as_deref()?;
                let first = r.ranked.first()?.as_str();
                (first != expected).then_some((expected, first))
            })
            .collect();
        let mut pairs: Vec<(String, String)> = taken
            .iter()
            .filter(|(a, b)| a < b && taken.contains(&(*b, *a)))
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        pairs.dedup();
        pairs
    }
}

fn share<'a>(
    results: impl Iterator<Item = &'a RequestResult>,
    hit: impl Fn(&RequestResult) -> bool,
) -> f64 {
    let (mut n, mut hits) = (0usize, 0usize);
    for r in results {
        n += 1;
        hits += usize::from(hit(r));
    }
    if n == 0 { 0.0 } else { hits as f64 / n as f64 }
}

impl fmt::Display for Discoverability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let with_tool = self.with_tool().count();
        let core = self.results.iter().filter(|r| r.core).count();
        let without = self.results.iter().filter(|r| r.expected.is_none()).count();
        if core > 0 {
            writeln!(
                f,
                "{core} requests for core tools not counted (always in the prompt)"
            )?;
        }
        writeln!(
            f,
            "{with_tool} requests for a tool: recall@1 {:.2}, recall@5 {:.2}, first and strong {:.2}",
            self.recall_at(1),
            self.recall_at(5),
            self.strong_at_1()
        )?;
        for r in self.missed() {
            writeln!(
                f,
                "  not found: {:?} (for {}) ranked {}",
                r.request,
                r.expected.as_deref().unwrap_or_default(),
                if r.ranked.is_empty() {
                    "nothing".to_owned()
                } else {
                    r.ranked.join(", ")
                }
            )?;
        }
        for r in self.not_first() {
            writeln!(
                f,
                "  not first: {:?} (for {}, ranked {}) ranked {} first",
                r.request,
                r.expected.as_deref().unwrap_or_default(),
                r.rank().unwrap_or_default(),
                r.ranked.first().map_or("", String::as_str)
            )?;
        }
        for r in self.unanswered() {
            writeln!(
                f,
                "  answered \"no tool matches\": {:?} (for {})",
                r.request,
                r.expected.as_deref().unwrap_or_default()
            )?;
        }
        for (a, b) in self.confusable_pairs() {
            writeln!(f, "  confusable: {a} and {b} take each other's requests")?;
        }
        if without > 0 {
            let wrong = self.false_matches();
            writeln!(
                f,
                "{without} requests for no tool: {} got a strong match",
                wrong.len()
            )?;
            for r in wrong {
                writeln!(
                    f,
                    "  strong match for {:?}: {}",
                    r.request,
                    r.ranked.first().map_or("", String::as_str)
                )?;
            }
        }
        Ok(())
    }
}

/// Asks `tool_info` each request, as a model would, and reports how the
/// deferred tools meant for them were found. Give requests as users write
/// them (not copies of the tools' `asks`, which are indexed):
/// `(request, Some(tool))`, or `(request, None)` for one no tool should
/// answer. Requests for core tools are kept but not counted: those are
/// always in the prompt, and `tool_info` does not search them.
///
/// ```rust,standalone_crate
/// use optimclaw::{Registry, tool};
/// use optimclaw::testing::discoverability;
///
/// /// Add an item to the to-do list.
/// #[tool(asks = ["remind me to call mom tomorrow"])]
/// fn todo_add(
///     /// What to do.
///     text: String,
/// ) -> String {
///     text
/// }
///
/// /// List the open to-do items.
/// #[tool(keywords = ["pending", "remaining"], asks = ["what do I still have to do this week?"])]
/// fn todo_list() -> Vec<String> {
///     Vec::new()
/// }
///
/// let registry = Registry::from_linked().unwrap();
/// let report = discoverability(
///     &registry,
///     [
///         ("remind me to water the plants", Some("todo_add")),
///         ("which tasks are still open?", Some("todo_list")),
///         ("launch a rocket to the moon", None),
///     ],
/// );
/// assert_eq!(report.recall_at(5), 1.0, "{report}");
/// assert!(report.false_matches().is_empty(), "{report}");
/// println!("{report}");
/// ```
pub fn discoverability<'a, I, E>(registry: &Registry, cases: I) -> Discoverability
where
    I: IntoIterator<Item = (&'a str, Option<E>)>,
    E: Into<String>,
{
    let results = cases
        .into_iter()
        .map(|(request, expected)| {
            let answer = registry.tool_info(request, KEPT).ok();
            let ranked: Vec<String> = answer
                .iter()
                .flat_map(|a| a.tools.iter().map(|t| t.name.clone()))
                .take(KEPT)
                .collect();
            let expected: Option<String> = expected.map(Into::into);
            let core = expected
                .as_deref()
                .and_then(|name| registry.get(name))
                .is_some_and(crate::Tool::is_core);
            RequestResult {
                core,
                request: request.to_owned(),
                expected,
                strength: answer
                    .as_ref()
                    .and_then(|a| a.tools.first())
                    .and_then(|t| t.strength),
                no_match: answer.as_ref().is_none_or(|a| a.no_match),
                ranked,
            }
        })
        .collect();
    Discoverability { results }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(request: &str, expected: Option<&str>, ranked: &[&str]) -> RequestResult {
        RequestResult {
            request: request.to_owned(),
            expected: expected.map(str::to_owned),
            ranked: ranked.iter().map(|s| (*s).to_owned()).collect(),
            strength: Some(MatchStrength::Strong),
            no_match: false,
            core: false,
        }
    }

    #[test]
    fn two_tools_that_take_each_others_requests_are_confusable() {
        let report = Discoverability {
            results: vec![
                result(
                    "get rid of old notes",
                    Some("note_delete"),
                    &["note_get", "note_delete"],
                ),
                result(
                    "show me that note",
                    Some("note_get"),
                    &["note_delete", "note_get"],
                ),
                result("list the notes", Some("note_list"), &["note_get"]),
                result("book a flight", None, &["note_get"]),
            ],
        };
        assert_eq!(
            report.confusable_pairs(),
            [("note_delete".to_owned(), "note_get".to_owned())]
        );
        assert_eq!(report.recall_at(1), 0.0);
        assert!((report.recall_at(5) - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(report.missed().len(), 1);
        assert_eq!(report.false_matches().len(), 1);
        let text = report.to_string();
        assert!(
            text.contains("confusable: note_delete and note_get"),
            "{text}"
        );
        assert!(
            text.contains("strong match for \"book a flight\""),
            "{text}"
        );
    }
}
