//! Chinese, Japanese and Korean text as search words: overlapping pairs of
//! characters.
//!
//! These scripts write words without spaces between them ("查询火车票" is
//! "query train tickets"), so splitting at non-letters made a whole clause
//! one word that no request ever repeats. Segmenting by dictionary
//! (jieba-rs for Chinese, lindera for Japanese) carries megabytes of
//! dictionary per language; overlapping character pairs, the approach of
//! Lucene's and Elasticsearch's CJK analyzers, need no data and serve all
//! three scripts: a two-character word is one pair, a longer one the pairs
//! it is made of. A request's pairs that span two words ("票的") match no
//! tool and are left out of its search, as a form searched only where a
//! tool writes it (`terms.rs`).

/// Whether `c` is written without spaces between words: Han ideographs,
/// Hiragana, Katakana (full and half width) and Hangul.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'        // Hiragana, Katakana
        | '\u{31F0}'..='\u{31FF}'      // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'      // Han, extension A
        | '\u{4E00}'..='\u{9FFF}'      // Han
        | '\u{F900}'..='\u{FAFF}'      // Han compatibility
        | '\u{FF66}'..='\u{FF9D}'      // half-width Katakana
        | '\u{1100}'..='\u{11FF}'      // Hangul Jamo
        | '\u{3130}'..='\u{318F}'      // Hangul compatibility Jamo
        | '\u{AC00}'..='\u{D7AF}'      // Hangul syllables
        | '\u{20000}'..='\u{3134F}' // Han, extensions B to G
    )
}

/// What a character pair adds to its field's length, in words, for
/// BM25's length normalisation. The average length is the catalog's, so
/// a pair counted as a whole word made the Chinese descriptions of a
/// mixed catalog raise it, and English requests ranked differently
/// (mcp-long hit@1 0.771 → 0.708); at a quarter, every dev catalog
/// without Chinese requests ranks as before and the Chinese requests find
/// their tools (docs/benchmarks-history.md §2c; 0, 0.5 and 1 were measured too).
const CJK_PAIR_LENGTH: f32 = 0.25;

/// How much `word` adds to its field's length: 1 for a word,
/// [`CJK_PAIR_LENGTH`] for a character pair.
pub(super) fn length_of(word: &str) -> f32 {
    if word.chars().next().is_some_and(is_cjk) {
        CJK_PAIR_LENGTH
    } else {
        1.0
    }
}

/// Emits the words of a run of [`is_cjk`] characters: each overlapping
/// pair, or the character itself when the run is one character long.
/// Each is marked as searched only where a tool writes it (`true`).
pub(super) fn emit_pairs(run: &[char], emit: &mut impl FnMut(&str, bool)) {
    let mut word = String::with_capacity(8);
    if let [single] = run {
        word.push(*single);
        emit(&word, true);
        return;
    }
    for pair in run.windows(2) {
        word.clear();
        word.extend(pair);
        emit(&word, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<String> {
        let run: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        emit_pairs(&run, &mut |w, searched_where_written| {
            assert!(searched_where_written);
            out.push(w.to_owned());
        });
        out
    }

    #[test]
    fn a_run_becomes_its_overlapping_pairs() {
        assert_eq!(pairs("火车票"), ["火车", "车票"]);
        assert_eq!(pairs("天气"), ["天气"]);
        assert_eq!(pairs("书"), ["书"]);
        assert_eq!(pairs("カード"), ["カー", "ード"]);
        assert_eq!(pairs("날씨를"), ["날씨", "씨를"]);
    }

    #[test]
    fn a_pair_is_a_quarter_of_a_word_long() {
        assert_eq!(length_of("火车"), CJK_PAIR_LENGTH);
        assert_eq!(length_of("train"), 1.0);
    }

    #[test]
    fn the_scripts_written_without_spaces() {
        for c in ['查', 'ぁ', 'カ', 'ｶ', '한', '𠀀'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', 'ß', 'я', 'ع', '1', '。', '，'] {
            assert!(!is_cjk(c), "{c}");
        }
    }
}
