//! Terms near a query word no tool has: typos of name terms (what models
//! misspell), and other forms of the word (the endings of languages the
//! English stemmer does not know).

use super::SearchIndex;
use super::text::deletes;

/// Query words this long or longer may match other forms of themselves.
const INFLECTED_MIN_CHARS: usize = 6;
/// Other forms one query word matches at most.
const MAX_INFLECTIONS: usize = 4;

/// Name terms this short or shorter are not matched by a query word with a
/// letter more: such a word is most often another word, not a typo
/// ("world" is not `word`, "movie" not `move`, "bread" not `read`), while
/// a letter missing or changed still is ("mail" finds `email`).
const SHORT_TERM_CHARS: usize = 4;

/// Whether a query word of `len` characters is longer than `candidate`, a
/// short name term ([`SHORT_TERM_CHARS`]).
fn longer_than_short(len: usize, candidate: &str) -> bool {
    let short = candidate.chars().count();
    short <= SHORT_TERM_CHARS && len > short
}

/// Whether a short stem (`len` characters, at most [`SHORT_TERM_CHARS`])
/// comes from words the stemmer took an ending of two letters or more
/// from (`passed` → `pass`, `coding` → `code`): an English word with a
/// regular ending, not a typo ("passed" is not `parse`). A misspelled
/// plural (`fiels` → `fiel`) is still read as a typo.
fn inflected_short(len: usize, written: &[String]) -> bool {
    len <= SHORT_TERM_CHARS
        && !written.is_empty()
        && written.iter().all(|w| w.chars().count() >= len + 2)
}

impl SearchIndex {
    /// Name terms within a small edit distance of an unknown query term;
    /// `written` are the query's words behind it.
    pub(super) fn corrections(&self, term: &str, written: &[String]) -> Vec<u32> {
        let len = term.chars().count();
        if len < 4 || inflected_short(len, written) {
            return Vec::new();
        }
        let max = if len >= 8 { 2 } else { 1 };
        let mut found: Vec<u32> = Vec::new();
        let mut consider = |ids: Option<&Vec<u32>>| {
            for &id in ids.into_iter().flatten() {
                let candidate = &self.terms[id as usize];
                if !found.contains(&id)
                    && !longer_than_short(len, candidate)
                    && strsim::osa_distance(term, candidate) <= max
                {
                    found.push(id);
                }
            }
        };
        consider(self.typo.get(term));
        for d in deletes(term) {
            consider(self.typo.get(&d));
        }
        if found.is_empty() {
            found = self.inflections(term);
        }
        found
    }

    /// Terms that are another form of an unknown query word: the same
    /// letters but for an ending of up to 3, and at most 3 letters longer
    /// (`übersetze` and `übersetzt`, `überweise` and `überweisung`), for
    /// languages the English stemmer does not know. Words under 6 letters
    /// have none.
    fn inflections(&self, term: &str) -> Vec<u32> {
        let len = term.chars().count();
        if len < INFLECTED_MIN_CHARS {
            return Vec::new();
        }
        let keep = (len - 3).max(INFLECTED_MIN_CHARS - 1);
        let stem: String = term.chars().take(keep).collect();
        let start = self
            .sorted
            .partition_point(|&id| self.terms[id as usize].as_str() < stem.as_str());
        self.sorted[start..]
            .iter()
            .copied()
            .take_while(|&id| self.terms[id as usize].starts_with(&stem))
            .filter(|&id| self.terms[id as usize].chars().count() <= len + 3)
            .take(MAX_INFLECTIONS)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::{DynamicTool, LazyConfig, Registry};
    use serde_json::json;

    fn registry() -> Registry {
        let tool = |name: &str, description: &str| {
            DynamicTool::new(
                name,
                description,
                json!({"type": "object", "properties": {}}),
            )
        };
        Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools([
                tool(
                    "uebersetzen",
                    "Übersetzt einen Text in eine andere Sprache.",
                ),
                tool(
                    "ueberweisung_ausfuehren",
                    "Führt eine Überweisung an einen Empfänger aus.",
                ),
                tool(
                    "wetter_vorhersage",
                    "Liefert die Wettervorhersage für eine Stadt.",
                ),
            ])
            .build()
            .unwrap()
    }

    #[test]
    fn another_form_of_a_word_is_found() {
        let registry = registry();
        let index = registry.search_index();
        for (query, tool) in [
            ("Übersetze diesen Absatz", "uebersetzen"),
            ("Überweise 50 Euro an Anna", "ueberweisung_ausfuehren"),
        ] {
            let hits = index.search(query, 3);
            assert_eq!(registry.tools()[hits[0].tool].name(), tool, "{query}");
        }
    }

    #[test]
    fn a_word_a_letter_longer_than_a_short_name_term_is_another_word() {
        let tool = |name: &str| {
            DynamicTool::new(name, "A tool.", json!({"type": "object", "properties": {}}))
        };
        let registry = Registry::builder()
            .without_linked()
            .lazy(LazyConfig::lazy())
            .tools([tool("word_count"), tool("send_email"), tool("search_files")])
            .build()
            .unwrap();
        let index = registry.search_index();
        let names = |word: &str| -> Vec<&str> {
            index
                .corrections(word, &[])
                .into_iter()
                .map(|id| index.terms[id as usize].as_str())
                .collect()
        };
        assert!(names("world").is_empty(), "{:?}", names("world"));
        // A letter missing, changed or swapped is still a typo.
        assert_eq!(names("mail"), ["email"]);
        assert_eq!(names("wrod"), ["word"]);
        assert_eq!(names("serch"), ["search"]);
        assert_eq!(names("searchh"), ["search"]);
        // A short stem of a word with a regular ending is that word.
        let written = |w: &str| [w.to_owned()];
        let corrected = |stem: &str, word: &str| index.corrections(stem, &written(word)).len();
        assert_eq!(corrected("wors", "worsing"), 0);
        assert_eq!(corrected("wors", "wors"), 1);
        assert_eq!(corrected("wird", "wirds"), 1);
    }

    #[test]
    fn short_words_and_other_stems_are_not_stretched() {
        let registry = registry();
        let index = registry.search_index();
        // `stadtteil` shares only `stadt`, under the 6 letters kept of a
        // 9-letter word; `wett` is too short to have other forms.
        assert!(index.inflections("stadtteil").is_empty());
        assert!(index.inflections("wett").is_empty());
    }
}
