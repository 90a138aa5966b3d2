//! Vector search in the catalogs bench (feature `minilm`):
//! `CATALOG_VECTORS=DIR` names the all-MiniLM-L6-v2 folder
//! (`tests/embed/fetch_minilm.sh` fetches it), and every catalog is then
//! searched with keywords and vectors fused, next to the vectors alone.
//! `CATALOG_FUSION=W` sets the vectors' weight in the fusion (0 to 1;
//! default the shipped fusion).

use std::path::Path;
use std::sync::Arc;

use optimclaw::embed::{
    CosineSpread, EmbeddingCache, Fusion, MiniLm, SemanticConfig, SemanticIndex,
};
use optimclaw::{Registry, Tool};

/// The model, its on-disk vector cache and the fusion to use.
pub struct Vectors {
    model: Arc<MiniLm>,
    cache: EmbeddingCache,
    fusion: Fusion,
}

/// One query against one catalog's vectors.
pub struct Scored {
    /// Every tool's cosine with the query, best first (registry index).
    pub ranked: Vec<(usize, f32)>,
    /// How the cosines spread over the catalog.
    pub spread: CosineSpread,
}

impl Vectors {
    /// From `CATALOG_VECTORS` and `CATALOG_FUSION`; `None` without them.
    pub fn from_env() -> Option<Self> {
        let dir = std::env::var("CATALOG_VECTORS").ok()?;
        let model = MiniLm::from_dir(&dir).expect("CATALOG_VECTORS names the model folder");
        let fusion = std::env::var("CATALOG_FUSION")
            .ok()
            .map_or_else(Fusion::default, |w| Fusion::Weighted {
                dense: w.parse().expect("CATALOG_FUSION is a weight from 0 to 1"),
            });
        Some(Vectors {
            model: Arc::new(model),
            cache: EmbeddingCache::new(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/embed-cache"),
            ),
            fusion,
        })
    }

    /// The registry setting: this model, the cache, the fusion.
    pub fn config(&self) -> SemanticConfig {
        let mut config = SemanticConfig::new(self.model.clone());
        config.cache = Some(self.cache.clone());
        config.fusion = self.fusion;
        config
    }

    /// The vectors of a registry's deferred tools (as the registry embeds
    /// them).
    pub fn index(&self, registry: &Registry) -> SemanticIndex {
        let tools: &[Tool] = registry.tools();
        SemanticIndex::build(
            self.model.as_ref(),
            tools.iter().enumerate().filter(|(_, t)| !t.is_core()),
            Some(&self.cache),
        )
        .expect("the catalog embeds")
    }

    /// `query` against `index`.
    pub fn score(&self, index: &SemanticIndex, query: &str) -> Scored {
        let (mut vectors, _) = self
            .cache
            .embed_all(self.model.as_ref(), &[query])
            .expect("the query embeds");
        let vector = vectors.pop().expect("one vector");
        let (ranked, spread) = index.rank_and_spread(&vector, index.len(), None);
        Scored { ranked, spread }
    }
}
