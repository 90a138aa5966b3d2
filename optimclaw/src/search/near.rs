//! Terms near a query word no tool has: typos of name terms (what models
//! misspell), and other forms of the word (the endings of languages the
//! English stemmer does not know).

use super::SearchIndex;
use super::text::deletes;

/// Query words this long or longer may match other forms of themselves.
const INFLECTED_MIN_CHARS: usize = 6;
/// Other forms one query word matches at most.
const MAX_INFLECTIONS: usize = 4;

impl SearchIndex {
    /// Name terms within a small edit distance of an unknown query term.
    pub(super) fn corrections(&self, term: &str) -> Vec<u32> {
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
    fn short_words_and_other_stems_are_not_stretched() {
        let registry = registry();
        let index = registry.search_index();
        // `stadtteil` shares only `stadt`, under the 6 letters kept of a
        // 9-letter word; `wett` is too short to have other forms.
        assert!(index.inflections("stadtteil").is_empty());
        assert!(index.inflections("wett").is_empty());
    }
}
