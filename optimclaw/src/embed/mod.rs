//! Optional semantic retrieval for `tool_info`: an [`Embedder`] turns text
//! into vectors; the registry embeds each deferred tool once when it is
//! built (cached on disk by content hash, [`EmbeddingCache`]), embeds each
//! keyword query, and fuses the cosine ranking with BM25F
//! ([`fuse`]). Off unless a registry is given an embedder
//! ([`RegistryBuilder::embedder`](crate::RegistryBuilder::embedder));
//! keyword search stays the default.
//!
//! Embedders shipped: [`HttpEmbedder`] (an OpenAI-compatible
//! `/v1/embeddings` endpoint, feature `embed-http`) and [`MiniLm`]
//! (all-MiniLM-L6-v2 run in-process by candle from a local folder, feature
//! `minilm`). Plug in any other by implementing the trait.
//!
//! Files: `cache.rs` (the on-disk vectors), `index.rs` (vectors of a
//! catalog, cosine ranking, fusion), `search.rs` (what a registry holds:
//! configuration, vectors, thresholds), `http.rs`, `minilm.rs`.

mod cache;
#[cfg(feature = "embed-http")]
mod http;
mod index;
#[cfg(feature = "minilm")]
mod minilm;
mod search;

use std::fmt;

pub use cache::EmbeddingCache;
#[cfg(feature = "embed-http")]
pub use http::HttpEmbedder;
pub use index::{Fusion, SemanticIndex, fuse, tool_text};
#[cfg(feature = "minilm")]
pub use minilm::MiniLm;
pub(crate) use search::{FusedHit, SemanticSearch};
pub use search::{POOL, STRONG_COSINE, STRONG_KEYWORDS, SemanticConfig};

/// Turns texts into vectors whose cosine similarity says how alike they
/// are. Called with many texts when a registry is built (one per deferred
/// tool not in the cache) and with one text per `tool_info` query.
///
/// Calls are synchronous: an implementation doing network I/O blocks the
/// calling thread (`tool_info` runs it on a blocking thread when called
/// through a session or agent).
pub trait Embedder: Send + Sync {
    /// Names the model and its settings: vectors cached under one id are
    /// never reused under another. Change it when the vectors change.
    fn id(&self) -> &str;

    /// One vector per text, in order, all of the same length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why embedding failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedError(String);

impl EmbedError {
    /// An error with a message saying what went wrong and what to do.
    pub fn new(message: impl Into<String>) -> Self {
        EmbedError(message.into())
    }
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
