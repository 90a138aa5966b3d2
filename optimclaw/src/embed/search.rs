//! Semantic search as a registry holds it: the embedder (for queries), the
//! catalog's vectors, the fusion and the thresholds of a strong match.

use std::fmt;
use std::sync::Arc;

use super::{
    EmbedError, Embedder, EmbeddingCache, Fusion, STRONG_SPREAD, SemanticIndex, VECTOR_SEATS, fuse,
    seat_vectors,
};
use crate::tool::Tool;

/// Candidates each ranking hands to the fusion.
pub(crate) const POOL: usize = 50;

/// How a registry searches with vectors
/// ([`RegistryBuilder::embedder`](crate::RegistryBuilder::embedder)). Give
/// one to [`RegistryBuilder::semantic`](crate::RegistryBuilder::semantic)
/// to change the fusion, the cache folder or the thresholds. The vector
/// threshold is in standard deviations of the query's own cosines, so it
/// carries over to other embedders; `bench/catalogs.sh` with
/// `CATALOG_VECTORS` prints its curve on every dev catalog. See
/// [`Embedder`](super::Embedder) for an example.
#[derive(Clone)]
#[non_exhaustive]
pub struct SemanticConfig {
    /// Embeds tools and queries.
    pub embedder: Arc<dyn Embedder>,
    /// Where tool vectors are kept between runs; `None`: nowhere.
    pub cache: Option<EmbeddingCache>,
    /// How the two rankings combine.
    pub fusion: Fusion,
    /// The last places of an answer that go to the vector ranking's best
    /// tools the fusion left out ([`seat_vectors`]; at most
    /// `(max_results - 1) / 2`); 0 keeps the fused order alone.
    pub vector_seats: usize,
    /// A hit is strong when its keyword strength ([`Hit::strength`])
    /// reaches this…
    ///
    /// [`Hit::strength`]: crate::search::Hit::strength
    pub strong_keywords: f32,
    /// …or its cosine with the query stands this many standard deviations
    /// above the query's mean cosine over the catalog (in a catalog too
    /// small for that, 90 % of the most it could: [`CosineSpread`]).
    /// Measured in the query's own spread, not in cosines, so it holds for
    /// any embedder and catalog; chosen on the dev catalogs of every shape
    /// (docs/benchmarks-history.md §2b).
    ///
    /// [`CosineSpread`]: super::CosineSpread
    pub strong_spread: f32,
    /// How many hits of each ranking the fusion sees (default 50, or
    /// `max_results` when larger).
    pub pool: usize,
}

impl SemanticConfig {
    /// Sets [`embedder`](Self::embedder).
    #[must_use]
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = embedder;
        self
    }

    /// Sets [`cache`](Self::cache) (`None`: vectors are kept nowhere).
    #[must_use]
    pub fn with_cache(mut self, cache: Option<EmbeddingCache>) -> Self {
        self.cache = cache;
        self
    }

    /// Sets [`fusion`](Self::fusion).
    #[must_use]
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// Sets [`vector_seats`](Self::vector_seats).
    #[must_use]
    pub fn with_vector_seats(mut self, vector_seats: usize) -> Self {
        self.vector_seats = vector_seats;
        self
    }

    /// Sets [`strong_keywords`](Self::strong_keywords).
    #[must_use]
    pub fn with_strong_keywords(mut self, strong_keywords: f32) -> Self {
        self.strong_keywords = strong_keywords;
        self
    }

    /// Sets [`strong_spread`](Self::strong_spread).
    #[must_use]
    pub fn with_strong_spread(mut self, strong_spread: f32) -> Self {
        self.strong_spread = strong_spread;
        self
    }

    /// Sets [`pool`](Self::pool).
    #[must_use]
    pub fn with_pool(mut self, pool: usize) -> Self {
        self.pool = pool;
        self
    }
}

impl SemanticConfig {
    /// `embedder` with the default fusion, threshold and cache folder
    /// ([`EmbeddingCache::default_dir`]).
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        SemanticConfig {
            embedder,
            cache: EmbeddingCache::default_dir().map(EmbeddingCache::new),
            fusion: Fusion::default(),
            vector_seats: VECTOR_SEATS,
            strong_keywords: STRONG_KEYWORDS,
            strong_spread: STRONG_SPREAD,
            pool: POOL,
        }
    }
}

impl fmt::Debug for SemanticConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemanticConfig")
            .field("embedder", &self.embedder.id())
            .field("cache", &self.cache)
            .field("fusion", &self.fusion)
            .field("vector_seats", &self.vector_seats)
            .field("strong_keywords", &self.strong_keywords)
            .field("strong_spread", &self.strong_spread)
            .finish()
    }
}

/// The default of [`SemanticConfig::strong_keywords`]: the keyword
/// threshold of searches without vectors.
pub(crate) const STRONG_KEYWORDS: f32 = crate::search::STRONG_MATCH;

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
    /// Its cosine stands out among the query's cosines by
    /// [`SemanticConfig::strong_spread`] (false when the vector ranking did
    /// not return it).
    pub(crate) stands_out: bool,
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
    /// of `query` among the tools `keep` accepts; at most `k`, best first,
    /// the last [`SemanticConfig::vector_seats`] given to the vectors' best
    /// that the fusion left out, and whether the query matched the catalog
    /// at all: some tool's keyword strength or standardized cosine reaches
    /// its threshold.
    pub(crate) fn fuse(
        &self,
        lexical: &[(usize, f32, f32)],
        query: &[f32],
        k: usize,
        keep: &dyn Fn(usize) -> bool,
    ) -> (Vec<FusedHit>, bool) {
        let (dense, spread) =
            self.index
                .rank_and_spread(query, self.config.pool.max(k), Some(keep));
        let z = self.config.strong_spread;
        // As without vectors, the keyword ranking's best judges the
        // keywords; the vector ranking's best, the vectors.
        let matched = lexical
            .first()
            .is_some_and(|h| h.2 >= self.config.strong_keywords)
            || dense.first().is_some_and(|h| spread.stands_out(h.1, z));
        let pairs: Vec<(usize, f32)> = lexical.iter().map(|h| (h.0, h.1)).collect();
        let fused = fuse(
            &pairs,
            &dense,
            &spread,
            self.config.fusion,
            self.config.pool.max(k),
        );
        let hits = seat_vectors(&fused, &dense, self.config.vector_seats, k)
            .into_iter()
            .map(|(tool, _)| FusedHit {
                tool,
                strength: lexical.iter().find(|h| h.0 == tool).map_or(0.0, |h| h.2),
                stands_out: dense
                    .iter()
                    .find(|h| h.0 == tool)
                    .is_some_and(|h| spread.stands_out(h.1, z)),
            })
            .collect();
        (hits, matched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Never called: `fuse` takes the query's vector as given.
    struct Unused;

    impl Embedder for Unused {
        fn id(&self) -> &str {
            "unused"
        }

        fn embed(&self, _: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            Err(EmbedError::new("not called"))
        }
    }

    fn search() -> SemanticSearch {
        let index = SemanticIndex::from_vectors(
            vec![0, 1, 2],
            vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![0.7, 0.7]],
        )
        .unwrap();
        SemanticSearch {
            config: SemanticConfig::new(Arc::new(Unused)),
            index,
        }
    }

    #[test]
    fn the_match_is_judged_on_each_rankings_best_not_on_the_fused_first() {
        let all = |_: usize| true;
        // Tool 0 is the keyword ranking's strong best; the vectors put
        // tool 1 first after fusion.
        let lexical = [(0, 10.0, 0.5), (1, 6.0, 0.01)];
        let (hits, matched) = search().fuse(&lexical, &[1.0, 0.0], 3, &all);
        assert_eq!(hits[0].tool, 1, "{hits:?}");
        assert!(hits[0].strength < STRONG_KEYWORDS);
        assert!(
            matched,
            "the keyword match holds whatever the fusion put first"
        );
        // Keywords weak, and in three tools no cosine stands out enough.
        let weak = [(0, 10.0, 0.05), (1, 6.0, 0.01)];
        let (_, matched) = search().fuse(&weak, &[1.0, 0.0], 3, &all);
        assert!(!matched);
    }
}
