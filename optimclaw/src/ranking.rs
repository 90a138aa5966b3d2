//! The one ranking behind [`Registry::search`] and `tool_info`: keyword
//! search (BM25F) within the constraints, fused with vector search when the
//! registry has an embedder, each hit judged strong or weak.

use crate::embed::FusedHit;
use crate::registry::Registry;
use crate::rerank::{self, Candidate, RerankConfig};
use crate::scope::ToolScope;
use crate::search::Constraints;

/// A ranked tool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ranked {
    /// Registry index.
    pub(crate) tool: usize,
    /// Whether it matched well: keyword strength at [`Registry::strong_match`] or
    /// more; with vectors, keyword strength or standardized cosine at the
    /// thresholds of
    /// [`SemanticConfig`](crate::embed::SemanticConfig).
    pub(crate) strong: bool,
}

/// What a ranking found.
#[derive(Debug, Default)]
pub(crate) struct Ranking {
    /// Best first.
    pub(crate) hits: Vec<Ranked>,
    /// Query words no tool in reach has.
    pub(crate) unmatched: Vec<String>,
    /// The constraints alone listed the tools (no search terms).
    pub(crate) listed: bool,
    /// The query was searched by part of its terms.
    pub(crate) shortened: bool,
    /// Vector search was configured but failed for this query (keyword
    /// results only).
    pub(crate) semantic_error: Option<String>,
    /// Reranking was configured but failed for this query (first-stage
    /// results only).
    pub(crate) rerank_error: Option<String>,
}

impl Registry {
    /// The tools a made-up name's words match strongly (`md5` →
    /// `hash_text`, `folder_create` → `make_dir`), best first: keyword
    /// search for the name's words, hits at
    /// [`strong_match`](Registry::strong_match) or more. What an unknown
    /// name suggests when no name is spelled like it.
    pub(crate) fn names_for_words(&self, name: &str, n: usize, scope: &ToolScope) -> Vec<&str> {
        let words = name.replace(['_', '-', '.', '/'], " ");
        let tools = self.tools();
        let keep = |i: usize| scope.allows(tools[i].name());
        let constraints = Constraints {
            keep: (!scope.is_all()).then_some(&keep as &dyn Fn(usize) -> bool),
            ..Constraints::default()
        };
        self.search_index()
            .search_with(&words, n, &constraints)
            .hits
            .into_iter()
            .filter(|h| h.score > 0.0 && h.strength >= self.strong_match())
            .map(|h| tools[h.tool].name())
            .collect()
    }

    /// Ranks the deferred tools for `keywords` within `constraints`: the
    /// first stage, then the reranker when the registry has one.
    pub(crate) fn rank(&self, keywords: &str, k: usize, constraints: &Constraints<'_>) -> Ranking {
        let rerank = self.reranker();
        let want = rerank.map_or(k, |r| r.candidates.max(k));
        let mut ranking = self.first_stage(keywords, want, constraints);
        if let Some(config) = rerank.filter(|_| !ranking.listed && !ranking.hits.is_empty()) {
            self.rerank_stage(keywords, &mut ranking, config);
        }
        ranking.hits.truncate(k);
        ranking
    }

    /// Reorders and judges the best candidates again with the reranker;
    /// on failure keeps the first stage and notes why.
    fn rerank_stage(&self, keywords: &str, ranking: &mut Ranking, config: &RerankConfig) {
        let n = config.candidates.min(ranking.hits.len());
        let tools = self.tools();
        let candidates: Vec<Candidate<'_>> = ranking.hits[..n]
            .iter()
            .map(|h| Candidate {
                name: tools[h.tool].name(),
                description: tools[h.tool].description(),
            })
            .collect();
        match config.reranker.rerank(keywords, &candidates) {
            Ok(reranked) => {
                let pairs: Vec<(usize, bool)> = ranking.hits[..n]
                    .iter()
                    .map(|h| (h.tool, h.strong))
                    .collect();
                let judged = rerank::apply(&pairs, &reranked, config.strong_score);
                for (slot, (tool, strong)) in ranking.hits.iter_mut().zip(judged) {
                    *slot = Ranked { tool, strong };
                }
                // Past the candidates, nothing the reranker saw: weak when
                // it picks (it judged the better ones).
                if reranked.fits.is_some() {
                    for h in &mut ranking.hits[n..] {
                        h.strong = false;
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "reranking failed; first-stage results only");
                ranking.rerank_error = Some(e.to_string());
            }
        }
    }

    /// The first stage: keywords, fused with vectors when configured.
    fn first_stage(&self, keywords: &str, k: usize, constraints: &Constraints<'_>) -> Ranking {
        let semantic = self.semantic();
        let pool = semantic.map_or(k, |s| s.config.pool.max(k));
        let lexical = self.search_index().search_with(keywords, pool, constraints);
        let listed = lexical.hits.first().is_some_and(|h| h.score == 0.0);
        let mut ranking = Ranking {
            unmatched: lexical.unmatched,
            listed,
            shortened: lexical.shortened,
            ..Ranking::default()
        };
        let keyword_only = |hits: &[crate::search::Hit]| {
            hits.iter()
                .take(k)
                .map(|h| Ranked {
                    tool: h.tool,
                    strong: !listed && h.strength >= self.strong_match(),
                })
                .collect()
        };
        let Some(semantic) = semantic.filter(|_| !listed && !keywords.trim().is_empty()) else {
            ranking.hits = keyword_only(&lexical.hits);
            return ranking;
        };
        // A required word no tool has leaves nothing for vectors either.
        if constraints
            .required
            .iter()
            .any(|w| ranking.unmatched.contains(w))
        {
            return ranking;
        }
        let query = match semantic.embed_query(keywords) {
            Ok(query) => query,
            Err(e) => {
                tracing::warn!(error = %e, "vector search failed; keyword results only");
                ranking.semantic_error = Some(e.to_string());
                ranking.hits = keyword_only(&lexical.hits);
                return ranking;
            }
        };
        let index = self.search_index();
        let keep = |tool: usize| {
            constraints.keep.is_none_or(|keep| keep(tool))
                && constraints.required.iter().all(|w| index.mentions(tool, w))
                && !constraints.excluded.iter().any(|w| index.mentions(tool, w))
        };
        let triples: Vec<(usize, f32, f32)> = lexical
            .hits
            .iter()
            .map(|h| (h.tool, h.score, h.strength))
            .collect();
        let strong_keywords = semantic.config.strong_keywords;
        let (fused, matched) = semantic.fuse(&triples, &query, k, &keep);
        ranking.hits = fused
            .into_iter()
            .enumerate()
            .map(
                |(
                    i,
                    FusedHit {
                        tool,
                        strength,
                        stands_out,
                    },
                )| Ranked {
                    tool,
                    // Whether the catalog has a match is the query's
                    // question, judged on each ranking's best as without
                    // vectors: the fused ranking's first is strong exactly
                    // when it has one (else a strong keyword hit put
                    // second by the fusion would read "no match"); the
                    // others by their own signals.
                    strong: if i == 0 {
                        matched
                    } else {
                        strength >= strong_keywords || stands_out
                    },
                },
            )
            .collect();
        ranking
    }
}
