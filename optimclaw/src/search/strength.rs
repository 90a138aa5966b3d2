//! How strongly a hit matched its query, on one scale for every catalog and
//! query shape: the signals a hit's strength is read from.

/// What a hit's [`strength`](super::Hit::strength) is read from; each is
/// comparable across queries and catalogs (none grows with the length of
/// the query or the size of the catalog).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Signals {
    /// The hit's score over the best the query's words could score in this
    /// catalog (each word's highest score in any one tool, summed), 0–1.
    pub share: f32,
    /// The hit's score over the next hit's (at most 4; 4 without a next).
    pub margin: f32,
    /// The score in units of the catalog's rarest word: about how many
    /// distinctive words of the query the tool holds (words in its name
    /// count more).
    pub evidence: f32,
    /// The share of the tool's name words the query contains, 0–1.
    pub name_match: f32,
    /// How many of the query's words the tool holds.
    pub matched_words: u32,
    /// How many of the query's content words no tool holds (stop words of
    /// any language aside).
    pub unmatched_words: u32,
    /// How many of those are words for what is asked, not data the request
    /// carries: no quoted text, no word with a digit, no name (a
    /// capitalised word not first in its sentence), no path or address.
    pub unmatched_asking: u32,
}

/// Weights of [`Signals::strength`], chosen by `bench/strength_fit.py` over
/// every dev catalog at once (docs/benchmarks-history.md §2c): the combination that
/// detects the most requests needing no tool while calling at most 5 % of
/// the requests that have one "no match", on each catalog. Standing out
/// from the next hit counts only as far as the query's words are the
/// tool's (margin times coverage or share), so a lone weak match in a small
/// catalog is not made strong by having no rival.
const W_COVERAGE: f32 = 0.25;
const W_COVERAGE_MARGIN: f32 = 0.5;
const W_SHARE_MARGIN: f32 = 0.1;
const W_EVIDENCE: f32 = 0.1;
const W_NAME: f32 = 0.05;

impl Signals {
    /// How well the hit matched, from 0 to 1, from `coverage` (the share of
    /// the query's words it holds, a word no tool has weighing as the
    /// rarest: [`Hit::coverage`](super::Hit::coverage)) and these signals:
    /// [`weighted`](Self::weighted), at most 0.05 for a
    /// [lone keyword](Self::is_lone_keyword) (below any threshold worth
    /// using). `tool_info` calls a hit strong at
    /// [`Registry::strong_match`](crate::Registry::strong_match) or more.
    pub fn strength(&self, coverage: f32) -> f32 {
        let strength = self.weighted(coverage);
        if self.is_lone_keyword() {
            strength.min(LONE_KEYWORD_STRENGTH)
        } else {
            strength
        }
    }

    /// The weighted sum [`strength`](Self::strength) starts from, before a
    /// lone keyword is held down: `0.25 coverage + 0.5 coverage·m + 0.1
    /// share·m + 0.1 min(evidence/2, 1) + 0.05 name_match`, where `m =
    /// min(ln margin, 1)`.
    pub fn weighted(&self, coverage: f32) -> f32 {
        let coverage = coverage.clamp(0.0, 1.0);
        let margin = self.margin.max(1.0).ln().min(1.0);
        let evidence = (self.evidence / 2.0).min(1.0);
        W_COVERAGE * coverage
            + W_COVERAGE_MARGIN * coverage * margin
            + W_SHARE_MARGIN * self.share * margin
            + W_EVIDENCE * evidence
            + W_NAME * self.name_match
    }

    /// Whether the hit holds one word of the request among others that ask
    /// for what no tool holds ([`unmatched_asking`](Self::unmatched_asking):
    /// content words, no data): at least 2 of them when its one word is not
    /// in its name ("launch a rocket to the moon with quantum entanglement"
    /// against a tool whose keywords say "launch"), at least 4 when it is
    /// (a request to "make" something no tool makes, against `make_dir`).
    /// Such a match says little however rare the word and however alone the
    /// tool. Names, numbers, quoted text and paths are data, not asking
    /// words: "rename report_old.txt to report_final.txt" holds none.
    pub fn is_lone_keyword(&self) -> bool {
        self.matched_words <= 1
            && (self.unmatched_asking >= LONE_KEYWORD_ASKING
                || (self.name_match == 0.0
                    && self.unmatched_asking >= LONE_KEYWORD_ASKING_OFF_NAME))
    }
}

/// Asking words no tool holds beside which a hit's one word, a word of its
/// name, is a lone keyword ([`Signals::is_lone_keyword`]); and
/// [`LONE_KEYWORD_ASKING_OFF_NAME`], when the word is not in its name.
/// Chosen together over every dev catalog (`python3
/// bench/lone_keyword_fit.py SIGNALS.jsonl`, docs/benchmarks-history.md
/// §12): the pair that detects the most requests needing no tool, on
/// average, with each catalog's false "no match" at most 5 % (or no worse
/// than before); the same pair is chosen with any one catalog left out but
/// the multilingual one.
const LONE_KEYWORD_ASKING: u32 = 4;

/// See [`LONE_KEYWORD_ASKING`].
const LONE_KEYWORD_ASKING_OFF_NAME: u32 = 2;

/// The most a lone keyword hit's strength is.
const LONE_KEYWORD_STRENGTH: f32 = 0.05;
