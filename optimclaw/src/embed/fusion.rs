//! How a keyword ranking and a vector ranking become one.

use super::{CosineSpread, STRONG_SPREAD};

/// How keyword and vector rankings are combined. Keep the default
/// ([`Standing`](Self::Standing), 0.5 for vectors standing out by
/// [`STRONG_SPREAD`]: chosen on the dev catalogs of every shape,
/// BENCHMARKS.md §2b); try [`Rrf`](Self::Rrf) when your embedder's cosines
/// are on an unusual scale.
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
    /// [`Weighted`](Self::Weighted), with the vectors' weight scaled by how
    /// far the vector ranking's best stands out in the query's own spread:
    /// nothing at the mean cosine, `dense` from `full` standard deviations
    /// on (in a catalog too small for that, from the most it allows:
    /// [`CosineSpread::threshold`]). An embedder that reads a several-step
    /// request as one average of its topics finds no tool standing out,
    /// and the keywords keep their order; a paraphrase whose tool stands
    /// far out gets the vectors' whole say.
    Standing {
        /// Weight of the vector ranking when its best stands out by `full`.
        dense: f32,
        /// Standard deviations at which the vectors get their whole weight.
        full: f32,
    },
}

impl Default for Fusion {
    /// The fusion chosen on the dev catalogs (BENCHMARKS.md §2b).
    fn default() -> Self {
        Fusion::Standing {
            dense: 0.5,
            full: STRONG_SPREAD,
        }
    }
}

/// Fuses a keyword ranking and a vector ranking, both `(registry index,
/// score)` best first, into one of at most `k`, best first. A tool in one
/// list only gets nothing from the other. `spread` is how the query's
/// cosines spread over the catalog ([`SemanticIndex::rank_and_spread`](super::SemanticIndex::rank_and_spread)),
/// which [`Fusion::Standing`] reads.
pub fn fuse(
    lexical: &[(usize, f32)],
    dense: &[(usize, f32)],
    spread: &CosineSpread,
    fusion: Fusion,
    k: usize,
) -> Vec<(usize, f32)> {
    let mut fused: Vec<(usize, f32)> = Vec::with_capacity(lexical.len() + dense.len());
    let mut add = |tool: usize, score: f32| match fused.iter_mut().find(|(t, _)| *t == tool) {
        Some((_, s)) => *s += score,
        None => fused.push((tool, score)),
    };
    let weight = match fusion {
        Fusion::Rrf { k: offset } => {
            for list in [lexical, dense] {
                for (rank, &(tool, _)) in list.iter().enumerate() {
                    add(tool, 1.0 / (offset + rank as f32 + 1.0));
                }
            }
            None
        }
        Fusion::Weighted { dense } => Some(dense),
        Fusion::Standing {
            dense: weight,
            full,
        } => Some(weight * spread.standing(dense.first().map(|h| h.1), full)),
    };
    if let Some(weight) = weight.map(|w| w.clamp(0.0, 1.0)) {
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
    fused.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused.truncate(k);
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_combines_both_lists() {
        let lexical = [(1, 10.0), (2, 5.0)];
        let dense = [(3, 0.9), (1, 0.5), (2, 0.1)];
        let spread = CosineSpread::default();
        let rrf = fuse(&lexical, &dense, &spread, Fusion::Rrf { k: 60.0 }, 3);
        assert_eq!(rrf[0].0, 1, "first in one list, second in the other");
        let lex_only = fuse(
            &lexical,
            &dense,
            &spread,
            Fusion::Weighted { dense: 0.0 },
            3,
        );
        assert_eq!(lex_only[0].0, 1);
        let dense_only = fuse(
            &lexical,
            &dense,
            &spread,
            Fusion::Weighted { dense: 1.0 },
            3,
        );
        assert_eq!(dense_only[0].0, 3);
        assert_eq!(
            fuse(&lexical, &dense, &spread, Fusion::default(), 1).len(),
            1
        );
    }

    #[test]
    fn standing_fusion_weighs_the_vectors_by_how_far_their_best_stands_out() {
        let lexical = [(1, 10.0), (2, 5.0)];
        let dense = [(3, 0.9), (1, 0.5), (2, 0.1)];
        let standing = Fusion::Standing {
            dense: 1.0,
            full: 6.0,
        };
        let order = |spread: CosineSpread, fusion: Fusion| -> Vec<usize> {
            fuse(&lexical, &dense, &spread, fusion, 3)
                .iter()
                .map(|h| h.0)
                .collect()
        };
        // 0.9 stands 14 deviations out: the vectors' whole weight.
        let far = CosineSpread {
            mean: 0.2,
            sd: 0.05,
            count: 500,
        };
        assert_eq!(
            order(far, standing),
            order(far, Fusion::Weighted { dense: 1.0 })
        );
        assert_eq!(order(far, standing)[0], 3);
        // Three deviations: half of it.
        let half = CosineSpread {
            mean: 0.6,
            sd: 0.1,
            count: 500,
        };
        let halved = fuse(&lexical, &dense, &half, standing, 3);
        let weighted = fuse(&lexical, &dense, &half, Fusion::Weighted { dense: 0.5 }, 3);
        assert!(
            halved
                .iter()
                .zip(&weighted)
                .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-5),
            "{halved:?} against {weighted:?}"
        );
        // Half a deviation: the keywords keep their order.
        let near = CosineSpread {
            mean: 0.85,
            sd: 0.1,
            count: 500,
        };
        assert_eq!(order(near, standing)[..2], [1, 2]);
        // No spread (or a catalog of one): the vectors add nothing.
        for flat in [
            CosineSpread::default(),
            CosineSpread {
                mean: 0.9,
                sd: 0.0,
                count: 1,
            },
        ] {
            assert_eq!(
                fuse(&lexical, &dense, &flat, standing, 3),
                fuse(&lexical, &dense, &flat, Fusion::Weighted { dense: 0.0 }, 3)
            );
        }
    }
}
