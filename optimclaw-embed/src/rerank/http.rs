//! The `/rerank` request shape served by Cohere, Jina, Voyage and
//! text-embeddings-inference: a query and documents in, a relevance score
//! per document out. Synchronous, like the embeddings client: the
//! [`Reranker`] trait is synchronous.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use optimclaw::rerank::{Candidate, RerankError, Reranked, Reranker};

use crate::client::{self, Post};

/// Scores from a `/rerank` endpoint. The body sent is
/// `{"model", "query", "documents": [text…], "top_n"}`; the answer read is
/// `{"results": [{"index", "relevance_score"}]}` (Cohere, Jina),
/// `{"data": [{"index", "relevance_score"}]}` (Voyage) or
/// `[{"index", "score"}]` (text-embeddings-inference, which also reads
/// `texts`, sent too).
///
/// ```no_run
/// use std::sync::Arc;
/// use optimclaw::rerank::RerankConfig;
/// use optimclaw_embed::rerank::HttpReranker;
/// use optimclaw::Registry;
///
/// let reranker = HttpReranker::new("http://127.0.0.1:8080/v1/rerank", "bge-reranker-base");
/// let registry = Registry::builder()
///     .reranker(RerankConfig::new(Arc::new(reranker)))
///     .build()?;
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
#[derive(Debug)]
pub struct HttpReranker {
    endpoint: Endpoint,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    Results { results: Vec<Score> },
    Data { data: Vec<Score> },
    Bare(Vec<Score>),
}

#[derive(Deserialize)]
struct Score {
    index: usize,
    #[serde(alias = "score")]
    relevance_score: f32,
}

/// An endpoint a reranker posts to: its address, model and key, and a
/// blocking agent with a time limit that reads HTTP errors as answers.
pub(super) struct Endpoint {
    pub(super) url: String,
    pub(super) model: String,
    key: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never printed.
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    pub(super) fn new(url: String, model: String, timeout: Duration) -> Self {
        Endpoint {
            url,
            model,
            key: None,
            timeout,
        }
    }

    pub(super) fn with_api_key(mut self, key: String) -> Self {
        self.key = Some(key);
        self
    }

    /// POSTs `body` and reads a JSON answer; errors name the endpoint and
    /// quote the start of a refusal.
    pub(super) fn post(&self, body: &Value) -> Result<Value, RerankError> {
        let url = &self.url;
        let answer = client::post(Post {
            url: url.clone(),
            key: self.key.clone(),
            body: body.to_string().into_bytes(),
            timeout: self.timeout,
            limit: 16 * 1024 * 1024,
        })
        .map_err(|e| {
            RerankError::with_source(format!("reranking request to {url} failed: {e}"), e)
        })?;
        let (status, text) = (answer.status, answer.body);
        if !status.is_success() {
            let excerpt: String = text.chars().take(300).collect();
            return Err(RerankError::new(format!(
                "{url} answered {status}: {excerpt}"
            )));
        }
        serde_json::from_str(&text).map_err(|e| {
            RerankError::with_source(format!("the answer of {url} is not JSON: {e}"), e)
        })
    }
}

impl HttpReranker {
    /// Reranks with `model` at `url`, the whole endpoint address (e.g.
    /// `https://api.cohere.com/v2/rerank`, `http://127.0.0.1:8080/rerank`).
    pub fn new(url: impl Into<String>, model: impl Into<String>) -> Self {
        HttpReranker {
            endpoint: Endpoint::new(url.into(), model.into(), Duration::from_secs(10)),
        }
    }

    /// Sends `Authorization: Bearer <key>`.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.endpoint = self.endpoint.with_api_key(key.into());
        self
    }
}

impl Reranker for HttpReranker {
    fn id(&self) -> String {
        format!("rerank:{}#{}", self.endpoint.url, self.endpoint.model)
    }

    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Reranked, RerankError> {
        if candidates.is_empty() {
            return Ok(Reranked::default());
        }
        let documents: Vec<String> = candidates.iter().map(Candidate::document).collect();
        let body = json!({
            "model": self.endpoint.model,
            "query": query,
            "documents": documents,
            "texts": documents,
            "top_n": documents.len(),
        });
        let answer = self.endpoint.post(&body)?;
        let scores = match serde_json::from_value::<Answer>(answer) {
            Ok(Answer::Results { results: s } | Answer::Data { data: s } | Answer::Bare(s)) => s,
            Err(e) => {
                return Err(RerankError::new(format!(
                    "the answer of {} is not {{\"results\": [{{\"index\", \"relevance_score\"}}]}}: {e}",
                    self.endpoint.url
                )));
            }
        };
        // Candidates the endpoint did not score rank last.
        let mut by_index = vec![f32::NEG_INFINITY; candidates.len()];
        for s in scores {
            if let Some(slot) = by_index.get_mut(s.index) {
                *slot = s.relevance_score;
            }
        }
        Ok(Reranked::from_scores(by_index))
    }
}
