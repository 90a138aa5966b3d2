//! `tool_info` ranking: BM25F over each tool's name parts, keywords,
//! description, and parameter names and descriptions, with English
//! stemming (Snowball, via `rust-stemmers`), stop words (NLTK's English list,
//! via `stop-words`) and typo tolerance on name parts.
//!
//! The index is built once per registry. Scores for every (term, tool) pair
//! are precomputed, so a query is a few posting-list walks over a dense
//! score array plus a partial sort.

use std::collections::HashSet;

// Fx hashing: the index hashes about a million short words at 10k tools,
// and SipHash's DoS resistance buys nothing for tool text we load ourselves.
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use serde_json::Value;

use crate::tool::Tool;

/// Field weights of BM25F. Names say the most about a tool; parameter
/// descriptions the least.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// Parts of the tool name (`job_create` → `job`, `create`).
    pub name: f32,
    /// `keywords` of the tool.
    pub keywords: f32,
    /// The tool description.
    pub description: f32,
    /// Parameter names.
    pub param_names: f32,
    /// Parameter descriptions.
    pub param_descriptions: f32,
    /// String values of the tool's example calls (low weight: they often
    /// hold the words users type, but also incidental ones).
    pub examples: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            name: 3.0,
            keywords: 2.0,
            description: 1.0,
            param_names: 0.6,
            param_descriptions: 0.8,
            examples: 0.3,
        }
    }
}

const FIELDS: usize = 6;
/// BM25 saturation.
const K1: f32 = 1.2;
/// Length normalisation per field: short fields (names) barely normalised.
const B: [f32; FIELDS] = [0.3, 0.3, 0.75, 0.5, 0.75, 0.75];
/// Weight of a name term reached through a typo correction.
const TYPO_FACTOR: f32 = 0.6;
/// Bonus per share of a tool's name parts that the query mentions.
const NAME_COVERAGE: f32 = 1.5;

fn stop_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        stop_words::lookup("en")
            .unwrap_or_default()
            .iter()
            .copied()
            .collect()
    })
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Splits text into lowercase words at non-alphanumerics and at camelCase
/// boundaries (`getHTTPResponse` → `get`, `http`, `response`).
pub fn split_words(text: &str, mut emit: impl FnMut(&str)) {
    if text.is_ascii() {
        split_ascii(text.as_bytes(), &mut emit);
        return;
    }
    let mut word = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                emit(&word);
                word.clear();
            }
            continue;
        }
        if c.is_uppercase() && !word.is_empty() {
            let prev = chars[i - 1];
            // `HTTPResponse` splits before `R`; `PRs` and `IDs` stay whole.
            let next_word = chars.get(i + 1).is_some_and(|n| n.is_lowercase())
                && chars.get(i + 2).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_word) {
                emit(&word);
                word.clear();
            }
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        emit(&word);
    }
}

/// [`split_words`] for ASCII text, without allocating per text: the index
/// splits about a million words at 10k tools.
fn split_ascii(bytes: &[u8], emit: &mut impl FnMut(&str)) {
    let mut word = String::with_capacity(32);
    for (i, &b) in bytes.iter().enumerate() {
        if !b.is_ascii_alphanumeric() {
            if !word.is_empty() {
                emit(&word);
                word.clear();
            }
            continue;
        }
        if b.is_ascii_uppercase() && !word.is_empty() {
            let prev = bytes[i - 1];
            let next_word = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_lowercase);
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_word)
            {
                emit(&word);
                word.clear();
            }
        }
        word.push(char::from(b.to_ascii_lowercase()));
    }
    if !word.is_empty() {
        emit(&word);
    }
}

/// The search terms of a text: words without stop words, single letters
/// and bare numbers, stemmed.
pub fn analyze(text: &str, out: &mut Vec<String>) {
    let stops = stop_words();
    split_words(text, |w| {
        if w.chars().count() < 2 || stops.contains(w) || w.chars().all(|c| c.is_ascii_digit()) {
            return;
        }
        out.push(stemmer().stem(w).into_owned());
    });
}

/// Every string of `word` with one character removed.
fn deletes(word: &str) -> impl Iterator<Item = String> + '_ {
    word.char_indices().map(move |(i, c)| {
        let mut s = String::with_capacity(word.len());
        s.push_str(&word[..i]);
        s.push_str(&word[i + c.len_utf8()..]);
        s
    })
}

/// A ranked match.
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
    /// How well the tool matched, comparable across queries: `coverage ×
    /// (1 + margin / 2) + name_match`, where the margin is this hit's score
    /// over the next one's (at most 2): standing out from the next hit
    /// counts only as far as the query's words are the tool's. From 0 to 3;
    /// `tool_info` calls a hit strong at [`STRONG_MATCH`] or more.
    pub strength: f32,
}

/// The [`Hit::strength`] from which `tool_info` calls a match strong, and
/// below which its best hit means "no tool matches". Chosen on the
/// no-match set of the bfcl-dev corpus (BENCHMARKS.md): the highest
/// detection of absent tools with at most 3 % of present ones called absent.
pub const STRONG_MATCH: f32 = 0.65;

/// The largest score margin [`Hit::strength`] counts.
const MAX_MARGIN: f32 = 2.0;

/// What narrows a search beyond its keywords.
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
    /// contains, even with a typo corrected.
    pub unmatched: Vec<String>,
}

/// The keyword index over a set of tools.
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
    /// Name terms by id (for verifying typo candidates).
    terms: Vec<String>,
    /// Inverse document frequency by term id.
    idf: Vec<f32>,
    /// The idf of a term no tool has (the rarest possible).
    max_idf: f32,
}

impl SearchIndex {
    /// Indexes `tools` (given with their registry indexes).
    pub fn build<'a>(tools: impl IntoIterator<Item = (usize, &'a Tool)>, weights: Weights) -> Self {
        let w = [
            weights.name,
            weights.keywords,
            weights.description,
            weights.param_names,
            weights.param_descriptions,
            weights.examples,
        ];
        let mut index = SearchIndex::default();
        // Each distinct word is analysed once (stemming is the costly part
        // of indexing): word -> term id, or None for stop words.
        let mut word_terms: HashMap<String, Option<u32>> = HashMap::default();
        let stops = stop_words();
        // Per document: (term, field) occurrences, and field lengths.
        let mut occurrences: Vec<Vec<(u32, u8)>> = Vec::new();
        let mut lengths: Vec<[u32; FIELDS]> = Vec::new();
        for (tool_index, tool) in tools {
            let mut occ: Vec<(u32, u8)> = Vec::new();
            let mut len = [0u32; FIELDS];
            visit_texts(tool, &mut |f, text| {
                split_words(text, |word| {
                    let term = match word_terms.get(word) {
                        Some(t) => *t,
                        None => {
                            let keep = word.chars().count() >= 2
                                && !stops.contains(word)
                                && !word.chars().all(|c| c.is_ascii_digit());
                            let t = keep.then(|| {
                                let stem = stemmer().stem(word).into_owned();
                                let next = u32::try_from(index.vocab.len()).unwrap_or(u32::MAX);
                                *index.vocab.entry(stem).or_insert(next)
                            });
                            word_terms.insert(word.to_owned(), t);
                            t
                        }
                    };
                    if let Some(t) = term {
                        len[f] += 1;
                        occ.push((t, u8::try_from(f).unwrap_or(0)));
                    }
                });
            });
            occ.sort_unstable();
            let mut names: Vec<u32> = occ
                .iter()
                .filter(|(_, f)| *f == 0)
                .map(|(t, _)| *t)
                .collect();
            names.dedup();
            index.name_terms.push(names);
            occurrences.push(occ);
            lengths.push(len);
            index.docs.push(tool_index);
        }
        let n_docs = index.docs.len();
        let mut avg = [0f32; FIELDS];
        for len in &lengths {
            for f in 0..FIELDS {
                avg[f] += len[f] as f32;
            }
        }
        for a in &mut avg {
            *a = (*a / n_docs.max(1) as f32).max(1.0);
        }
        // Combined (weighted, length-normalised) term frequencies; the
        // occurrences are sorted by term, so each term is one run.
        let mut wtf: Vec<Vec<(u32, f32)>> = vec![Vec::new(); index.vocab.len()];
        for (d, occ) in occurrences.iter().enumerate() {
            let norm: [f32; FIELDS] =
                std::array::from_fn(|f| 1.0 - B[f] + B[f] * lengths[d][f] as f32 / avg[f]);
            let doc = u32::try_from(d).unwrap_or(u32::MAX);
            for run in occ.chunk_by(|a, b| a.0 == b.0) {
                let v: f32 = run
                    .iter()
                    .map(|(_, f)| w[*f as usize] / norm[*f as usize])
                    .sum();
                wtf[run[0].0 as usize].push((doc, v));
            }
        }
        index.max_idf = (1.0 + (n_docs as f32 + 0.5) / 0.5).ln();
        let mut idfs = Vec::with_capacity(wtf.len());
        index.postings = wtf
            .into_iter()
            .map(|mut list| {
                let df = list.len() as f32;
                let idf = (1.0 + (n_docs as f32 - df + 0.5) / (df + 0.5)).ln();
                idfs.push(idf);
                for (_, v) in &mut list {
                    *v = idf * *v * (K1 + 1.0) / (*v + K1);
                }
                list.sort_unstable_by_key(|(d, _)| *d);
                list
            })
            .collect();
        // Typo tolerance over name terms only: they are what models misspell.
        let mut terms = vec![String::new(); index.vocab.len()];
        for (term, &id) in &index.vocab {
            terms[id as usize].clone_from(term);
        }
        let name_ids: HashSet<u32> = index.name_terms.iter().flatten().copied().collect();
        for &id in &name_ids {
            let term = &terms[id as usize];
            if term.chars().count() < 4 {
                continue;
            }
            index.typo.entry(term.clone()).or_default().push(id);
            for d in deletes(term) {
                index.typo.entry(d).or_default().push(id);
            }
        }
        for ids in index.typo.values_mut() {
            ids.sort_unstable();
            ids.dedup();
        }
        index.terms = terms;
        index.idf = idfs;
        index
    }

    /// The number of indexed tools.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Name terms within a small edit distance of an unknown query term.
    fn corrections(&self, term: &str) -> Vec<u32> {
        let len = term.chars().count();
        if len < 4 {
            return Vec::new();
        }
        let max = if len >= 8 { 2 } else { 1 };
        let mut found: Vec<u32> = Vec::new();
        let mut consider = |ids: Option<&Vec<u32>>| {
            for &id in ids.into_iter().flatten() {
                if !found.contains(&id)
                    && strsim::osa_distance(term, &self.terms[id as usize]) <= max
                {
                    found.push(id);
                }
            }
        };
        consider(self.typo.get(term));
        for d in deletes(term) {
            consider(self.typo.get(&d));
        }
        found
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

        let mut terms = Vec::new();
        analyze(query, &mut terms);
        terms.sort_unstable();
        terms.dedup();
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
                    })
                    .collect();
            }
            return ranking;
        }
        let mut scores = vec![0f32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut matched_terms: Vec<(u32, f32)> = Vec::new();
        // Per query term: its weight, and the (term id, factor) that stand
        // for it in the index (itself, or typo corrections).
        let mut query_terms: Vec<(f32, Vec<(u32, f32)>)> = Vec::new();
        for term in &terms {
            let found: Vec<(u32, f32)> = match self.vocab.get(term) {
                Some(&id) => vec![(id, 1.0)],
                None => self
                    .corrections(term)
                    .into_iter()
                    .map(|id| (id, TYPO_FACTOR))
                    .collect(),
            };
            let weight = match self.vocab.get(term) {
                Some(&id) => self.idf[id as usize],
                None => self.max_idf,
            };
            matched_terms.extend(found.iter().copied());
            query_terms.push((weight, found));
        }
        let total_weight: f32 = query_terms.iter().map(|(w, _)| w).sum();
        for &(id, factor) in &matched_terms {
            for &(d, s) in &self.postings[id as usize] {
                if scores[d as usize] == 0.0 {
                    if narrowed && !allowed(d) {
                        continue;
                    }
                    touched.push(d);
                }
                scores[d as usize] += s * factor;
            }
        }
        // The words of the query no tool within the constraints has.
        let reached = |ids: &[(u32, f32)]| {
            ids.iter().any(|&(id, _)| {
                self.postings[id as usize]
                    .iter()
                    .any(|&(d, _)| !narrowed || allowed(d))
            })
        };
        for word in query.split_whitespace() {
            let mut word_terms = Vec::new();
            analyze(word, &mut word_terms);
            let unmatched = !word_terms.is_empty()
                && word_terms.iter().all(|t| {
                    terms
                        .binary_search(t)
                        .is_ok_and(|i| !reached(&query_terms[i].1))
                });
            if unmatched && !ranking.unmatched.iter().any(|u| u == word) {
                ranking.unmatched.push(word.to_owned());
            }
        }
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
                let coverage = self.coverage(d, &query_terms, total_weight);
                let name_match = name_match(d);
                let margin = next_scores.get(i).map_or(MAX_MARGIN, |next| {
                    (score / next.max(f32::EPSILON)).min(MAX_MARGIN)
                });
                Hit {
                    tool: self.docs[d as usize],
                    score,
                    coverage,
                    name_match,
                    strength: coverage * (1.0 + margin / 2.0) + name_match,
                }
            })
            .collect();
        ranking
    }

    /// The weighted share of `query_terms` document `d` contains.
    fn coverage(&self, d: u32, query_terms: &[(f32, Vec<(u32, f32)>)], total: f32) -> f32 {
        if total <= 0.0 {
            return 0.0;
        }
        let has = |id: u32| {
            self.postings[id as usize]
                .binary_search_by_key(&d, |(doc, _)| *doc)
                .is_ok()
        };
        let matched: f32 = query_terms
            .iter()
            .map(|(weight, ids)| {
                ids.iter()
                    .filter(|(id, _)| has(*id))
                    .map(|(_, factor)| weight * factor)
                    .fold(0.0, f32::max)
            })
            .sum();
        (matched / total).clamp(0.0, 1.0)
    }
}

/// Calls `visit(field, text)` for each searchable text of a tool: name (0),
/// keywords (1), description (2), parameter names (3) and descriptions (4).
/// Nothing is copied: indexing 10k tools visits a million words.
fn visit_texts(tool: &Tool, visit: &mut impl FnMut(usize, &str)) {
    visit(0, tool.name());
    for k in tool.keywords() {
        visit(1, k);
    }
    visit(2, tool.description());
    visit_params(tool.input_schema(), visit, 0);
    for example in tool.examples() {
        visit_strings(example, visit, 0);
    }
}

/// The string values of an example call (not its keys: those are the
/// parameter names, indexed already), a few levels deep.
fn visit_strings(value: &Value, visit: &mut impl FnMut(usize, &str), depth: usize) {
    if depth > 3 {
        return;
    }
    match value {
        Value::String(s) => visit(5, s),
        Value::Array(items) => items
            .iter()
            .for_each(|v| visit_strings(v, visit, depth + 1)),
        Value::Object(map) => map
            .values()
            .for_each(|v| visit_strings(v, visit, depth + 1)),
        _ => {}
    }
}

/// Parameter names and descriptions, including nested objects' (a few
/// levels deep; enough for real schemas, bounded for hostile ones).
fn visit_params(schema: &Value, visit: &mut impl FnMut(usize, &str), depth: usize) {
    if depth > 3 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            visit(3, name);
            if let Some(d) = prop.get("description").and_then(Value::as_str) {
                visit(4, d);
            }
            visit_params(prop, visit, depth + 1);
            if let Some(items) = prop.get("items") {
                visit_params(items, visit, depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_words(text, |w| out.push(w.to_owned()));
        out
    }

    #[test]
    fn splits_names_of_every_style() {
        assert_eq!(words("job_create"), ["job", "create"]);
        assert_eq!(words("jobCreate"), ["job", "create"]);
        assert_eq!(words("job-create"), ["job", "create"]);
        assert_eq!(words("getHTTPResponse"), ["get", "http", "response"]);
        assert_eq!(words("github__list_PRs"), ["github", "list", "prs"]);
        assert_eq!(words("userIDs"), ["user", "ids"]);
        assert_eq!(words("sha256 base64"), ["sha256", "base64"]);
    }

    #[test]
    fn analysis_stems_and_drops_stop_words() {
        let mut out = Vec::new();
        analyze("Creating the jobs of 12 users", &mut out);
        assert_eq!(out, ["creat", "job", "user"]);
    }
}
