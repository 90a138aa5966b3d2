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
    /// (sorted): what `tool_info` reports as matching no tool, each marked
    /// when it is data the request carries rather than a word for what it
    /// asks ([`Place::is_data`]). Looks at the first [`MAX_SCANNED_WORDS`]
    /// words and reports at most [`MAX_REPORTED_WORDS`].
    pub(super) fn unmatched_words(query: &str, unreached: &[String]) -> Vec<UnmatchedWord> {
        let mut out: Vec<UnmatchedWord> = Vec::new();
        if unreached.is_empty() {
            return out;
        }
        let mut place = Place::default();
        for raw in query.split_whitespace().take(MAX_SCANNED_WORDS) {
            if out.len() >= MAX_REPORTED_WORDS {
                break;
            }
            let data = place.is_data(raw);
            let mut word_terms = Vec::new();
            super::analyze(raw, &mut word_terms);
            let unmatched = !word_terms.is_empty()
                && word_terms
                    .iter()
                    .all(|t| unreached.binary_search(t).is_ok());
            // The word as the user wrote it, without the punctuation
            // around it ("week?" is "week").
            let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
            if unmatched && !word.is_empty() && !out.iter().any(|u| u.word == word) {
                out.push(UnmatchedWord {
                    word: word.to_owned(),
                    data,
                });
            }
        }
        out
    }
}

/// A word of a request that no tool holds.
#[derive(Debug, PartialEq)]
pub(super) struct UnmatchedWord {
    /// As the user wrote it, without the punctuation around it.
    pub(super) word: String,
    /// Whether it is data the request carries ([`Place::is_data`]).
    pub(super) data: bool,
}

/// Where a word stands in its request, read word by word: inside quotes,
/// at the start of a sentence.
#[derive(Debug)]
struct Place {
    in_quotes: bool,
    sentence_start: bool,
}

impl Default for Place {
    fn default() -> Self {
        Place {
            in_quotes: false,
            sentence_start: true,
        }
    }
}

/// Signs that open a quotation at the start of a word.
const OPENING_QUOTES: &[char] = &['"', '\'', '\u{201c}', '\u{2018}', '\u{ab}', '`'];
/// Signs that close one at the end of a word.
const CLOSING_QUOTES: &[char] = &['"', '\'', '\u{201d}', '\u{2019}', '\u{bb}', '`'];
/// Signs that end a sentence.
const SENTENCE_ENDS: &[char] = &['.', '?', '!', ':'];

impl Place {
    /// Whether `raw` (one whitespace-separated word, with its punctuation)
    /// is data the request carries, not a word for what it asks: quoted
    /// text, a word with a digit (`44`, `3pm`), a name (capitalised, not
    /// first in its sentence: `Lisbon`, `OpenAI`), or a word holding a
    /// path's or an address's signs (`notes/todo.md`, `a@b.org`). Then
    /// moves on past the word.
    fn is_data(&mut self, raw: &str) -> bool {
        let opens = raw.starts_with(OPENING_QUOTES);
        let quoted = self.in_quotes || opens;
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let name = !self.sentence_start && word.chars().next().is_some_and(char::is_uppercase);
        let signs = word.contains(['/', '\\', '@', '_', '.', ':', '#', '=']);
        let digit = word.chars().any(|c| c.is_ascii_digit());
        let end = raw.trim_end_matches([')', ']', ',', ';']);
        let closes = end
            .trim_end_matches(SENTENCE_ENDS)
            .ends_with(CLOSING_QUOTES)
            && (end.chars().count() > 1 || !opens);
        if closes {
            self.in_quotes = false;
        } else if opens {
            self.in_quotes = true;
        }
        self.sentence_start = end
            .trim_end_matches(CLOSING_QUOTES)
            .ends_with(SENTENCE_ENDS);
        quoted || name || signs || digit
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

    fn words(query: &str, unreached: &[String]) -> Vec<String> {
        SearchIndex::unmatched_words(query, unreached)
            .into_iter()
            .map(|u| u.word)
            .collect()
    }

    /// The words of `query` read as data, when no tool holds any word.
    fn data(query: &str) -> Vec<String> {
        let mut unreached: Vec<String> = Vec::new();
        crate::search::analyze(query, &mut unreached);
        unreached.sort();
        SearchIndex::unmatched_words(query, &unreached)
            .into_iter()
            .filter(|u| u.data)
            .map(|u| u.word)
            .collect()
    }

    #[test]
    fn names_numbers_quotes_and_addresses_are_data() {
        assert_eq!(
            data("What's the weather in Lisbon tomorrow? Weather in Oslo too."),
            ["Lisbon", "Oslo"]
        );
        // (A bare number is no search term, so never an unmatched word.)
        assert_eq!(
            data("order shoes in size 44 at 3pm from shop.example.com"),
            ["3pm", "shop.example.com"]
        );
        assert_eq!(
            data("replace 'big red dog' with \u{201c}cat\u{201d} in notes/todo.md, then stop"),
            ["big", "red", "dog", "cat", "notes/todo.md"]
        );
        // An apostrophe inside a word opens nothing.
        assert_eq!(
            data("what's the user's plan for the marathon"),
            Vec::<String>::new()
        );
        assert_eq!(data("keep my OpenAI API key safe"), ["OpenAI", "API"]);
    }

    #[test]
    fn unmatched_words_come_without_their_punctuation() {
        let unreached = vec!["week".to_owned()];
        assert_eq!(
            words("What do I still have to do this week?", &unreached),
            ["week"]
        );
        assert_eq!(words("\"week\", (week) week!", &unreached), ["week"]);
    }
}
