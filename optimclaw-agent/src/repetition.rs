//! Replies that go into a loop: a small model on a local server can write
//! one block over and over until its output cap (a CSV row inside a call
//! that never closes, a base64 text that never ends). The reader of a
//! streamed reply closes it where [`repetition`] finds the loop begins.

/// A text that went into a loop: one block repeated to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repetition {
    /// The start of the repeated block (at most 60 characters).
    pub(crate) block: String,
    /// The block's length in bytes.
    pub(crate) period: usize,
    /// The characters read before reading stopped.
    pub(crate) chars: usize,
}

/// The shortest repeated span that is a loop, in bytes, and the longest
/// block looked for. A reply's end that is one block of up to 128 bytes
/// repeated over 512 bytes (4 copies at the least) is not an answer: the
/// small models loop so on a CSV row or a JSON field until the token cap
/// (two minutes on this machine's 0.5B). Set by what no useful reply does
/// (a line of 80 `=` is 80 bytes; a table's rule row repeats over tens),
/// not fitted to any task set.
const LOOP_SPAN: usize = 512;
const LOOP_BLOCK: usize = 128;

/// Where `text` went into a loop: `(end, period)` with `text[..end]`
/// holding one copy of the repeated block of `period` bytes, the rest of
/// the text being that block over and over (the last copy may be cut).
pub(super) fn repetition(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if n <= LOOP_SPAN {
        return None;
    }
    let tail = n - LOOP_SPAN;
    let period =
        (1..=LOOP_BLOCK.min(tail)).find(|&p| (tail..n).all(|i| bytes[i] == bytes[i - p]))?;
    // Back to where the repeats start.
    let mut start = tail;
    while start > period && bytes[start - 1] == bytes[start - 1 - period] {
        start -= 1;
    }
    // On a character boundary, keeping the first copy whole.
    let mut end = start;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    Some((end, period))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_that_loops_is_found_where_the_loop_begins() {
        let head = "Here is the JSON: {\"csv\": \"";
        let block = "pen,3\\nitem,qty\\n";
        let text = format!("{head}{}pen,3", block.repeat(40));
        let (end, period) = repetition(&text).expect("a loop");
        assert_eq!(period, block.len());
        assert_eq!(&text[..end], format!("{head}{block}"));
        // Multi-byte characters: the cut is on a boundary.
        let text = format!("héllo {}", "ça va, ".repeat(100));
        let (end, _) = repetition(&text).expect("a loop");
        assert!(text.is_char_boundary(end));
        assert!(text[..end].starts_with("héllo "));
        // Not loops: varied text, a short run, a long rule line.
        let varied: String = (0..400).map(|i| format!("{i} ")).collect();
        assert_eq!(repetition(&varied), None);
        assert_eq!(repetition(&"ab".repeat(200)), None);
        let ruled = format!("{}\n| a | b |\n{}", "=".repeat(80), varied);
        assert_eq!(repetition(&ruled), None);
        // A block longer than looked for is not taken.
        let long: String = (0..200)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect::<String>()
            + "!";
        assert_eq!(repetition(&long.repeat(5)), None);
    }
}
