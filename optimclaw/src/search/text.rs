//! How text becomes search terms: words split at case changes, digits and
//! punctuation, a sign beside a number read as its word ("17%" holds
//! `percent`, "6 × 7" and "6 times 7" hold `multiply`), stop words (NLTK's English list, via
//! `stop-words`) dropped, the rest stemmed (Snowball English, via
//! `rust-stemmers`); and the deletion neighbourhood used for typo
//! tolerance.

use std::collections::HashSet;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use super::cjk::{emit_pairs, is_cjk};

/// Quantifiers NLTK's list lacks beside its `few` and `more`: "how many",
/// "how much" open a question and say nothing of what it needs (a tool
/// whose parameter reads "How many." drew "How many weeks are between two
/// dates?" from the date tools).
const EXTRA_STOP_WORDS: [&str; 2] = ["many", "much"];

/// Words of NLTK's list that are searched all the same: they name a
/// range ("the days between two dates", "how long until Friday", "primes
/// between 50 and 150"), which date and number tools describe with them.
/// Chosen on the dev catalogs of docs/benchmarks-history.md §2c: keeping them adds
/// hit@1 on the bfcl catalogs and messages whose preload holds the needed
/// tool, and costs no-match detection on "the difference between X and Y"
/// questions; `after` and `before` were tried too and cost more than they
/// gave.
const SEARCHED_STOP_WORDS: [&str; 2] = ["between", "until"];

pub(super) fn stop_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        stop_words::lookup("en")
            .unwrap_or_default()
            .iter()
            .copied()
            .chain(EXTRA_STOP_WORDS)
            .filter(|w| !SEARCHED_STOP_WORDS.contains(w))
            .collect()
    })
}

/// Stop words of every language with an NLTK list (lower case): a word
/// of a request that no tool holds counts as unmatched content only when
/// it is none of these, so a request in German is not read as many
/// unmatched words for its `wie` and `wird`.
pub(super) fn any_language_stop_words() -> &'static HashSet<&'static str> {
    /// The NLTK lists of the `stop-words` crate, by ISO 639-1 code.
    const LANGUAGES: [&str; 24] = [
        "ar", "az", "ca", "da", "de", "el", "en", "es", "eu", "fi", "fr", "he", "hu", "id", "it",
        "kk", "nl", "no", "pt", "ro", "ru", "sl", "sv", "tr",
    ];
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        LANGUAGES
            .iter()
            .filter_map(stop_words::lookup)
            .flat_map(|words| words.iter().copied())
            .chain(EXTRA_STOP_WORDS)
            .collect()
    })
}

pub(super) fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Where a sign must stand to be read as a word.
#[derive(Clone, Copy)]
enum Beside {
    /// Beside a number on either side: `17%`, `180°C`.
    One,
    /// Between two numbers: `6 * 7`, `3+4`.
    Both,
}

/// The word a sign stands for when it is written beside a number: "what's
/// 17% of 2,340" asks for a percentage, "6 × 7" a product, and are
/// otherwise only numbers. A sign elsewhere (`%d`, `%PATH%`, `*.rs`,
/// `C++`) is punctuation. Currency signs are left out: beside a number
/// they say how much, seldom what to do (on bfcl-dev, `$` read as
/// "dollar" drew requests quoting prices to tools that mention dollars,
/// hit@5 −1). So are `-` and `/`, which join the parts of dates, ranges
/// and numbers more often than they subtract or divide.
fn sign_word(c: char) -> Option<(&'static str, Beside)> {
    Some(match c {
        '%' => ("percent", Beside::One),
        '°' => ("degree", Beside::One),
        '+' => ("plus", Beside::Both),
        '*' | '×' => ("multiply", Beside::Both),
        '÷' => ("divide", Beside::Both),
        _ => return None,
    })
}

/// Whether the sign at `i` stands beside a digit where `beside` asks (one
/// space between allowed: "20 %", "6 * 7"); `at(j)` is the character at
/// `j`. Between numbers, a number that ends a clock time (`08:00+09:00`)
/// makes the sign a time zone's offset, not an operator.
fn beside_digit(at: impl Fn(usize) -> Option<char>, i: usize, beside: Beside) -> bool {
    let at = |j: Option<usize>| j.and_then(&at);
    let digit = |j: Option<usize>| at(j).is_some_and(|c| c.is_ascii_digit());
    // Where the neighbouring digit is: one step away, or two across a space.
    let near = |one: Option<usize>, two: Option<usize>| match at(one) {
        Some(c) if c.is_whitespace() => digit(two).then_some(two).flatten(),
        Some(c) if c.is_ascii_digit() => one,
        _ => None,
    };
    let before = near(i.checked_sub(1), i.checked_sub(2));
    let after = near(Some(i + 1), Some(i + 2));
    match beside {
        Beside::One => before.is_some() || after.is_some(),
        Beside::Both => {
            let clock_time = before.is_some_and(|mut j| {
                while j > 0 && digit(Some(j - 1)) {
                    j -= 1;
                }
                at(j.checked_sub(1)) == Some(':')
            });
            before.is_some() && after.is_some() && !clock_time
        }
    }
}

/// Whether the character at `i` is the `T` or `Z` of an ISO 8601
/// date-time, which separates numbers as `-` and `:` do:
/// `2026-06-01T08:00Z` is numbers only, not the words `t08` and `00z`
/// (unknown to every catalog, they lowered the share of the query a tool
/// could match, and could be read as typos of a tool's name); `at(j)` is
/// the character at `j`.
fn iso_separator(at: impl Fn(usize) -> Option<char>, i: usize) -> bool {
    let after_digit = || {
        i.checked_sub(1)
            .and_then(&at)
            .is_some_and(|p| p.is_ascii_digit())
    };
    match at(i) {
        Some('T') => at(i + 1).is_some_and(|n| n.is_ascii_digit()) && after_digit(),
        Some('Z') => !at(i + 1).is_some_and(char::is_alphanumeric) && after_digit(),
        _ => false,
    }
}

/// The word "times" between two numbers ("6 times 7") also reads as
/// `multiply`: alone, its stem is `time`'s, and draws date and clock
/// tools to an arithmetic question. The words pass through unchanged; a
/// "times" after a number is held until the next word shows whether a
/// number follows.
struct TimesReader<F> {
    emit: F,
    /// The last word was a number.
    after_number: bool,
    /// A "times" after a number, not yet passed on.
    held: bool,
}

impl<F: FnMut(&str, bool)> TimesReader<F> {
    fn new(emit: F) -> Self {
        Self {
            emit,
            after_number: false,
            held: false,
        }
    }

    /// Passes `word` on (`joined`: searched only where a tool writes it).
    fn word(&mut self, word: &str, joined: bool) {
        let number = word.bytes().all(|b| b.is_ascii_digit());
        if std::mem::take(&mut self.held) {
            (self.emit)("times", false);
            if number {
                (self.emit)("multiply", false);
            }
        }
        if self.after_number && word == "times" {
            self.held = true;
            self.after_number = false;
            return;
        }
        (self.emit)(word, joined);
        self.after_number = number;
    }

    fn finish(mut self) {
        if self.held {
            (self.emit)("times", false);
        }
    }
}

/// The name whose variant number follows a hyphen (`SHA-256`, `UTF-8`,
/// `GPT-4`): `word` (letters only) when the separator `sep` after it is
/// `-` and the next character `next` a digit. Catalogs write the same
/// thing as one word (`sha256`, `utf8`), so the two parts are also read
/// joined (see [`emit_joined`]).
fn variant_of(word: &str, sep: char, next: Option<char>) -> Option<String> {
    (sep == '-'
        && next.is_some_and(|n| n.is_ascii_digit())
        && word.chars().all(char::is_alphabetic))
    .then(|| word.to_owned())
}

/// Emits `word`; when it is the number after a hyphenated name
/// ([`variant_of`]), also the two joined (`sha`, `256`, then `sha256`).
fn emit_joined(word: &str, variant: &mut Option<String>, emit: &mut impl FnMut(&str, bool)) {
    emit(word, false);
    if let Some(mut name) = variant.take()
        && word.bytes().all(|b| b.is_ascii_digit())
    {
        name.push_str(word);
        emit(&name, true);
    }
}

/// Splits text into lowercase words at non-alphanumerics and at camelCase
/// boundaries (`getHTTPResponse` → `get`, `http`, `response`); a sign
/// beside a number becomes its word (`17%` → `17`, `percent`; `6 × 7` →
/// `6`, `multiply`, `7`), "times" between numbers adds `multiply`, and a
/// hyphenated variant is also one word (`SHA-256` → `sha`, `256`,
/// `sha256`). Chinese, Japanese and Korean, written without spaces, become
/// overlapping character pairs (`火车票` → `火车`, `车票`).
pub fn split_words(text: &str, mut emit: impl FnMut(&str)) {
    split_marked(text, |w, _| emit(w));
}

/// [`split_words`], telling each word's `emit` whether a request searches
/// it only where a tool writes it: a hyphenated variant's joined form
/// (`sha256` of `SHA-256`), or a pair of Chinese, Japanese or Korean
/// characters (`cjk.rs`).
pub(super) fn split_marked(text: &str, emit: impl FnMut(&str, bool)) {
    let mut reader = TimesReader::new(emit);
    let mut emit = |w: &str, joined: bool| reader.word(w, joined);
    if text.is_ascii() {
        split_ascii(text.as_bytes(), &mut emit);
    } else {
        split_unicode(text, &mut emit);
    }
    reader.finish();
}

/// [`split_words`] for text with non-ASCII characters.
fn split_unicode(text: &str, emit: &mut impl FnMut(&str, bool)) {
    let mut word = String::new();
    let mut variant = None;
    // A run of characters written without spaces (`cjk.rs`).
    let mut run: Vec<char> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let at = |j: usize| chars.get(j).copied();
    for (i, &c) in chars.iter().enumerate() {
        if is_cjk(c) {
            if !word.is_empty() {
                emit_joined(&word, &mut variant, emit);
                variant = None;
                word.clear();
            }
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            emit_pairs(&run, emit);
            run.clear();
        }
        if !c.is_alphanumeric() || iso_separator(at, i) {
            if !word.is_empty() {
                emit_joined(&word, &mut variant, emit);
                variant = variant_of(&word, c, at(i + 1));
                word.clear();
            }
            if let Some((sign, beside)) = sign_word(c)
                && beside_digit(at, i, beside)
            {
                emit(sign, false);
            }
            continue;
        }
        if c.is_uppercase() && !word.is_empty() {
            let prev = chars[i - 1];
            // `HTTPResponse` splits before `R`; `PRs` and `IDs` stay whole.
            let next_word = chars.get(i + 1).is_some_and(|n| n.is_lowercase())
                && chars.get(i + 2).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_word) {
                emit_joined(&word, &mut variant, emit);
                word.clear();
            }
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        emit_joined(&word, &mut variant, emit);
    }
    if !run.is_empty() {
        emit_pairs(&run, emit);
    }
}

/// [`split_words`] for ASCII text, without allocating per text: the index
/// splits about a million words at 10k tools.
fn split_ascii(bytes: &[u8], emit: &mut impl FnMut(&str, bool)) {
    let mut word = String::with_capacity(32);
    let mut variant = None;
    let at = |j: usize| bytes.get(j).map(|&b| char::from(b));
    for (i, &b) in bytes.iter().enumerate() {
        if !b.is_ascii_alphanumeric() || iso_separator(at, i) {
            if !word.is_empty() {
                emit_joined(&word, &mut variant, emit);
                variant = variant_of(&word, char::from(b), at(i + 1));
                word.clear();
            }
            if let Some((sign, beside)) = sign_word(char::from(b))
                && beside_digit(at, i, beside)
            {
                emit(sign, false);
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
                emit_joined(&word, &mut variant, emit);
                word.clear();
            }
        }
        word.push(char::from(b.to_ascii_lowercase()));
    }
    if !word.is_empty() {
        emit_joined(&word, &mut variant, emit);
    }
}

/// Longest word that is searched: longer runs of letters (base64, hashes,
/// a pasted blob) are no words anyone searches by, and stemming or typo
/// correction of them would cost time for nothing.
pub const MAX_WORD_CHARS: usize = 40;

/// Whether `word` (lower-case, from [`split_words`]) is a search term:
/// not a stop word, a single letter (a lone Chinese, Japanese or Korean
/// character is a term), a bare number or over [`MAX_WORD_CHARS`].
pub(super) fn is_term(word: &str) -> bool {
    let chars = word.chars().count();
    // One Chinese or Japanese character can be a word (书, "book"); Korean
    // ones are syllables, kept for the same rule.
    let lone_cjk = chars == 1 && word.chars().all(is_cjk);
    ((2..=MAX_WORD_CHARS).contains(&chars) || lone_cjk)
        && !stop_words().contains(word)
        && !word.chars().all(|c| c.is_ascii_digit())
}

/// The search terms of a text: words without stop words, single letters
/// (but a lone Chinese, Japanese or Korean character), bare numbers and runs over
/// [`MAX_WORD_CHARS`], stemmed.
pub fn analyze(text: &str, out: &mut Vec<String>) {
    split_words(text, |w| {
        if is_term(w) {
            out.push(stemmer().stem(w).into_owned());
        }
    });
}

/// Every string of `word` with one character removed.
pub(super) fn deletes(word: &str) -> impl Iterator<Item = String> + '_ {
    word.char_indices().map(move |(i, c)| {
        let mut s = String::with_capacity(word.len());
        s.push_str(&word[..i]);
        s.push_str(&word[i + c.len_utf8()..]);
        s
    })
}

#[cfg(test)]
mod tests;
