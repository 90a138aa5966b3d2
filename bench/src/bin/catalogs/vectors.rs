//! Vector search in the catalogs bench (feature `minilm`):
//! `CATALOG_VECTORS=DIR` names the all-MiniLM-L6-v2 folder
//! (`tests/embed/fetch_minilm.sh` fetches it), and every catalog is then
//! searched with keywords and vectors fused, next to the vectors alone.
//! `CATALOG_FUSION` sets the fusion (default the shipped one):
//! `weighted:W` (the vectors' weight W, 0 to 1), `standing:W` (W as far as
//! the vectors' best stands out, whole at `optimclaw_bench::shipped().strong_spread` deviations) or
//! `rrf:K`. `CATALOG_SEATS=N` sets the places given to the vectors' best
//! that the fusion left out (default the shipped `optimclaw_bench::shipped().vector_seats`).

use std::path::Path;
use std::sync::Arc;

use optimclaw::embed::{CosineSpread, EmbeddingCache, Fusion, SemanticConfig, SemanticIndex};
use optimclaw::{Registry, Tool};
use optimclaw_embed::MiniLm;

/// `weighted:W`, `standing:W` or `rrf:K` (`CATALOG_FUSION`).
fn parse_fusion(text: &str) -> Fusion {
    let (kind, number) = text
        .split_once(':')
        .expect("CATALOG_FUSION is weighted:W, standing:W or rrf:K");
    let number: f32 = number.parse().expect("CATALOG_FUSION's number is a number");
    match kind {
        "weighted" => Fusion::Weighted { dense: number },
        "standing" => Fusion::Standing {
            dense: number,
            full: optimclaw_bench::shipped().strong_spread,
        },
        "rrf" => Fusion::Rrf { k: number },
        _ => panic!("CATALOG_FUSION is weighted:W, standing:W or rrf:K, not {text}"),
    }
}

/// The model, its on-disk vector cache and the fusion to use.
pub struct Vectors {
    model: Arc<MiniLm>,
    cache: EmbeddingCache,
    fusion: Fusion,
    seats: usize,
}

/// One query against one catalog's vectors.
pub struct Scored {
    /// Every tool's cosine with the query, best first (registry index).
    pub ranked: Vec<(usize, f32)>,
    /// How the cosines spread over the catalog.
    pub spread: CosineSpread,
}

impl Vectors {
    /// From `CATALOG_VECTORS`, `CATALOG_FUSION` and `CATALOG_SEATS`; `None`
    /// without `CATALOG_VECTORS`.
    pub fn from_env() -> Option<Self> {
        let dir = std::env::var("CATALOG_VECTORS").ok()?;
        let model = MiniLm::from_dir(&dir).expect("CATALOG_VECTORS names the model folder");
        let fusion = std::env::var("CATALOG_FUSION")
            .ok()
            .map_or_else(Fusion::default, |f| parse_fusion(&f));
        Some(Vectors {
            model: Arc::new(model),
            cache: EmbeddingCache::new(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/embed-cache"),
            ),
            fusion,
            seats: std::env::var("CATALOG_SEATS")
                .ok()
                .map_or(optimclaw_bench::shipped().vector_seats, |n| {
                    n.parse().expect("CATALOG_SEATS is a number of places")
                }),
        })
    }

    /// The registry setting: this model, the cache, the fusion, the seats.
    pub fn config(&self) -> SemanticConfig {
        let mut config = SemanticConfig::new(self.model.clone());
        config.cache = Some(self.cache.clone());
        config.fusion = self.fusion;
        config.vector_seats = self.seats;
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
