//! What `tool_info` answers: the entries, their match strength and the
//! answer as a whole, as JSON a model reads and code can deserialize.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::tool::Tool;

/// One tool in a `tool_info` answer. Read answers with
/// [`ToolInfoAnswer`] when code other than the model consumes `tool_info`
/// (a UI listing what the model found, a test).
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
    /// In code mode, the tool as a TypeScript declaration (its arguments
    /// and result types) instead of `parameters`: call it inside
    /// `run_code` as `await tools.NAME(args)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    /// Example calls (argument objects), where the tool has them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub examples: Vec<Value>,
    /// How the tool matched the query (absent in answers of older
    /// versions).
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<MatchStrength>,
}

/// How a `tool_info` hit matched its query: a stable signal a model (or
/// the code around it) can act on.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MatchStrength {
    /// Asked for by its exact name (or `select:`).
    Exact,
    /// A keyword hit at or above [`Registry::strong_match`](crate::Registry::strong_match): the query's rare words
    /// are in the tool and it stands out from the next hit.
    Strong,
    /// A keyword hit below [`Registry::strong_match`](crate::Registry::strong_match): probably not what was asked
    /// for; listed without its schema.
    Weak,
    /// Listed by a filter alone (`ns:github`, `+term` without other
    /// keywords): the tool passes it, nothing was ranked.
    Listed,
}

/// The answer of `tool_info`, as JSON the model reads; deserialize a
/// `tool_info` result into it to inspect what was found.
///
/// ```
/// use optimclaw::{LazyConfig, Registry, Session, ToolContext, ToolInfoAnswer};
/// use serde_json::json;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let session = Session::new(Registry::builder().lazy(LazyConfig::lazy()).build()?);
/// let out = session
///     .call("tool_info", json!({"query": "book a flight to Mars"}), &ToolContext::new())
///     .await?;
/// let answer: ToolInfoAnswer = serde_json::from_value(out)?;
/// assert!(answer.no_match, "no tool here books flights");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ToolInfoAnswer {
    /// Matching tools, best first: exact names and the best keyword hits
    /// with their full schemas, lower keyword hits by name and description.
    pub tools: Vec<ToolInfoEntry>,
    /// Said when nothing (or not everything) matched, with nearest names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `true` when no tool matches the query well: `tools` holds at most a
    /// few weak hits, without schemas.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_match: bool,
    /// Words of the query that no tool contains.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched_words: Vec<String>,
    /// Namespaces (name prefixes before `__`) nearest to the query, when
    /// nothing matched well and the catalog has namespaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// `true` when the query was too long to search whole: it was searched
    /// by its most distinctive words (the message says so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shortened: bool,
}

/// What an answer says of a query searched by part of its words.
pub(crate) const SHORTENED: &str =
    "the query was long, so it was searched by its most distinctive words";

impl ToolInfoAnswer {
    pub(crate) fn new(tools: Vec<ToolInfoEntry>, message: Option<String>) -> Self {
        ToolInfoAnswer {
            tools,
            message,
            no_match: false,
            unmatched_words: Vec::new(),
            namespaces: Vec::new(),
            shortened: false,
        }
    }

    /// Adds `note` to the message.
    pub(crate) fn note(&mut self, note: &str) {
        self.message = Some(match self.message.take() {
            Some(m) => format!("{note}; {m}"),
            None => note.to_owned(),
        });
    }
}

impl ToolInfoEntry {
    pub(crate) fn of(tool: &Tool, strength: MatchStrength) -> Self {
        ToolInfoEntry {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters: Some(tool.input_schema().clone()),
            declaration: None,
            examples: tool.examples().to_vec(),
            strength: Some(strength),
        }
    }

    /// Name and description only (the first sentence), for the lower hits
    /// of a keyword search: they stay out of the conversation's history
    /// until the model asks for one by name.
    pub(crate) fn brief(tool: &Tool, strength: MatchStrength) -> Self {
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
            declaration: None,
            examples: Vec::new(),
            strength: Some(strength),
        }
    }
}
