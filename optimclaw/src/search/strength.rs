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
    /// How many of the query's words no tool holds.
    pub unmatched_words: u32,
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
    /// `0.25 coverage + 0.5 coverage·m + 0.1 share·m + 0.1 min(evidence/2, 1)
    /// + 0.05 name_match`, where `m = min(ln margin, 1)`. `tool_info` calls
    /// a hit strong at [`Registry::strong_match`](crate::Registry::strong_match) or more.
    ///
    /// A [lone keyword](Self::is_lone_keyword) is at most 0.05, below any
    /// threshold worth using.
    pub fn strength(&self, coverage: f32) -> f32 {
        let coverage = coverage.clamp(0.0, 1.0);
        let margin = self.margin.max(1.0).ln().min(1.0);
        let evidence = (self.evidence / 2.0).min(1.0);
        let strength = W_COVERAGE * coverage
            + W_COVERAGE_MARGIN * coverage * margin
            + W_SHARE_MARGIN * self.share * margin
            + W_EVIDENCE * evidence
            + W_NAME * self.name_match;
        if self.is_lone_keyword() {
            strength.min(LONE_KEYWORD_STRENGTH)
        } else {
            strength
        }
    }

    /// Whether the hit holds one word of the request, not in its name,
    /// among at least 4 content words no tool holds (stop words of any
    /// language aside): "launch a rocket to the moon with quantum entanglement"
    /// against a tool whose keywords say "launch". Such a match says little
    /// however rare the word and however alone the tool.
    pub fn is_lone_keyword(&self) -> bool {
        self.matched_words <= 1
            && self.name_match == 0.0
            && self.unmatched_words >= LONE_KEYWORD_UNMATCHED
    }
}

/// Content words no tool holds (stop words of any language aside) beside
/// which a hit's one word is a lone keyword ([`Signals::is_lone_keyword`]).
/// Chosen by leaving each dev catalog out in turn (`python3
/// bench/lone_keyword_fit.py SIGNALS.jsonl`, docs/benchmarks-history.md
/// §12): the smallest count that adds no false "no match" on the catalogs
/// chosen on is 4 in eight of nine folds (3 with the multilingual catalog
/// left out, which then loses 2 of its 32 requests).
const LONE_KEYWORD_UNMATCHED: u32 = 4;

/// The most a lone keyword hit's strength is.
const LONE_KEYWORD_STRENGTH: f32 = 0.05;
