//! Semantic search as a registry holds it: the embedder (for queries), the
//! catalog's vectors, the fusion and the thresholds of a strong match.

use std::fmt;
use std::sync::Arc;

use super::{EmbedError, Embedder, EmbeddingCache, Fusion, SemanticIndex, fuse};
use crate::tool::Tool;

/// Candidates each ranking hands to the fusion.
pub const POOL: usize = 50;

/// How a registry searches with vectors
/// ([`RegistryBuilder::embedder`](crate::RegistryBuilder::embedder)). Give
/// one to [`RegistryBuilder::semantic`](crate::RegistryBuilder::semantic)
/// to change the fusion, the cache folder or the thresholds (those must be
/// re-chosen for another model than all-MiniLM-L6-v2: `bash
/// bench/semantic.sh` prints the curve). See [`Embedder`](super::Embedder)
/// for an example.
#[derive(Clone)]
pub struct SemanticConfig {
    /// Embeds tools and queries.
    pub embedder: Arc<dyn Embedder>,
    /// Where tool vectors are kept between runs; `None`: nowhere.
    pub cache: Option<EmbeddingCache>,
    /// How the two rankings combine.
    pub fusion: Fusion,
    /// A hit is strong when its keyword strength ([`Hit::strength`])
    /// reaches this…
    ///
    /// [`Hit::strength`]: crate::search::Hit::strength
    pub strong_keywords: f32,
    /// …or its cosine with the query reaches this. Both chosen for
    /// all-MiniLM-L6-v2 on bfcl-dev (BENCHMARKS.md: the most "no match"
    /// detected with at most 3 % false alarms); other models have other
    /// scales.
    pub strong_cosine: f32,
}

impl SemanticConfig {
    /// `embedder` with the default fusion, threshold and cache folder
    /// ([`EmbeddingCache::default_dir`]).
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        SemanticConfig {
            embedder,
            cache: EmbeddingCache::default_dir().map(EmbeddingCache::new),
            fusion: Fusion::default(),
            strong_keywords: STRONG_KEYWORDS,
            strong_cosine: STRONG_COSINE,
        }
    }
}

impl fmt::Debug for SemanticConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemanticConfig")
            .field("embedder", &self.embedder.id())
            .field("cache", &self.cache)
            .field("fusion", &self.fusion)
            .field("strong_keywords", &self.strong_keywords)
            .field("strong_cosine", &self.strong_cosine)
            .finish()
    }
}

/// The default of [`SemanticConfig::strong_keywords`]: the keyword
/// threshold of searches without vectors.
pub const STRONG_KEYWORDS: f32 = crate::search::STRONG_MATCH;
/// The default of [`SemanticConfig::strong_cosine`].
pub const STRONG_COSINE: f32 = 0.45;

/// A registry's semantic search: configuration plus the catalog's vectors.
pub(crate) struct SemanticSearch {
    pub(crate) config: SemanticConfig,
    pub(crate) index: SemanticIndex,
}

/// One fused hit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedHit {
    pub(crate) tool: usize,
    /// Keyword strength (0 when keyword search did not return the tool).
    pub(crate) strength: f32,
    /// Cosine with the query (0 when the vector ranking did not return it).
    pub(crate) cosine: f32,
}

impl SemanticSearch {
    /// Embeds `tools` (the deferred ones, with their registry indexes).
    pub(crate) fn build<'a>(
        config: SemanticConfig,
        tools: impl IntoIterator<Item = (usize, &'a Tool)>,
    ) -> Result<Self, EmbedError> {
        let index = SemanticIndex::build(config.embedder.as_ref(), tools, config.cache.as_ref())?;
        Ok(SemanticSearch { config, index })
    }

    /// The query's vector.
    pub(crate) fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.config.embedder.embed(&[query])?;
        vectors
            .pop()
            .filter(|v| v.len() == self.index.dim())
            .ok_or_else(|| {
                EmbedError::new(format!(
                    "the embedder returned no vector of length {} for the query",
                    self.index.dim()
                ))
            })
    }

    /// Fuses keyword hits `(tool, score, strength)` with the vector ranking
    /// of `query` among the tools `keep` accepts; at most `k`, best first.
    pub(crate) fn fuse(
        &self,
        lexical: &[(usize, f32, f32)],
        query: &[f32],
        k: usize,
        keep: &dyn Fn(usize) -> bool,
    ) -> Vec<FusedHit> {
        let dense = self.index.rank(query, POOL.max(k), Some(keep));
        let pairs: Vec<(usize, f32)> = lexical.iter().map(|h| (h.0, h.1)).collect();
        fuse(&pairs, &dense, self.config.fusion, k)
            .into_iter()
            .map(|(tool, _)| FusedHit {
                tool,
                strength: lexical.iter().find(|h| h.0 == tool).map_or(0.0, |h| h.2),
                cosine: dense.iter().find(|h| h.0 == tool).map_or(0.0, |h| h.1),
            })
            .collect()
    }
}
