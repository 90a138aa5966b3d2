//! An optional second stage of `tool_info`: a reranker reorders the best
//! candidates of the first ranking (keywords, or keywords and vectors) and
//! may judge that none of them fits. Off by default; turn it on with
//! [`RegistryBuilder::reranker`](crate::RegistryBuilder::reranker).
//!
//! Two kinds ship in the optimclaw-embed crate: `HttpReranker` (the
//! `/rerank` shape Cohere, Jina, Voyage and text-embeddings-inference
//! serve: query and documents in, one relevance score per document out) and
//! `ChatReranker` (an OpenAI-compatible chat model picks the candidates
//! that fit, or none). Implement [`Reranker`] for anything else.
//!
//! ```
//! use std::sync::Arc;
//! use optimclaw::rerank::{Candidate, Reranked, RerankConfig, Reranker, RerankError};
//! use optimclaw::{DynamicTool, Registry, ToolKind};
//! use serde_json::json;
//!
//! /// Puts the candidates whose name holds a word of the query first.
//! struct ByName;
//! impl Reranker for ByName {
//!     fn id(&self) -> String { "by-name".into() }
//!     fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Reranked, RerankError> {
//!         let scores = candidates
//!             .iter()
//!             .map(|c| if query.split(' ').any(|w| c.name.contains(w)) { 1.0 } else { 0.0 })
//!             .collect();
//!         Ok(Reranked::from_scores(scores))
//!     }
//! }
//!
//! let tool = |name: &str, description: &str| {
//!     DynamicTool::new(name, description, json!({"type": "object"})).kind(ToolKind::Deferred)
//! };
//! let registry = Registry::builder()
//!     .without_linked()
//!     .tools([tool("weather", "Forecast for a city."), tool("forecast_sales", "Sales forecast.")])
//!     .reranker(RerankConfig::new(Arc::new(ByName)))
//!     .build()?;
//! let found = registry.search("weather forecast", 2);
//! assert_eq!(found[0].name(), "weather");
//! # Ok::<(), optimclaw::RegistryError>(())
//! ```

use std::fmt;
use std::sync::Arc;

/// One tool offered to a reranker.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    /// The tool name.
    pub name: &'a str,
    /// Its description.
    pub description: &'a str,
}

impl Candidate<'_> {
    /// The text a document-scoring reranker reads: name, then the first
    /// 500 characters of the description.
    pub fn document(&self) -> String {
        let description: String = self.description.chars().take(500).collect();
        format!("{}: {description}", self.name)
    }
}

/// What a reranker answered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reranked {
    /// Candidate indexes (into the slice given), best first. Candidates
    /// left out follow in their first-stage order.
    pub order: Vec<usize>,
    /// Relevance per candidate index, where the reranker scores
    /// (document-scoring rerankers); empty otherwise.
    pub scores: Vec<f32>,
    /// The candidates the reranker said fit the query (a picking reranker);
    /// `None` when it does not pick.
    pub fits: Option<Vec<usize>>,
    /// Tokens the reranker spent, where it reports them.
    pub tokens: Option<u64>,
}

impl Reranked {
    /// An answer from one score per candidate (higher is better).
    pub fn from_scores(scores: Vec<f32>) -> Self {
        let mut order: Vec<usize> = (0..scores.len()).collect();
        // Stable: ties keep the first stage's order.
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        Reranked {
            order,
            scores,
            fits: None,
            tokens: None,
        }
    }
}

/// Why reranking failed; `tool_info` then answers from the first stage and
/// says so.
///
/// Its text is complete on its own; [`source`](std::error::Error::source)
/// gives the cause when there is one.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct RerankError {
    message: String,
    #[source]
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl RerankError {
    /// An error with a message saying what went wrong.
    pub fn new(message: impl Into<String>) -> Self {
        RerankError {
            message: message.into(),
            source: None,
        }
    }

    /// An error with a message and the error that caused it (the message
    /// should include the cause's text).
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        RerankError {
            message: message.into(),
            source: Some(std::sync::Arc::new(source)),
        }
    }
}

/// A second-stage ranker. Synchronous, like [`Embedder`](crate::embed::Embedder):
/// `tool_info` calls it on a blocking thread when a runtime is running.
pub trait Reranker: Send + Sync {
    /// A stable name for logs and reports.
    fn id(&self) -> String;

    /// Orders `candidates` (best first) for `query`.
    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Reranked, RerankError>;
}

/// How a registry reranks ([`RegistryBuilder::reranker`](crate::RegistryBuilder::reranker)).
#[derive(Clone)]
#[non_exhaustive]
pub struct RerankConfig {
    /// The reranker.
    pub reranker: Arc<dyn Reranker>,
    /// How many first-stage candidates it sees (default 10).
    pub candidates: usize,
    /// For scoring rerankers: the relevance from which the top candidate is
    /// a strong match, and below which `tool_info` says "no match". `None`
    /// (the default): the first stage's judgement of the query stands.
    /// Scores differ by model, so choose it from your model's scores on
    /// requests with and without a tool (`bench/catalogs.sh` measures every
    /// dev catalog through a reranker at `CATALOG_RERANK`; `bench/rerank.sh`
    /// runs it against a stand-in).
    pub strong_score: Option<f32>,
}

impl RerankConfig {
    /// Sets [`reranker`](Self::reranker).
    #[must_use]
    pub fn with_reranker(mut self, reranker: Arc<dyn Reranker>) -> Self {
        self.reranker = reranker;
        self
    }

    /// Sets [`candidates`](Self::candidates).
    #[must_use]
    pub fn with_candidates(mut self, candidates: usize) -> Self {
        self.candidates = candidates;
        self
    }

    /// Sets [`strong_score`](Self::strong_score).
    #[must_use]
    pub fn with_strong_score(mut self, strong_score: f32) -> Self {
        self.strong_score = Some(strong_score);
        self
    }
}

impl RerankConfig {
    /// `reranker` over the best 10 candidates, strength from the first stage
    /// (or from the reranker's picks, for one that picks).
    pub fn new(reranker: Arc<dyn Reranker>) -> Self {
        RerankConfig {
            reranker,
            candidates: 10,
            strong_score: None,
        }
    }
}

impl fmt::Debug for RerankConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RerankConfig")
            .field("reranker", &self.reranker.id())
            .field("candidates", &self.candidates)
            .field("strong_score", &self.strong_score)
            .finish()
    }
}

/// The first stage's hits `(tool, strong)` reordered by `reranked`, each
/// judged again: a picking reranker's picks are strong and the rest weak
/// (no pick: no match); with `strong_score`, a scored hit is strong at that
/// score; otherwise the new first is strong exactly when the first stage's
/// was (whether the catalog has a match is the first stage's judgement,
/// which a reordering does not undo) and the others keep their own.
pub(crate) fn apply(
    hits: &[(usize, bool)],
    reranked: &Reranked,
    strong_score: Option<f32>,
) -> Vec<(usize, bool)> {
    let mut order: Vec<usize> = Vec::with_capacity(hits.len());
    for &i in &reranked.order {
        if i < hits.len() && !order.contains(&i) {
            order.push(i);
        }
    }
    for i in 0..hits.len() {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    let matched = hits.first().is_some_and(|h| h.1);
    order
        .into_iter()
        .enumerate()
        .map(|(rank, i)| {
            let (tool, first_stage) = hits[i];
            let strong = match (&reranked.fits, strong_score) {
                (Some(fits), _) => fits.contains(&i),
                (None, Some(min)) => reranked.scores.get(i).is_some_and(|s| *s >= min),
                (None, None) if rank == 0 => matched,
                (None, None) => first_stage,
            };
            (tool, strong)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_decide_strength_and_leftovers_keep_their_order() {
        let hits = [(10, true), (11, false), (12, true)];
        let picked = Reranked {
            order: vec![1],
            fits: Some(vec![1]),
            ..Reranked::default()
        };
        assert_eq!(
            apply(&hits, &picked, None),
            [(11, true), (10, false), (12, false)]
        );
        let none = Reranked {
            fits: Some(Vec::new()),
            ..Reranked::default()
        };
        assert!(apply(&hits, &none, None).iter().all(|(_, s)| !s));
    }

    #[test]
    fn scores_reorder_and_a_threshold_judges() {
        let hits = [(10, true), (11, true)];
        let scored = Reranked::from_scores(vec![0.2, 0.9]);
        assert_eq!(apply(&hits, &scored, None), [(11, true), (10, true)]);
        assert_eq!(apply(&hits, &scored, Some(0.5)), [(11, true), (10, false)]);
        // Without a threshold, a reordering keeps the first stage's
        // judgement of the query: a match stays a match, none stays none.
        let weak_second = [(10, true), (11, false)];
        assert_eq!(apply(&weak_second, &scored, None), [(11, true), (10, true)]);
        let none = [(10, false), (11, false)];
        assert_eq!(apply(&none, &scored, None), [(11, false), (10, false)]);
        // Out-of-range indexes from a buggy reranker are ignored.
        let bad = Reranked {
            order: vec![7, 1, 1],
            ..Reranked::default()
        };
        assert_eq!(apply(&hits, &bad, None), [(11, true), (10, true)]);
    }
}
