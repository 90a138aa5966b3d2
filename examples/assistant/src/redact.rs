//! Finding secret values in text, also re-encoded or in part: every run of
//! at least [`LITERAL_RUN`] characters of a value, and the same runs in
//! hexadecimal (plain or with spaces, either case), base64 (standard or
//! URL-safe, at any byte alignment) and percent-encoding — of the value
//! and of the value reversed, each written forwards or backwards.
//!
//! This is the last line of defence: the sandbox keeps `shell` from reading
//! the secret store at all, and secrets only go to the URLs they are bound
//! to. A value re-encoded by hand in a way not listed here (every other
//! character, a cipher) is not recognised.

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};

/// The shortest run of a value's characters that counts as the value.
pub const LITERAL_RUN: usize = 8;

/// Values shorter than this are only matched whole.
const WHOLE_ONLY_BELOW: usize = LITERAL_RUN;

/// Ways a value may be written out, with the shortest run of each that
/// counts: [`encodings_of`] the value and of it reversed, each form also
/// backwards (`base64 | rev`).
fn encodings(value: &str) -> Vec<(String, usize)> {
    let reversed: String = value.chars().rev().collect();
    let mut forms = encodings_of(value);
    forms.extend(encodings_of(&reversed));
    let backwards: Vec<(String, usize)> = forms
        .iter()
        .map(|(form, run)| (form.chars().rev().collect(), *run))
        .collect();
    forms.extend(backwards);
    forms.sort();
    forms.dedup();
    forms
}

/// The encodings of `value` itself, with the shortest run of each that
/// counts (the encoding of [`LITERAL_RUN`] bytes).
fn encodings_of(value: &str) -> Vec<(String, usize)> {
    let bytes = value.as_bytes();
    let mut forms = vec![(value.to_owned(), LITERAL_RUN)];
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let spaced: String = bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ");
    forms.push((hex.to_uppercase(), 2 * LITERAL_RUN));
    forms.push((hex, 2 * LITERAL_RUN));
    forms.push((spaced.to_uppercase(), 3 * LITERAL_RUN - 1));
    forms.push((spaced, 3 * LITERAL_RUN - 1));
    let percent: String = bytes.iter().map(|b| format!("%{b:02X}")).collect();
    forms.push((percent.to_lowercase(), 3 * LITERAL_RUN));
    forms.push((percent, 3 * LITERAL_RUN));
    forms.push((
        percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC)
            .to_string(),
        LITERAL_RUN,
    ));
    // Base64 of a slice starting at any byte: encode the value after 0, 1
    // or 2 filler bytes and keep the characters that depend on the value
    // alone (whole 3-byte groups inside it).
    for filler in 0..3usize {
        let mut padded = vec![0u8; filler];
        padded.extend_from_slice(bytes);
        let whole_groups = padded.len() / 3;
        let first = usize::from(filler > 0);
        if whole_groups <= first {
            continue;
        }
        let (start, end) = (first * 4, whole_groups * 4);
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded);
            forms.push((encoded[start..end].to_owned(), 12));
        }
    }
    forms
}

/// Recognises a set of named values.
#[derive(Debug)]
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    /// The secret name of each pattern.
    owners: Vec<usize>,
    names: Vec<String>,
}

impl Redactor {
    /// A redactor for `(name, value)` pairs; values under 4 characters are
    /// left out (they would match ordinary text).
    pub fn new<'a>(secrets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut patterns: Vec<String> = Vec::new();
        let mut owners = Vec::new();
        let mut names = Vec::new();
        for (name, value) in secrets {
            if value.chars().count() < 4 {
                continue;
            }
            let owner = names.len();
            names.push(name.to_owned());
            let whole_only = value.chars().count() < WHOLE_ONLY_BELOW;
            for (form, run) in encodings(value) {
                if whole_only || form.len() <= run {
                    patterns.push(form);
                    owners.push(owner);
                    continue;
                }
                // Every window of `run` bytes that falls on character
                // boundaries.
                for start in 0..=form.len() - run {
                    if let Some(window) = form.get(start..start + run) {
                        patterns.push(window.to_owned());
                        owners.push(owner);
                    }
                }
            }
        }
        let matcher = (!patterns.is_empty()).then(|| {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .expect("literal patterns always build")
        });
        Redactor {
            matcher,
            owners,
            names,
        }
    }

    /// `text` with every recognised run replaced by `[secret:NAME]`, or
    /// `None` when nothing was found.
    pub fn redact(&self, text: &str) -> Option<String> {
        let matcher = self.matcher.as_ref()?;
        // Overlapping windows of one value join into one span.
        let mut found: Vec<(usize, usize, usize)> = matcher
            .find_overlapping_iter(text)
            .map(|m| (m.start(), m.end(), self.owners[m.pattern().as_usize()]))
            .collect();
        found.sort_unstable();
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for (start, end, owner) in found {
            match spans.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => spans.push((start, end, owner)),
            }
        }
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, owner) in spans {
            out.push_str(&text[at..start]);
            out.push_str(&format!("[secret:{}]", self.names[owner]));
            at = end;
        }
        out.push_str(&text[at..]);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUE: &str = "sk-live-9f8e7d6c5b4a3210";

    fn hides(text: &str) {
        let redactor = Redactor::new([("KEY", VALUE)]);
        let out = redactor.redact(text).unwrap_or_else(|| text.to_owned());
        assert!(
            out.contains("[secret:KEY]"),
            "not caught: {text:?} → {out:?}"
        );
    }

    #[test]
    fn every_listed_encoding_of_the_value_or_a_slice_is_caught() {
        let b = VALUE.as_bytes();
        hides(&format!("x {VALUE} y"));
        hides(&VALUE[3..14]);
        hides(&VALUE.chars().rev().collect::<String>());
        for slice in [b, &b[1..], &b[2..17], &b[5..]] {
            hides(&STANDARD_NO_PAD.encode(slice));
            hides(&base64::engine::general_purpose::STANDARD.encode(slice));
            hides(&URL_SAFE_NO_PAD.encode(slice));
            hides(&slice.iter().map(|c| format!("{c:02x}")).collect::<String>());
            hides(&slice.iter().map(|c| format!("{c:02X}")).collect::<String>());
            hides(
                &slice
                    .iter()
                    .map(|c| format!("{c:02x}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            hides(
                &slice
                    .iter()
                    .map(|c| format!("%{c:02x}"))
                    .collect::<String>(),
            );
        }
        // Base64 of the value inside other text.
        hides(&STANDARD_NO_PAD.encode(format!("token={VALUE}&x=1")));
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        let redactor = Redactor::new([("KEY", VALUE)]);
        for text in ["hello world", "sk-live", "9f8e7d", "c2stbGl2", ""] {
            assert_eq!(redactor.redact(text), None, "{text}");
        }
        assert_eq!(Redactor::new([("SHORT", "abc")]).redact("abc"), None);
        assert_eq!(
            Redactor::new([("PIN", "4242")])
                .redact("pin 4242 ok")
                .as_deref(),
            Some("pin [secret:PIN] ok")
        );
    }
}
