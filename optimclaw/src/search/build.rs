//! Indexing a catalog: every (term, tool) score precomputed, the name
//! terms' deletion neighbourhood for typo tolerance, IDF by term.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;

use super::fields::visit_texts;
use super::forms::Forms;
use super::text::{deletes, is_term, split_words, stemmer};
use super::{B, FIELDS, K1, SearchIndex, Weights};
use crate::tool::Tool;

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
            weights.asks,
        ];
        let mut index = SearchIndex::default();
        // Each distinct word is analysed once (stemming is the costly part
        // of indexing): word -> (term id, word id), or None for stop words.
        let mut word_terms: HashMap<String, Option<(u32, u32)>> = HashMap::default();
        // Per document: (term, field, word) occurrences, and field lengths.
        let mut occurrences: Vec<Vec<(u32, u8, u32)>> = Vec::new();
        let mut lengths: Vec<[f32; FIELDS]> = Vec::new();
        for (tool_index, tool) in tools {
            let mut occ: Vec<(u32, u8, u32)> = Vec::new();
            let mut len = [0f32; FIELDS];
            visit_texts(tool, &mut |f, text| {
                split_words(text, |word| {
                    let term = match word_terms.get(word) {
                        Some(t) => *t,
                        None => {
                            let keep = is_term(word);
                            let t = keep.then(|| {
                                let stem = stemmer().stem(word).into_owned();
                                let next = u32::try_from(index.vocab.len()).unwrap_or(u32::MAX);
                                let term = *index.vocab.entry(stem).or_insert(next);
                                let id = u32::try_from(word_terms.len()).unwrap_or(u32::MAX);
                                (term, id)
                            });
                            word_terms.insert(word.to_owned(), t);
                            t
                        }
                    };
                    if let Some((t, w)) = term {
                        len[f] += super::cjk::length_of(word);
                        occ.push((t, u8::try_from(f).unwrap_or(0), w));
                    }
                });
            });
            occ.sort_unstable();
            let mut names: Vec<u32> = occ
                .iter()
                .filter(|(_, f, _)| *f == 0)
                .map(|(t, _, _)| *t)
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
                avg[f] += len[f];
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
                std::array::from_fn(|f| 1.0 - B[f] + B[f] * lengths[d][f] / avg[f]);
            let doc = u32::try_from(d).unwrap_or(u32::MAX);
            for run in occ.chunk_by(|a, b| a.0 == b.0) {
                let v: f32 = run
                    .iter()
                    .map(|(_, f, _)| w[*f as usize] / norm[*f as usize])
                    .sum();
                wtf[run[0].0 as usize].push((doc, v));
            }
        }
        // A word no tool has weighs as much as the rarest word a catalog can
        // hold (one tool's), not more: BM25's idf of a word in no document
        // grows without bound against the others in small catalogs (one
        // tool: ln 4 against ln 4/3), which made any extra word of a query
        // drown the words that did match.
        index.max_idf = (1.0 + (n_docs as f32 - 0.5) / 1.5).ln();
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
        index.best = index
            .postings
            .iter()
            .map(|list| list.iter().map(|(_, s)| *s).fold(0.0, f32::max))
            .collect();
        // Every term in order, for the inflections of a query word.
        let mut sorted: Vec<u32> = (0..terms.len() as u32).collect();
        sorted.sort_unstable_by(|a, b| terms[*a as usize].cmp(&terms[*b as usize]));
        index.sorted = sorted;
        index.forms = Forms::build(index.vocab.len(), &word_terms, &occurrences);
        index.terms = terms;
        index.idf = idfs;
        index
    }
}
