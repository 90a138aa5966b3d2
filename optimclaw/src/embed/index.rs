//! The vectors of a catalog, ranking by cosine similarity, and how a
//! query's cosines spread over the catalog.

use super::{EmbedError, Embedder, EmbeddingCache, cache::check_shape, normalize};
use crate::tool::Tool;

/// The text a tool is embedded as: its name as words, then its
/// description (`github__create_issue` → `github create issue: Create…`).
pub fn tool_text(tool: &Tool) -> String {
    let words: Vec<&str> = tool
        .name()
        .split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    format!("{}: {}", words.join(" "), tool.description())
}

/// Unit vectors of a set of tools, searched by brute-force cosine (a few
/// milliseconds at 10k tools of 384 dimensions: no approximate index
/// needed at catalog sizes). A registry builds its own; build one yourself
/// to rank tools by meaning outside `tool_info` (or to measure an
/// embedder, as the `semantic` bench does).
#[derive(Clone, Debug, Default)]
pub struct SemanticIndex {
    /// Registry index of each row.
    docs: Vec<usize>,
    dim: usize,
    /// Row-major, `docs.len() × dim`.
    vectors: Vec<f32>,
}

impl SemanticIndex {
    /// Embeds `tools` (given with their registry indexes), through `cache`
    /// when given.
    pub fn build<'a>(
        embedder: &dyn Embedder,
        tools: impl IntoIterator<Item = (usize, &'a Tool)>,
        cache: Option<&EmbeddingCache>,
    ) -> Result<Self, EmbedError> {
        let (docs, texts): (Vec<usize>, Vec<String>) =
            tools.into_iter().map(|(i, t)| (i, tool_text(t))).unzip();
        if docs.is_empty() {
            return Ok(SemanticIndex::default());
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = match cache {
            Some(cache) => cache.embed_all(embedder, &refs)?.0,
            None => {
                let v = embedder.embed(&refs)?;
                check_shape(&v, refs.len(), None)?;
                v
            }
        };
        Self::from_vectors(docs, vectors)
    }

    /// An index of given vectors (normalised here), one per registry index.
    pub fn from_vectors(docs: Vec<usize>, vectors: Vec<Vec<f32>>) -> Result<Self, EmbedError> {
        check_shape(&vectors, docs.len(), None)?;
        let dim = vectors[0].len();
        let mut flat = Vec::with_capacity(docs.len() * dim);
        for mut v in vectors {
            normalize(&mut v);
            flat.extend_from_slice(&v);
        }
        Ok(SemanticIndex {
            docs,
            dim,
            vectors: flat,
        })
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The (unit) vector of a tool, by registry index.
    pub fn vector(&self, tool: usize) -> Option<&[f32]> {
        let row = self.docs.binary_search(&tool).ok()?;
        self.vectors.get(row * self.dim..(row + 1) * self.dim)
    }

    /// The vector length.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The `k` tools most similar to `query` (registry index, cosine), best
    /// first, among those `keep` accepts. A query of the wrong length finds
    /// nothing.
    pub fn rank(
        &self,
        query: &[f32],
        k: usize,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> Vec<(usize, f32)> {
        if k == 0 {
            return Vec::new();
        }
        top(self.cosines(query, keep), k)
    }

    /// How `query`'s cosines with the tools `keep` accepts spread (see
    /// [`CosineSpread`]). A query of the wrong length spreads nowhere.
    pub fn spread(&self, query: &[f32], keep: Option<&dyn Fn(usize) -> bool>) -> CosineSpread {
        CosineSpread::of(&self.cosines(query, keep))
    }

    /// [`rank`](Self::rank) and [`spread`](Self::spread) from one pass
    /// over the vectors (what a registry's search needs per query).
    pub fn rank_and_spread(
        &self,
        query: &[f32],
        k: usize,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> (Vec<(usize, f32)>, CosineSpread) {
        let all = self.cosines(query, keep);
        let spread = CosineSpread::of(&all);
        (top(all, k), spread)
    }

    /// `query`'s cosine with each tool `keep` accepts (registry index,
    /// cosine), in index order; none for a query of the wrong length.
    fn cosines(&self, query: &[f32], keep: Option<&dyn Fn(usize) -> bool>) -> Vec<(usize, f32)> {
        if query.len() != self.dim || self.dim == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        self.docs
            .iter()
            .zip(self.vectors.chunks_exact(self.dim))
            .filter(|(doc, _)| keep.is_none_or(|keep| keep(**doc)))
            .map(|(&doc, v)| (doc, v.iter().zip(&q).map(|(a, b)| a * b).sum()))
            .collect()
    }
}

/// The best `k` of `scored`, best first (ties by registry index).
fn top(mut scored: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    if k == 0 {
        return Vec::new();
    }
    let cmp = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, cmp);
        scored.truncate(k);
    }
    scored.sort_unstable_by(cmp);
    scored
}

/// How a query's cosines spread over a catalog: their mean and standard
/// deviation. A cosine's distance from the mean in standard deviations
/// ([`standardize`](Self::standardize)) says how far a tool stands out for
/// this query in this catalog, on a scale that does not depend on the
/// embedder (models differ in their cosines' range: one's 0.45 is
/// another's 0.8) nor on how alike the catalog's tools are.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CosineSpread {
    /// The mean cosine.
    pub mean: f32,
    /// The standard deviation of the cosines (0 for fewer than two).
    pub sd: f32,
    /// How many cosines.
    pub count: usize,
}

/// The share of the most a cosine can stand out in a small catalog that
/// counts as standing out there ([`CosineSpread::threshold`]).
const SMALL_CATALOG_SHARE: f32 = 0.9;

impl CosineSpread {
    /// The spread of `cosines` (registry index, cosine).
    fn of(cosines: &[(usize, f32)]) -> Self {
        let count = cosines.len();
        if count == 0 {
            return CosineSpread::default();
        }
        let n = count as f64;
        let mean = cosines.iter().map(|c| f64::from(c.1)).sum::<f64>() / n;
        let var = cosines
            .iter()
            .map(|c| (f64::from(c.1) - mean).powi(2))
            .sum::<f64>()
            / n;
        CosineSpread {
            mean: mean as f32,
            sd: if count < 2 { 0.0 } else { var.sqrt() as f32 },
            count,
        }
    }

    /// The standardized cosine that stands out, for a wanted `z`: `z`
    /// itself, or in a catalog too small for it 90 % of the most any
    /// cosine can stand out there (among `n` cosines none is more than
    /// `√(n − 1)` standard deviations above the mean, so a catalog of 10
    /// tools could never reach 4).
    pub fn threshold(&self, z: f32) -> f32 {
        let most = (self.count.saturating_sub(1) as f32).sqrt();
        z.min(SMALL_CATALOG_SHARE * most)
    }

    /// Whether `cosine` stands out by `z` ([`threshold`](Self::threshold));
    /// never when the cosines do not spread.
    pub fn stands_out(&self, cosine: f32, z: f32) -> bool {
        self.sd > 1e-6 && self.standardize(cosine) >= self.threshold(z)
    }

    /// How far `cosine` stands out, as a share of standing out by `z`
    /// ([`threshold`](Self::threshold)): 0 at or below the mean, 1 from
    /// the threshold on; 0 without a cosine, without spread or in a
    /// catalog of one.
    pub fn standing(&self, cosine: Option<f32>, z: f32) -> f32 {
        let whole = self.threshold(z);
        match cosine {
            Some(cos) if self.sd > 1e-6 && whole > 0.0 => {
                (self.standardize(cos) / whole).clamp(0.0, 1.0)
            }
            _ => 0.0,
        }
    }

    /// `cosine` in standard deviations above the mean (0 when the cosines
    /// do not spread).
    pub fn standardize(&self, cosine: f32) -> f32 {
        if self.sd > 1e-6 {
            (cosine - self.mean) / self.sd
        } else {
            0.0
        }
    }
}

/// How far (in standard deviations of the query's cosines) a tool must
/// stand out to be a strong vector match: the default of
/// [`SemanticConfig::strong_spread`](super::SemanticConfig::strong_spread),
/// and where [`Fusion::Standing`](super::Fusion::Standing) gives the vectors their whole weight.
pub(crate) const STRONG_SPREAD: f32 = 6.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_ranks_and_filters() {
        let index = SemanticIndex::from_vectors(
            vec![10, 11, 12],
            vec![vec![1.0, 0.0], vec![0.7, 0.7], vec![0.0, 3.0]],
        )
        .unwrap();
        let top = index.rank(&[2.0, 0.1], 2, None);
        assert_eq!(top.iter().map(|h| h.0).collect::<Vec<_>>(), [10, 11]);
        assert!((top[0].1 - 0.9988).abs() < 1e-3, "{top:?}");
        let keep = |i: usize| i != 10;
        assert_eq!(index.rank(&[1.0, 0.0], 1, Some(&keep))[0].0, 11);
        assert!(index.rank(&[1.0, 0.0, 0.0], 3, None).is_empty());
    }

    #[test]
    fn cosines_spread_by_mean_and_deviation() {
        let index = SemanticIndex::from_vectors(
            vec![0, 1, 2, 3],
            vec![
                vec![1.0, 0.0],
                vec![0.0, 1.0],
                vec![0.0, 1.0],
                vec![-1.0, 0.0],
            ],
        )
        .unwrap();
        // Cosines 1, 0, 0, -1: mean 0, deviation sqrt(1/2).
        let spread = index.spread(&[3.0, 0.0], None);
        assert!(spread.mean.abs() < 1e-6 && (spread.sd - 0.5f32.sqrt()).abs() < 1e-6);
        assert!((spread.standardize(1.0) - 2.0f32.sqrt()).abs() < 1e-5);
        // The same direction scaled: the same spread (it is the cosines').
        assert_eq!(index.spread(&[0.5, 0.0], None), spread);
        let keep = |i: usize| i < 2;
        let two = index.spread(&[1.0, 0.0], Some(&keep));
        assert!((two.mean - 0.5).abs() < 1e-6 && (two.sd - 0.5).abs() < 1e-6);
        assert_eq!(index.spread(&[1.0], None), CosineSpread::default());
        let flat = CosineSpread {
            mean: 0.3,
            sd: 0.0,
            count: 40,
        };
        assert_eq!(flat.standardize(0.9), 0.0);
        assert!(!flat.stands_out(0.9, 1.0), "no spread, nothing stands out");
        // Four tools: at most sqrt(3) deviations; 90 % of that counts.
        assert_eq!(spread.count, 4);
        assert!((spread.threshold(4.0) - 0.9 * 3f32.sqrt()).abs() < 1e-6);
        assert!(!spread.stands_out(1.0, 4.0), "-1 stands as far below");
        let lone = SemanticIndex::from_vectors(
            vec![0, 1, 2, 3],
            vec![
                vec![1.0, 0.0],
                vec![0.0, 1.0],
                vec![0.0, 1.0],
                vec![0.0, 1.0],
            ],
        )
        .unwrap()
        .spread(&[1.0, 0.0], None);
        assert!(
            lone.stands_out(1.0, 4.0),
            "the lone match of four stands out"
        );
        assert!(!lone.stands_out(0.0, 4.0));
        let big = CosineSpread {
            mean: 0.2,
            sd: 0.05,
            count: 500,
        };
        assert_eq!(big.threshold(4.0), 4.0);
        assert!(big.stands_out(0.41, 4.0) && !big.stands_out(0.39, 4.0));
    }
}
