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

pub use crate::error::EmbedError;
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

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
