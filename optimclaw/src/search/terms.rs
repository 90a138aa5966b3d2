//! A query's search terms: each distinct word analysed once, and for a long
//! request (a whole user message, a pasted document) only its most
//! distinctive terms, so a query of any length is answered in bounded time.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::SearchIndex;
use super::text::{is_term, split_marked, stemmer};

/// Most distinct terms a query is searched by. A request of several
/// sentences holds 20–40; past this the rarest ones in the catalog are
/// kept (common words add little to BM25 and cost a long posting walk).
pub const MAX_QUERY_TERMS: usize = 48;

/// Most words of a query kept for reporting the ones no tool has.
const MAX_REPORTED_WORDS: usize = 10;

/// Whitespace-separated words of a query looked at for that report.
const MAX_SCANNED_WORDS: usize = 512;

/// What a query is searched by.
#[derive(Debug, Default)]
pub(super) struct QueryTerms {
    /// Distinct terms, sorted.
    pub(super) terms: Vec<String>,
    /// Some terms were left out ([`MAX_QUERY_TERMS`]).
    pub(super) shortened: bool,
    /// The query's words (lower-case, as written) behind each term.
    pub(super) words: HashMap<String, Vec<String>>,
}

impl SearchIndex {
    /// The terms of `query`, at most [`MAX_QUERY_TERMS`]: all of them when
    /// there are few; otherwise those the catalog has, rarest first, then
    /// the ones it lacks (typo candidates), in the query's order.
    pub(super) fn query_terms(&self, query: &str) -> QueryTerms {
        let mut seen_words: HashSet<String> = HashSet::default();
        let mut terms: Vec<String> = Vec::new();
        let mut words: HashMap<String, Vec<String>> = HashMap::default();
        split_marked(query, |w, joined| {
            // Each distinct word is stemmed once: a pasted document repeats
            // its words many times.
            if !is_term(w) || seen_words.contains(w) {
                return;
            }
            let stem = stemmer().stem(w).into_owned();
            if joined && !self.vocab.contains_key(&stem) {
                // A joined form, or a pair of Chinese, Japanese or Korean
                // characters (which may span two words), helps only where a
                // tool writes it; a word no tool has would only weaken the
                // match.
                return;
            }
            seen_words.insert(w.to_owned());
            match words.get_mut(&stem) {
                Some(forms) => forms.push(w.to_owned()),
                None => {
                    words.insert(stem.clone(), vec![w.to_owned()]);
                    terms.push(stem);
                }
            }
        });
        let shortened = terms.len() > MAX_QUERY_TERMS;
        if shortened {
            // Known terms by rarity (idf, highest first), then unknown ones;
            // the sort is stable, so ties keep the query's order.
            let rarity = |t: &String| match self.vocab.get(t) {
                Some(&id) => self.idf[id as usize],
                None => -1.0,
            };
            terms.sort_by(|a, b| rarity(b).total_cmp(&rarity(a)));
            terms.truncate(MAX_QUERY_TERMS);
        }
        terms.sort_unstable();
        QueryTerms {
            terms,
            shortened,
            words,
        }
    }

    /// The words of `query` (as given) whose every term is in `unreached`
    /// (sorted): what `tool_info` reports as matching no tool. Looks at the
    /// first [`MAX_SCANNED_WORDS`] words and reports at most
    /// [`MAX_REPORTED_WORDS`].
    pub(super) fn unmatched_words(query: &str, unreached: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if unreached.is_empty() {
            return out;
        }
        for word in query.split_whitespace().take(MAX_SCANNED_WORDS) {
            if out.len() >= MAX_REPORTED_WORDS {
                break;
            }
            let mut word_terms = Vec::new();
            super::analyze(word, &mut word_terms);
            let unmatched = !word_terms.is_empty()
                && word_terms
                    .iter()
                    .all(|t| unreached.binary_search(t).is_ok());
            // The word as the user wrote it, without the punctuation
            // around it ("week?" is "week").
            let word = word.trim_matches(|c: char| !c.is_alphanumeric());
            if unmatched && !word.is_empty() && !out.iter().any(|u| u == word) {
                out.push(word.to_owned());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::{DynamicTool, LazyConfig, Registry};
    use serde_json::json;

    fn registry(description: &str) -> Registry {
        Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools([DynamicTool::new(
                "encode_text",
                description,
                json!({"type": "object", "properties": {}}),
            )])
            .build()
            .unwrap()
    }

    #[test]
    fn a_joined_variant_is_searched_only_where_a_tool_writes_it() {
        let query = "the UTF-16 bytes";
        // No tool writes `utf16`: a word no tool has would only weaken the
        // match, so the query is searched as "UTF 16" would be.
        let spaced = registry("Encode a text as UTF 16 bytes.");
        let terms = spaced.search_index().query_terms(query).terms;
        assert_eq!(terms, ["byte", "utf"]);
        // A tool writes it: it is searched.
        let joined = registry("Encode a text as utf16 bytes.");
        let terms = joined.search_index().query_terms(query).terms;
        assert_eq!(terms, ["byte", "utf", "utf16"]);
    }

    #[test]
    fn chinese_japanese_and_korean_split_into_pairs_beside_other_words() {
        use super::super::text::{analyze, split_words};
        let words = |text: &str| {
            let mut out = Vec::new();
            split_words(text, |w| out.push(w.to_owned()));
            out
        };
        assert_eq!(words("查询火车票"), ["查询", "询火", "火车", "车票"]);
        // Beside Latin letters and punctuation, each run on its own.
        assert_eq!(
            words("12306余票，MCP服务"),
            ["12306", "余票", "mcp", "服务"]
        );
        assert_eq!(
            words("游戏王カード"),
            ["游戏", "戏王", "王カ", "カー", "ード"]
        );
        // A lone character is a word, and a term.
        let mut out = Vec::new();
        analyze("找 书", &mut out);
        assert_eq!(out, ["找", "书"]);
    }
}

#[cfg(test)]
mod unmatched_tests {
    use crate::search::SearchIndex;

    #[test]
    fn unmatched_words_come_without_their_punctuation() {
        let unreached = vec!["week".to_owned()];
        assert_eq!(
            SearchIndex::unmatched_words("What do I still have to do this week?", &unreached),
            ["week"]
        );
        assert_eq!(
            SearchIndex::unmatched_words("\"week\", (week) week!", &unreached),
            ["week"]
        );
    }
}
