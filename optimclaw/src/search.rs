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
        index.postings = wtf
            .into_iter()
            .map(|mut list| {
                let df = list.len() as f32;
                let idf = (1.0 + (n_docs as f32 - df + 0.5) / (df + 0.5)).ln();
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

    /// The best `k` tools for a keyword query, best first. Ties break by
    /// registry order (tool name), so results are deterministic.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        if k == 0 || self.docs.is_empty() {
            return Vec::new();
        }
        let mut terms = Vec::new();
        analyze(query, &mut terms);
        terms.sort_unstable();
        terms.dedup();
        let mut scores = vec![0f32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut matched_terms: Vec<(u32, f32)> = Vec::new();
        for term in &terms {
            match self.vocab.get(term) {
                Some(&id) => matched_terms.push((id, 1.0)),
                None => matched_terms.extend(
                    self.corrections(term)
                        .into_iter()
                        .map(|id| (id, TYPO_FACTOR)),
                ),
            }
        }
        for &(id, factor) in &matched_terms {
            for &(d, s) in &self.postings[id as usize] {
                if scores[d as usize] == 0.0 {
                    touched.push(d);
                }
                scores[d as usize] += s * factor;
            }
        }
        // Name coverage: a query that names most parts of a tool's name
        // points at that tool.
        for &d in &touched {
            let names = &self.name_terms[d as usize];
            if names.is_empty() {
                continue;
            }
            let covered = names
                .iter()
                .filter(|t| matched_terms.iter().any(|(m, _)| m == *t))
                .count();
            scores[d as usize] += NAME_COVERAGE * covered as f32 / names.len() as f32;
        }
        let cmp = |a: &u32, b: &u32| {
            scores[*b as usize]
                .total_cmp(&scores[*a as usize])
                .then_with(|| self.docs[*a as usize].cmp(&self.docs[*b as usize]))
        };
        if touched.len() > k {
            touched.select_nth_unstable_by(k - 1, cmp);
            touched.truncate(k);
        }
        touched.sort_unstable_by(cmp);
        touched
            .into_iter()
            .map(|d| Hit {
                tool: self.docs[d as usize],
                score: scores[d as usize],
            })
            .collect()
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
