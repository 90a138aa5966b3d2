//! The vectors of a catalog, ranking by cosine similarity, and the fusion
//! of that ranking with keyword search.

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
        if query.len() != self.dim || self.dim == 0 || k == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let mut scored: Vec<(usize, f32)> = self
            .docs
            .iter()
            .zip(self.vectors.chunks_exact(self.dim))
            .filter(|(doc, _)| keep.is_none_or(|keep| keep(**doc)))
            .map(|(&doc, v)| (doc, v.iter().zip(&q).map(|(a, b)| a * b).sum()))
            .collect();
        let cmp = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, cmp);
            scored.truncate(k);
        }
        scored.sort_unstable_by(cmp);
        scored
    }
}

/// How keyword and vector rankings are combined. Keep the default
/// (weighted, 0.4 for vectors: the best on bfcl-dev, BENCHMARKS.md §2b);
/// try [`Rrf`](Self::Rrf) when your embedder's cosines are on an unusual
/// scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fusion {
    /// Reciprocal rank fusion: `Σ 1 / (k + rank)` over both lists.
    Rrf {
        /// The rank offset (60 in the original paper).
        k: f32,
    },
    /// A weighted sum of scores scaled to 0..1 within each list: the
    /// keyword score over the best keyword score, the cosine between the
    /// list's lowest and highest; `dense` is the vector side's weight.
    Weighted {
        /// Weight of the vector ranking, 0 to 1.
        dense: f32,
    },
}

impl Default for Fusion {
    /// The fusion chosen on bfcl-dev (BENCHMARKS.md).
    fn default() -> Self {
        Fusion::Weighted { dense: 0.4 }
    }
}

/// Fuses a keyword ranking and a vector ranking, both `(registry index,
/// score)` best first, into one of at most `k`, best first. A tool in one
/// list only gets nothing from the other.
pub fn fuse(
    lexical: &[(usize, f32)],
    dense: &[(usize, f32)],
    fusion: Fusion,
    k: usize,
) -> Vec<(usize, f32)> {
    let mut fused: Vec<(usize, f32)> = Vec::with_capacity(lexical.len() + dense.len());
    let mut add = |tool: usize, score: f32| match fused.iter_mut().find(|(t, _)| *t == tool) {
        Some((_, s)) => *s += score,
        None => fused.push((tool, score)),
    };
    match fusion {
        Fusion::Rrf { k: offset } => {
            for list in [lexical, dense] {
                for (rank, &(tool, _)) in list.iter().enumerate() {
                    add(tool, 1.0 / (offset + rank as f32 + 1.0));
                }
            }
        }
        Fusion::Weighted { dense: weight } => {
            let weight = weight.clamp(0.0, 1.0);
            let top = lexical.iter().map(|h| h.1).fold(0.0, f32::max);
            if top > 0.0 {
                for &(tool, score) in lexical {
                    add(tool, (1.0 - weight) * score / top);
                }
            }
            let hi = dense.iter().map(|h| h.1).fold(f32::MIN, f32::max);
            let lo = dense.iter().map(|h| h.1).fold(f32::MAX, f32::min);
            let span = (hi - lo).max(1e-6);
            for &(tool, cos) in dense {
                add(tool, weight * (cos - lo) / span);
            }
        }
    }
    fused.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(k);
    fused
}

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
    fn fusion_combines_both_lists() {
        let lexical = [(1, 10.0), (2, 5.0)];
        let dense = [(3, 0.9), (1, 0.5), (2, 0.1)];
        let rrf = fuse(&lexical, &dense, Fusion::Rrf { k: 60.0 }, 3);
        assert_eq!(rrf[0].0, 1, "first in one list, second in the other");
        let lex_only = fuse(&lexical, &dense, Fusion::Weighted { dense: 0.0 }, 3);
        assert_eq!(lex_only[0].0, 1);
        let dense_only = fuse(&lexical, &dense, Fusion::Weighted { dense: 1.0 }, 3);
        assert_eq!(dense_only[0].0, 3);
        assert_eq!(fuse(&lexical, &dense, Fusion::default(), 1).len(), 1);
    }
}
