//! An OpenAI-compatible embeddings endpoint (`POST {base}/embeddings`), as
//! served by OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio and most
//! gateways.
//!
//! It sends through the crate's client (the agent's reqwest stack, on a
//! thread of its own), so [`Embedder`], which is synchronous, works inside
//! and outside a runtime.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use optimclaw::embed::{EmbedError, Embedder, check_shape};

use crate::client::{self, Post};

/// Inputs per request.
const BATCH: usize = 128;

/// Vectors from an OpenAI-compatible embeddings endpoint (OpenAI, Ollama,
/// vLLM, llama.cpp, text-embeddings-inference): use it when such a server
/// is at hand and the `minilm` feature's build time is not worth it.
///
/// ```no_run
/// use std::sync::Arc;
/// use optimclaw_embed::HttpEmbedder;
/// use optimclaw::Registry;
///
/// let embedder = HttpEmbedder::new("http://127.0.0.1:11434/v1", "all-minilm");
/// let registry = Registry::builder().embedder(Arc::new(embedder)).build()?;
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
pub struct HttpEmbedder {
    url: String,
    model: String,
    key: Option<String>,
    id: String,
    timeout: Duration,
}

impl std::fmt::Debug for HttpEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key is never printed.
        f.debug_struct("HttpEmbedder")
            .field("url", &self.url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

impl HttpEmbedder {
    /// Embeds with `model` at `base_url` (e.g. `http://127.0.0.1:11434/v1`;
    /// `/embeddings` is appended).
    pub fn new(base_url: &str, model: impl Into<String>) -> Self {
        let url = format!("{}/embeddings", base_url.trim_end_matches('/'));
        let model = model.into();
        HttpEmbedder {
            id: format!("http:{url}#{model}"),
            url,
            model,
            key: None,
            timeout: Duration::from_secs(60),
        }
    }

    /// Sends `Authorization: Bearer <key>`.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    fn post(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = json!({"model": self.model, "input": texts});
        let answer = client::post(Post {
            url: self.url.clone(),
            key: self.key.clone(),
            body: body.to_string().into_bytes(),
            timeout: self.timeout,
            limit: 256 * 1024 * 1024,
        })
        .map_err(|e| {
            EmbedError::with_source(format!("embeddings request to {} failed: {e}", self.url), e)
        })?;
        let (status, text) = (answer.status, answer.body);
        if !status.is_success() {
            let excerpt: String = text.chars().take(300).collect();
            return Err(EmbedError::new(format!(
                "the embeddings endpoint {} answered {status}: {excerpt}",
                self.url
            )));
        }
        let parsed: Response = serde_json::from_str(&text).map_err(|e| {
            EmbedError::with_source(
                format!(
                    "the embeddings answer is not {{\"data\": [{{\"embedding\": [...]}}]}}: {e}"
                ),
                e,
            )
        })?;
        let mut items = parsed.data;
        if items.iter().all(|i| i.index.is_some()) {
            items.sort_by_key(|i| i.index);
        }
        Ok(items.into_iter().map(|i| i.embedding).collect())
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let vectors = self.post(chunk)?;
            check_shape(&vectors, chunk.len(), out.first().map(Vec::len))?;
            out.extend(vectors);
        }
        Ok(out)
    }
}
