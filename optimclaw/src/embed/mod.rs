//! Optional semantic retrieval for `tool_info`: an [`Embedder`] turns text
//! into vectors; the registry embeds each deferred tool once when it is
//! built (cached on disk by content hash, [`EmbeddingCache`]), embeds each
//! keyword query, and fuses the cosine ranking with BM25F
//! ([`fuse`]), keeping the last places of an answer for the vectors' most
//! confident picks ([`seat_vectors`]). Off unless a registry is given an embedder
//! ([`RegistryBuilder::embedder`](crate::RegistryBuilder::embedder));
//! keyword search stays the default.
//!
//! Embedders ship in the optimclaw-embed crate: `HttpEmbedder` (an
//! OpenAI-compatible `/v1/embeddings` endpoint) and `MiniLm`
//! (all-MiniLM-L6-v2 run in-process by candle from a local folder, its
//! feature `minilm`). Plug in any other by implementing the trait.
//!
//! Files: `cache.rs` (the on-disk vectors), `index.rs` (vectors of a
//! catalog, cosine ranking, how cosines spread), `fusion.rs` (keyword and
//! vector rankings made one, and the vectors' seats), `search.rs` (what a registry holds:
//! configuration, vectors, thresholds).

mod cache;
mod fusion;
mod index;
mod search;

pub use cache::{EmbeddingCache, check_shape};
pub(crate) use fusion::VECTOR_SEATS;
pub use fusion::{Fusion, fuse, seat_vectors};
pub(crate) use index::STRONG_SPREAD;
pub use index::{CosineSpread, SemanticIndex, tool_text};
pub use search::SemanticConfig;
pub(crate) use search::{FusedHit, SemanticSearch};

/// Turns texts into vectors whose cosine similarity says how alike they
/// are. Called with many texts when a registry is built (one per deferred
/// tool not in the cache) and with one text per `tool_info` query.
///
/// Calls are synchronous: an implementation doing network I/O blocks the
/// calling thread (`tool_info` runs it on a blocking thread when called
/// through a session or agent).
///
/// Implement it to use a model the crate does not ship (a local ONNX
/// model, a provider SDK); otherwise take optimclaw-embed's `HttpEmbedder` or `MiniLm`.
///
/// ```
/// use std::sync::Arc;
/// use optimclaw::embed::{EmbedError, Embedder, SemanticConfig};
/// use optimclaw::Registry;
///
/// /// Counts a few words: a stand-in for a real model.
/// struct WordCounts;
///
/// impl Embedder for WordCounts {
///     fn id(&self) -> &str {
///         "word-counts-v1"
///     }
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
///         let words = ["weather", "stock", "file"];
///         Ok(texts
///             .iter()
///             .map(|t| words.iter().map(|w| t.matches(w).count() as f32).collect())
///             .collect())
///     }
/// }
///
/// let mut config = SemanticConfig::new(Arc::new(WordCounts));
/// config.cache = None; // nothing written to disk
/// let registry = Registry::builder().semantic(config).build()?;
/// assert!(registry.has_vector_search());
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
pub trait Embedder: Send + Sync {
    /// Names the model and its settings: vectors cached under one id are
    /// never reused under another. Change it when the vectors change.
    fn id(&self) -> &str;

    /// One vector per text, in order, all of the same length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why embedding failed: return it from [`Embedder::embed`] with a message
/// that says what to do (a missing file, an endpoint that refused). At
/// build it fails the registry; for a query `tool_info` falls back to
/// keywords and reports it.
///
/// Its text is complete on its own; [`source`](std::error::Error::source)
/// gives the cause when there is one (an I/O or HTTP error).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct EmbedError {
    message: String,
    #[source]
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl EmbedError {
    /// An error with a message saying what went wrong and what to do.
    pub fn new(message: impl Into<String>) -> Self {
        EmbedError {
            message: message.into(),
            source: None,
        }
    }

    /// An error with a message and the error that caused it (the message
    /// should include the cause's text: it is what users and models see).
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        EmbedError {
            message: message.into(),
            source: Some(std::sync::Arc::new(source)),
        }
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
