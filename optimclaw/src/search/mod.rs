//! `tool_info` ranking: BM25F over each tool's name parts, keywords,
//! description, and parameter names and descriptions, with English
//! stemming (Snowball, via `rust-stemmers`), stop words (NLTK's English list,
//! via `stop-words`) and typo tolerance on name parts.
//!
//! The index is built once per registry. Scores for every (term, tool) pair
//! are precomputed, so a query is a few posting-list walks over a dense
//! score array plus a partial sort.
//!
//! Files: `mod.rs` (the index and its queries: constraints, a hit's
//! strength), `build.rs` (indexing a catalog), `text.rs` (words to terms),
//! `cjk.rs` (Chinese, Japanese and Korean as overlapping character pairs),
//! `terms.rs` (a query's terms), `fields.rs` (which texts of a tool go in
//! which field), `near.rs` (typos and other forms of an unknown word),
//! `forms.rs` (the query's own word preferred over another form of its
//! stem), `strength.rs` (a hit's signals), `weights.rs` (the fields' weights).

// Fx hashing: the index hashes about a million short words at 10k tools,
// and SipHash's DoS resistance buys nothing for tool text we load ourselves.
use rustc_hash::FxHashMap as HashMap;

mod build;
mod cjk;
mod fields;
mod forms;
mod near;
mod strength;
mod terms;
mod text;
mod weights;

pub use strength::Signals;
pub use terms::MAX_QUERY_TERMS;
use terms::QueryTerms;

pub use text::{MAX_WORD_CHARS, analyze, split_words};
pub use weights::Weights;

const FIELDS: usize = 7;
/// BM25 saturation.
const K1: f32 = 1.2;
/// Length normalisation per field: short fields (names) barely normalised.
const B: [f32; FIELDS] = [0.3, 0.3, 0.75, 0.5, 0.75, 0.75, 0.75];
/// Weight of a name term reached through a typo correction.
const TYPO_FACTOR: f32 = 0.6;
/// Bonus per share of a tool's name parts that the query mentions.
const NAME_COVERAGE: f32 = 1.5;

/// A ranked match, as [`SearchIndex::search`] returns it. Use
/// [`strength`](Self::strength), not [`score`](Self::score), to judge
/// whether a hit is good enough: only strength compares across queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Index of the tool in the registry's tool list.
    pub tool: usize,
    /// Relevance; higher is better. Comparable within one query only.
    pub score: f32,
    /// The share of the query this tool matched, from 0 to 1: the query's
    /// terms weighted by how rare they are in the catalog (a term no tool
    /// has counts as the rarest), matched ones over all. Comparable across
    /// queries: what `tool_info`'s match strength is read from.
    pub coverage: f32,
    /// The share of the tool's name words the query contains, from 0 to 1.
    pub name_match: f32,
    /// How well the tool matched, from 0 to 1, on one scale for every
    /// catalog and query shape ([`Signals::strength`]); `tool_info` calls a
    /// hit strong at [`Registry::strong_match`](crate::Registry::strong_match) or more.
    pub strength: f32,
    /// What the strength is read from.
    pub signals: Signals,
}

/// The default [`Hit::strength`] from which `tool_info` calls a match
/// strong, and below which its best hit means "no tool matches"
/// ([`RegistryBuilder::strong_match`](crate::RegistryBuilder::strong_match)). Chosen with the
/// weights of [`Signals::strength`] on eight dev catalogs of different
/// shapes (`bash bench/catalogs.sh`, docs/benchmarks-history.md §2c): at most 5 % of
/// the requests that have a tool called "no match" on every one of them.
pub(crate) const STRONG_MATCH: f32 = 0.12;

/// The largest margin [`Signals::margin`] reports.
const MAX_SIGNAL_MARGIN: f32 = 4.0;

/// What narrows a search beyond its keywords: `tool_info`'s `+word`,
/// `-word` and scope, for [`SearchIndex::search_with`].
#[derive(Clone, Copy, Default)]
pub struct Constraints<'a> {
    /// Words every hit must contain (analysed like the query: stemmed).
    pub required: &'a [String],
    /// Words no hit may contain.
    pub excluded: &'a [String],
    /// Only the tools (by registry index) for which this returns `true`.
    pub keep: Option<&'a dyn Fn(usize) -> bool>,
}

/// The answer of [`SearchIndex::search_with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranking {
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// Words of the query (as given) that no tool within the constraints
    /// contains, even with a typo corrected (at most 10).
    pub unmatched: Vec<String>,
    /// The query had more than [`MAX_QUERY_TERMS`] distinct terms and was
    /// searched by its rarest ones.
    pub shortened: bool,
}

/// The keyword index over a set of tools. Every [`Registry`](crate::Registry)
/// builds one (see [`Registry::search_index`](crate::Registry::search_index));
/// use it directly to rank tools without going through `tool_info`.
///
/// ```
/// use optimclaw::{DynamicTool, Registry, ToolKind};
/// use serde_json::json;
///
/// let tool = |name: &str, description: &str| {
///     DynamicTool::new(name, description, json!({"type": "object"})).kind(ToolKind::Deferred)
/// };
/// let registry = Registry::builder()
///     .without_linked()
///     .tools([
///         tool("weather_forecast", "Weather forecast for a city."),
///         tool("stock_price", "Latest price of a stock."),
///     ])
///     .build()?;
/// let hits = registry.search_index().search("forecast for Paris", 5);
/// assert_eq!(registry.tools()[hits[0].tool].name(), "weather_forecast");
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// Registry index of each document.
    docs: Vec<usize>,
    vocab: HashMap<String, u32>,
    /// Per term: (document, precomputed BM25F partial score).
    postings: Vec<Vec<(u32, f32)>>,
    /// Per document: its distinct name terms.
    name_terms: Vec<Vec<u32>>,
    /// One-deletion neighbourhood of name terms, for typo tolerance.
    typo: HashMap<String, Vec<u32>>,
    /// Terms by id (for verifying typo candidates).
    terms: Vec<String>,
    /// Term ids in the order of their text (for inflections).
    sorted: Vec<u32>,
    /// Inverse document frequency by term id.
    idf: Vec<f32>,
    /// Per term: its highest score in any one tool.
    best: Vec<f32>,
    /// The idf of a term no tool has (the rarest possible).
    max_idf: f32,
    /// Which tools hold which written form of terms written several ways.
    forms: forms::Forms,
}

impl SearchIndex {
    /// The number of indexed tools.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Whether the tool (by registry index) contains every term of `word`
    /// (as analysed for search); `false` for a tool not in the index.
    pub fn mentions(&self, tool: usize, word: &str) -> bool {
        let Ok(d) = self.docs.binary_search(&tool) else {
            return false;
        };
        let mut terms = Vec::new();
        analyze(word, &mut terms);
        !terms.is_empty()
            && terms.iter().all(|t| {
                self.vocab.get(t).is_some_and(|&id| {
                    self.postings[id as usize]
                        .binary_search_by_key(&(d as u32), |(doc, _)| *doc)
                        .is_ok()
                })
            })
    }

    /// The best `k` tools for a keyword query, best first. Ties break by
    /// registry order (tool name), so results are deterministic.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        self.search_with(query, k, &Constraints::default()).hits
    }

    /// [`search`](Self::search) within `constraints`: only tools that pass
    /// them are ranked. A query without search terms lists the tools that
    /// pass (in registry order) when the constraints narrow the catalog,
    /// and nothing otherwise.
    pub fn search_with(&self, query: &str, k: usize, constraints: &Constraints<'_>) -> Ranking {
        let mut ranking = Ranking::default();
        if k == 0 || self.docs.is_empty() {
            return ranking;
        }
        // Term sets of the required and excluded words; a required word no
        // tool has leaves nothing to find.
        let term_ids = |word: &str| -> Option<Vec<u32>> {
            let mut terms = Vec::new();
            analyze(word, &mut terms);
            terms.iter().map(|t| self.vocab.get(t).copied()).collect()
        };
        let mut required: Vec<Vec<u32>> = Vec::new();
        for word in constraints.required {
            match term_ids(word) {
                Some(ids) => required.push(ids),
                None => {
                    ranking.unmatched.push(word.clone());
                    return ranking;
                }
            }
        }
        let excluded: Vec<u32> = constraints
            .excluded
            .iter()
            .filter_map(|w| term_ids(w))
            .flatten()
            .collect();
        let narrowed = constraints.keep.is_some() || !required.is_empty() || !excluded.is_empty();
        let has = |id: u32, d: u32| {
            self.postings[id as usize]
                .binary_search_by_key(&d, |(doc, _)| *doc)
                .is_ok()
        };
        let allowed = |d: u32| {
            constraints
                .keep
                .is_none_or(|keep| keep(self.docs[d as usize]))
                && required.iter().all(|ids| ids.iter().all(|&id| has(id, d)))
                && !excluded.iter().any(|&id| has(id, d))
        };

        let QueryTerms {
            terms,
            shortened,
            words,
        } = self.query_terms(query);
        ranking.shortened = shortened;
        if terms.is_empty() {
            if narrowed {
                let mut listed: Vec<u32> = (0..self.docs.len() as u32)
                    .filter(|&d| allowed(d))
                    .collect();
                listed.sort_by_key(|&d| self.docs[d as usize]);
                listed.truncate(k);
                ranking.hits = listed
                    .into_iter()
                    .map(|d| Hit {
                        tool: self.docs[d as usize],
                        score: 0.0,
                        coverage: 0.0,
                        name_match: 0.0,
                        strength: 0.0,
                        signals: Signals::default(),
                    })
                    .collect();
            }
            return ranking;
        }
        let mut scores = vec![0f32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut matched_terms: Vec<(u32, f32)> = Vec::new();
        // Per matched term: the tools holding the query's own word of it,
        // when the catalog writes it several ways (`forms.rs`).
        let mut holding: Vec<Option<std::borrow::Cow<'_, [u32]>>> = Vec::new();
        // Per query term: its weight, and the (term id, factor) that stand
        // for it in the index (itself, or typo corrections).
        let mut query_terms: Vec<(f32, Vec<(u32, f32)>)> = Vec::new();
        for term in &terms {
            let (found, weight): (Vec<(u32, f32)>, f32) = match self.vocab.get(term) {
                Some(&id) => {
                    let written = words.get(term).map_or(&[][..], Vec::as_slice);
                    holding.push(self.forms.holding(id, written));
                    (vec![(id, 1.0)], self.idf[id as usize])
                }
                None => {
                    // A typo correction is another word: no form of it
                    // was written.
                    let written = words.get(term).map_or(&[][..], Vec::as_slice);
                    let corrected: Vec<(u32, f32)> = self
                        .corrections(term, written)
                        .into_iter()
                        .map(|id| (id, TYPO_FACTOR))
                        .collect();
                    holding.extend(corrected.iter().map(|_| None));
                    (corrected, self.max_idf)
                }
            };
            matched_terms.extend(found.iter().copied());
            query_terms.push((weight, found));
        }
        let total_weight: f32 = query_terms.iter().map(|(w, _)| w).sum();
        for (&(id, factor), holding) in matched_terms.iter().zip(&holding) {
            let mut form = forms::FormFactors::new(holding.as_deref());
            for &(d, s) in &self.postings[id as usize] {
                // Walked for every posting, allowed or not: it advances in
                // step with the (sorted) postings.
                let form = form.of(d);
                if scores[d as usize] == 0.0 {
                    if narrowed && !allowed(d) {
                        continue;
                    }
                    touched.push(d);
                }
                scores[d as usize] += s * factor * form;
            }
        }
        // The terms of the query no tool within the constraints has.
        let reached = |ids: &[(u32, f32)]| {
            ids.iter().any(|&(id, _)| {
                self.postings[id as usize]
                    .iter()
                    .any(|&(d, _)| !narrowed || allowed(d))
            })
        };
        let reachable: Vec<bool> = query_terms.iter().map(|(_, ids)| reached(ids)).collect();
        let unreached: Vec<String> = terms
            .iter()
            .zip(&reachable)
            .filter(|(_, r)| !**r)
            .map(|(t, _)| t.clone())
            .collect();
        let unmatched = SearchIndex::unmatched_words(query, &unreached);
        // Content words no tool holds: not a stop word in any language; and
        // of those, the ones that are no data the request carries.
        let content: Vec<_> = unmatched
            .iter()
            .filter(|u| !text::any_language_stop_words().contains(u.word.to_lowercase().as_str()))
            .collect();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let unmatched_words = count(content.len());
        let unmatched_asking = count(content.iter().filter(|u| !u.data).count());
        ranking.unmatched = unmatched.into_iter().map(|u| u.word).collect();
        // The best the query's words could score in this catalog: each
        // reachable word's highest score in any one tool.
        let attainable: f32 = query_terms
            .iter()
            .zip(&reachable)
            .filter(|(_, r)| **r)
            .map(|((_, ids), _)| {
                ids.iter()
                    .map(|&(id, f)| self.best[id as usize] * f)
                    .fold(0.0, f32::max)
            })
            .sum();
        // Name coverage: a query that names most parts of a tool's name
        // points at that tool.
        let name_match = |d: u32| {
            let names = &self.name_terms[d as usize];
            if names.is_empty() {
                return 0.0;
            }
            let covered = names
                .iter()
                .filter(|t| matched_terms.iter().any(|(m, _)| m == *t))
                .count();
            covered as f32 / names.len() as f32
        };
        for &d in &touched {
            scores[d as usize] += NAME_COVERAGE * name_match(d);
        }
        let cmp = |a: &u32, b: &u32| {
            scores[*b as usize]
                .total_cmp(&scores[*a as usize])
                .then_with(|| self.docs[*a as usize].cmp(&self.docs[*b as usize]))
        };
        // One more than asked: the last hit's margin needs the next score.
        if touched.len() > k + 1 {
            touched.select_nth_unstable_by(k, cmp);
            touched.truncate(k + 1);
        }
        touched.sort_unstable_by(cmp);
        let next_scores: Vec<f32> = touched
            .iter()
            .skip(1)
            .map(|&d| scores[d as usize])
            .collect();
        touched.truncate(k);
        ranking.hits = touched
            .into_iter()
            .enumerate()
            .map(|(i, d)| {
                let score = scores[d as usize];
                let (coverage, matched_words) = self.coverage(d, &query_terms, total_weight);
                let name_match = name_match(d);
                // The words' part of the score, without the name bonus.
                let own = score - NAME_COVERAGE * name_match;
                let signals = Signals {
                    share: if attainable > 0.0 {
                        (own / attainable).clamp(0.0, 1.0)
                    } else {
                        0.0
                    },
                    margin: next_scores.get(i).map_or(MAX_SIGNAL_MARGIN, |next| {
                        (score / next.max(f32::EPSILON)).min(MAX_SIGNAL_MARGIN)
                    }),
                    evidence: own / self.max_idf.max(f32::EPSILON),
                    name_match,
                    matched_words,
                    unmatched_words,
                    unmatched_asking,
                };
                Hit {
                    tool: self.docs[d as usize],
                    score,
                    coverage,
                    name_match,
                    strength: signals.strength(coverage),
                    signals,
                }
            })
            .collect();
        ranking
    }

    /// The weighted share of `query_terms` document `d` contains, and how
    /// many of them it contains.
    fn coverage(&self, d: u32, query_terms: &[(f32, Vec<(u32, f32)>)], total: f32) -> (f32, u32) {
        let has = |id: u32| {
            self.postings[id as usize]
                .binary_search_by_key(&d, |(doc, _)| *doc)
                .is_ok()
        };
        let (mut matched, mut words) = (0.0_f32, 0_u32);
        for (weight, ids) in query_terms {
            let best = ids
                .iter()
                .filter(|(id, _)| has(*id))
                .map(|(_, factor)| weight * factor)
                .fold(None, |best: Option<f32>, w| {
                    Some(best.map_or(w, |b| b.max(w)))
                });
            if let Some(best) = best {
                matched += best;
                words += 1;
            }
        }
        if total <= 0.0 {
            return (0.0, words);
        }
        ((matched / total).clamp(0.0, 1.0), words)
    }
}
