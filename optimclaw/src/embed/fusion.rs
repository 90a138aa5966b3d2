//! How a keyword ranking and a vector ranking become one.

use super::{CosineSpread, STRONG_SPREAD};

/// How keyword and vector rankings are combined. Keep the default
/// ([`Standing`](Self::Standing), 0.5 for vectors standing out by
/// 6 standard deviations, the default of
/// [`SemanticConfig::strong_spread`](super::SemanticConfig::strong_spread): chosen on the dev catalogs of every shape,
/// docs/benchmarks-history.md §2b); try [`Rrf`](Self::Rrf) when your embedder's cosines
/// are on an unusual scale.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
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
    /// The fusion chosen on the dev catalogs (docs/benchmarks-history.md §2b).
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

/// The seats [`SemanticConfig::vector_seats`](super::SemanticConfig::vector_seats)
/// gives by default: two of a five-tool answer.
pub(crate) const VECTOR_SEATS: usize = 2;

/// A fused list of at most `k` (registry index, score), best first, whose
/// last places go to the vector ranking's most confident picks that the
/// fusion left out: of the vectors' first `seats + 1` tools, those not in
/// the fusion's first `k - seats`, at most `seats` of them, in the
/// vectors' order; the fusion's next fill the places that remain. The
/// first place and at least half the list stay the fusion's (no more than
/// `(k - 1) / 2` seats).
///
/// Why: the fused score leans on the keywords, so a tool that only the
/// vectors find (a paraphrase sharing no word) ranks below the keywords'
/// near misses. Its seat puts it in front of the model without moving the
/// fusion's best. Only the vectors' first few qualify: a seat for a tool
/// they rank lower would push out a keyword candidate the request needs
/// as well (a several-step request). On the dev catalogs two seats of five
/// raised hit@5 on five of eight and lowered neither hit@5 nor multi-tool
/// recall on any (docs/benchmarks-history.md §2b).
///
/// `fused` is the fusion's whole list ([`fuse`] with a `k` of the pool),
/// `dense` the vector ranking, best first. A seated tool keeps the score
/// the fusion gave it (0 when `fused` does not hold it), so scores need
/// not fall along the list.
pub fn seat_vectors(
    fused: &[(usize, f32)],
    dense: &[(usize, f32)],
    seats: usize,
    k: usize,
) -> Vec<(usize, f32)> {
    let seats = seats.min(k.saturating_sub(1) / 2);
    let mut out: Vec<(usize, f32)> = fused.iter().take(k - seats).copied().collect();
    let score = |tool: usize| fused.iter().find(|h| h.0 == tool).map_or(0.0, |h| h.1);
    let mut seated = 0;
    for &(tool, _) in dense.iter().take(seats + 1) {
        if seated == seats {
            break;
        }
        if !out.iter().any(|h| h.0 == tool) {
            out.push((tool, score(tool)));
            seated += 1;
        }
    }
    for &hit in fused {
        if out.len() >= k {
            break;
        }
        if !out.iter().any(|h| h.0 == hit.0) {
            out.push(hit);
        }
    }
    out
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
        let weighted = |w: f32| fuse(&lexical, &dense, &spread, Fusion::Weighted { dense: w }, 3);
        assert_eq!(weighted(0.0)[0].0, 1, "keywords alone");
        assert_eq!(weighted(1.0)[0].0, 3, "vectors alone");
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

    #[test]
    fn the_last_seats_go_to_the_vectors_best_the_fusion_left_out() {
        let fused = [(1, 1.0), (2, 0.9), (3, 0.8), (4, 0.7), (5, 0.6), (6, 0.5)];
        // The vectors' best is listed already; 7 and 8 are among their
        // first three, not in the fusion's first three; 9 ranks too low.
        let dense = [(1, 0.9), (7, 0.8), (8, 0.7), (9, 0.6)];
        let tools = |hits: Vec<(usize, f32)>| hits.iter().map(|h| h.0).collect::<Vec<_>>();
        assert_eq!(tools(seat_vectors(&fused, &dense, 2, 5)), [1, 2, 3, 7, 8]);
        // Only one of the vectors' first three is left out: one seat, and
        // the fusion keeps the other place (not 9).
        let one_new = [(1, 0.9), (7, 0.8), (2, 0.7), (9, 0.6)];
        assert_eq!(tools(seat_vectors(&fused, &one_new, 2, 5)), [1, 2, 3, 7, 4]);
        // A seated tool keeps its fused score, 0 without one.
        let seated = seat_vectors(&fused, &dense, 2, 5);
        assert_eq!(seated[3], (7, 0.0));
        // The first place and half the list stay the fusion's.
        assert_eq!(tools(seat_vectors(&fused, &dense, 2, 1)), [1]);
        assert_eq!(tools(seat_vectors(&fused, &dense, 2, 2)), [1, 2]);
        // One seat: the vectors' first two qualify.
        assert_eq!(tools(seat_vectors(&fused, &dense, 2, 3)), [1, 2, 7]);
        assert_eq!(tools(seat_vectors(&fused, &dense, 0, 5)), [1, 2, 3, 4, 5]);
        // Vectors with nothing new: the fusion fills the places.
        assert_eq!(
            tools(seat_vectors(&fused, &[(2, 0.9), (1, 0.8)], 2, 5)),
            [1, 2, 3, 4, 5]
        );
        // Fewer candidates than places: all of them, each once.
        assert_eq!(
            tools(seat_vectors(&fused[..2], &[(2, 0.9), (9, 0.1)], 2, 5)),
            [1, 2, 9]
        );
    }
}
