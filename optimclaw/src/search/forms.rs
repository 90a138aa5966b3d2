//! The words as written behind a stem. Stemming lets `encode` find
//! `encodes`, but it also makes `times` (as in "6 times 7") the same term as
//! `time`. Where a catalog writes a term in more than one way, a tool that
//! holds the query's own word is preferred over one that holds only another
//! form of it: a tool is ranked on the term at [`OTHER_FORM_FACTOR`] of its
//! score when it lacks the word the query used and some other tool has it.
//!
//! This is the stemmed-plus-exact field pair of search engines, kept small:
//! only terms with several written forms in the catalog carry lists (a term
//! written one way needs none: every tool with it has the query's word, or
//! none does).

use std::borrow::Cow;

use rustc_hash::FxHashMap as HashMap;

/// The share of a term's score a tool keeps when it holds the term only in
/// another form than the query's word, while other tools hold that word.
/// Chosen on the dev catalogs of docs/benchmarks-history.md §2c (`bash
/// bench/catalogs.sh`): 0.4 to 0.9 all raise hit@1; 0.6 has the highest
/// mean gain over the catalogs and the best hit@5.
pub(super) const OTHER_FORM_FACTOR: f32 = 0.6;

/// Per written word of a term written several ways: the term and the
/// documents holding that word (sorted).
#[derive(Debug, Default)]
pub(super) struct Forms {
    by_word: HashMap<String, (u32, Vec<u32>)>,
}

impl Forms {
    /// The lists of a catalog's terms written more than one way, from the
    /// indexed words (each word's term and id, `None` for stop words) and
    /// each document's (term, field, word id) occurrences.
    pub(super) fn build(
        terms: usize,
        words: &HashMap<String, Option<(u32, u32)>>,
        occurrences: &[Vec<(u32, u8, u32)>],
    ) -> Forms {
        let mut ways = vec![0u32; terms];
        for (term, _) in words.values().flatten() {
            ways[*term as usize] += 1;
        }
        let mut docs: Vec<Vec<u32>> = vec![Vec::new(); words.len()];
        for (d, occ) in occurrences.iter().enumerate() {
            let doc = u32::try_from(d).unwrap_or(u32::MAX);
            for &(term, _, word) in occ {
                if ways[term as usize] > 1 {
                    let list = &mut docs[word as usize];
                    if list.last() != Some(&doc) {
                        list.push(doc);
                    }
                }
            }
        }
        let by_word = words
            .iter()
            .filter_map(|(text, t)| {
                let (term, id) = (*t)?;
                let list = std::mem::take(&mut docs[id as usize]);
                (!list.is_empty()).then(|| (text.clone(), (term, list)))
            })
            .collect();
        Forms { by_word }
    }

    /// The documents that hold one of `words` (the query's words analysed
    /// as `term`), sorted; `None` when the catalog writes the term one way
    /// or holds none of those words (then no tool is preferred).
    pub(super) fn holding(&self, term: u32, words: &[String]) -> Option<Cow<'_, [u32]>> {
        let mut lists = words.iter().filter_map(|w| match self.by_word.get(w) {
            Some((t, docs)) if *t == term => Some(docs.as_slice()),
            _ => None,
        });
        let first = lists.next()?;
        let mut rest = lists.peekable();
        if rest.peek().is_none() {
            return Some(Cow::Borrowed(first));
        }
        let mut docs = first.to_vec();
        for list in rest {
            docs.extend_from_slice(list);
        }
        docs.sort_unstable();
        docs.dedup();
        Some(Cow::Owned(docs))
    }
}

/// Walks a term's postings (sorted by document) beside the documents that
/// hold the query's word (sorted): the factor for each posting in turn.
pub(super) struct FormFactors<'a> {
    holding: Option<&'a [u32]>,
    at: usize,
}

impl<'a> FormFactors<'a> {
    /// Factors against `holding` ([`Forms::holding`]); all 1 without it.
    pub(super) fn new(holding: Option<&'a [u32]>) -> Self {
        FormFactors { holding, at: 0 }
    }

    /// The factor of document `doc`; documents must come in increasing
    /// order.
    pub(super) fn of(&mut self, doc: u32) -> f32 {
        let Some(holding) = self.holding else {
            return 1.0;
        };
        while self.at < holding.len() && holding[self.at] < doc {
            self.at += 1;
        }
        if holding.get(self.at) == Some(&doc) {
            1.0
        } else {
            OTHER_FORM_FACTOR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_terms_written_several_ways_are_kept() {
        // Word ids count stop words too ("the" took 2).
        let (times, time, encode) = (0, 1, 3);
        let words: HashMap<String, Option<(u32, u32)>> = [
            ("times", Some((0, times))),
            ("time", Some((0, time))),
            ("the", None),
            ("encode", Some((1, encode))),
        ]
        .into_iter()
        .map(|(w, t)| (w.to_owned(), t))
        .collect();
        let occurrences = vec![
            vec![(0, 2, times)],
            vec![(0, 0, time), (0, 2, time)],
            vec![(0, 2, time), (1, 2, encode)],
        ];
        let forms = Forms::build(2, &words, &occurrences);
        let held = |term, words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            forms.holding(term, &words).map(|d| d.into_owned())
        };
        assert_eq!(held(0, &["times"]), Some(vec![0]));
        assert_eq!(held(0, &["time", "times"]), Some(vec![0, 1, 2]));
        // One way only, a word the catalog lacks, another term's word.
        assert_eq!(held(1, &["encode"]), None);
        assert_eq!(held(0, &["timed"]), None);
        assert_eq!(held(1, &["time"]), None);
    }

    #[test]
    fn factors_follow_the_postings() {
        let holding = [1, 4];
        let mut f = FormFactors::new(Some(&holding));
        let got: Vec<f32> = [0, 1, 2, 4, 7].iter().map(|&d| f.of(d)).collect();
        let o = OTHER_FORM_FACTOR;
        assert_eq!(got, [o, 1.0, o, 1.0, o]);
        let mut none = FormFactors::new(None);
        assert_eq!(none.of(3), 1.0);
    }
}
