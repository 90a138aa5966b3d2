//! Compaction: once the history a request carries grows past a budget,
//! later requests leave out its oldest exchanges (a user message and
//! everything up to the next one), all at once down to a smaller size, so
//! the cached prefix changes once per compaction rather than with every
//! message. The transcript itself keeps every turn.

use std::borrow::Cow;

use super::Agent;
use super::transcript::{AgentEvent, Turn};
use optimclaw::config::LoadStrategy;

impl Agent {
    /// Leaves the oldest exchanges out of later requests when the history
    /// has outgrown `compaction`; tools whose schemas went with them may be
    /// attached again.
    pub(super) fn compact(
        &mut self,
        compaction: &Compaction,
        on_event: &mut impl FnMut(AgentEvent<'_>),
    ) {
        let counted = self.turn_sizes.len();
        self.turn_sizes
            .extend(self.transcript[counted..].iter().map(turn_tokens));
        let start = compacted_start(
            &self.transcript,
            &self.turn_sizes,
            self.history_start,
            compaction,
        );
        if start == self.history_start {
            return;
        }
        // A tool whose schema the history no longer carries (the attachment
        // or `tool_info` answer that brought it was left out) may be
        // attached again; under `Append` (outside code mode) the `tools`
        // array still has it.
        let kept = schema_texts(&self.transcript[start..]);
        let gone = |name: &String| {
            let quoted = format!("\"{name}\"");
            !kept.iter().any(|t| t.contains(&quoted))
        };
        let detached: Vec<String> = self.session.attached().into_iter().filter(gone).collect();
        self.session.detach(&detached);
        let lazy = self.session.lazy_config();
        let in_tools =
            lazy.strategy == LoadStrategy::Append && !self.session.registry().in_code_mode(lazy);
        if !in_tools {
            let unloaded: Vec<String> = self.session.loaded().into_iter().filter(gone).collect();
            self.session.unload(&unloaded);
        }
        on_event(AgentEvent::Compacted {
            turns: start - self.history_start,
            kept_tokens: self.turn_sizes[start..].iter().sum(),
        });
        self.history_start = start;
    }
}

/// When the loop shortens the history it sends, and to what
/// ([`AgentOptions::compaction`](crate::AgentOptions)). Sizes are
/// o200k tokens of the turns' texts (messages, tool calls, results,
/// attachments), a close estimate for other tokenizers; without the
/// `tokens` feature, a token per 4 bytes.
///
/// ```
/// use optimclaw_agent::Compaction;
///
/// let c = Compaction::new(60_000, 20_000);
/// assert_eq!((c.max_tokens, c.keep_tokens), (60_000, 20_000));
/// // What is kept is never more than what starts a compaction.
/// assert_eq!(Compaction::new(1_000, 5_000).keep_tokens, 1_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compaction {
    /// A user message whose history (from the first turn still sent to
    /// the message itself) is longer than this starts a compaction.
    pub max_tokens: usize,
    /// A compaction keeps the latest exchanges that fit in this many
    /// tokens, and always the one just starting.
    pub keep_tokens: usize,
}

impl Compaction {
    /// Compacts past `max_tokens`, down to `keep_tokens` (at most
    /// `max_tokens`).
    pub fn new(max_tokens: usize, keep_tokens: usize) -> Self {
        Compaction {
            max_tokens,
            keep_tokens: keep_tokens.min(max_tokens),
        }
    }
}

/// Tokens of one turn as a request carries it (its texts; the JSON
/// around them is left out).
pub(super) fn turn_tokens(turn: &Turn) -> usize {
    match turn {
        Turn::User(text) => count(text),
        Turn::Attached { text, .. } => count(text),
        Turn::Assistant {
            text,
            calls,
            native,
        } => match native {
            Some(native) => count(&native.to_string()),
            None => {
                count(text)
                    + calls
                        .iter()
                        .map(|c| count(&c.name) + count(&c.raw_arguments))
                        .sum::<usize>()
            }
        },
        Turn::ToolResults(outcomes) => outcomes
            .iter()
            .map(|o| count(&o.content) + o.blocks.as_ref().map_or(0, |b| count(&b.to_string())))
            .sum(),
    }
}

/// The texts of `turns` that may carry tool schemas: attachments and tool
/// results (`tool_info` answers, provider blocks).
pub(super) fn schema_texts(turns: &[Turn]) -> Vec<Cow<'_, str>> {
    let mut texts = Vec::new();
    for turn in turns {
        match turn {
            Turn::Attached { text, .. } => texts.push(Cow::Borrowed(text.as_str())),
            Turn::ToolResults(outcomes) => {
                for o in outcomes {
                    texts.push(Cow::Borrowed(o.content.as_str()));
                    texts.extend(o.blocks.as_ref().map(|b| Cow::Owned(b.to_string())));
                }
            }
            Turn::User(_) | Turn::Assistant { .. } => {}
        }
    }
    texts
}

/// Tokens of a text.
#[cfg(feature = "tokens")]
fn count(text: &str) -> usize {
    optimclaw::tokens::Encoding::O200kBase.count(text)
}

/// Tokens of a text, estimated (the `tokens` feature counts them).
#[cfg(not(feature = "tokens"))]
fn count(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Where the history sent from now on starts, given that it starts at
/// `start` now and `sizes` holds every turn's tokens
/// ([`turn_tokens`]): `start` while the turns from it fit in
/// `max_tokens`; otherwise the earliest user message from which the rest
/// fits in `keep_tokens`, or the last user message when none does.
pub(super) fn compacted_start(
    transcript: &[Turn],
    sizes: &[usize],
    start: usize,
    compaction: &Compaction,
) -> usize {
    let total: usize = sizes.iter().skip(start).sum();
    if total <= compaction.max_tokens {
        return start;
    }
    // Walk the user messages in order, the tokens from each to the end
    // taken from the running total.
    let mut rest = total;
    let mut from = start;
    let mut last = None;
    for i in (start..transcript.len()).filter(|&i| matches!(transcript[i], Turn::User(_))) {
        rest -= sizes[from..i].iter().sum::<usize>();
        from = i;
        if rest <= compaction.keep_tokens {
            return i;
        }
        last = Some(i);
    }
    last.unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{ToolCallRequest, ToolOutcome};
    use serde_json::json;
    use std::time::Duration;

    fn exchange(word: &str) -> Vec<Turn> {
        vec![
            Turn::User(word.repeat(10)),
            Turn::Assistant {
                text: String::new(),
                calls: vec![ToolCallRequest {
                    id: "1".into(),
                    name: "echo".into(),
                    raw_arguments: "{}".into(),
                    arguments: Ok(json!({})),
                }],
                native: None,
            },
            Turn::ToolResults(vec![ToolOutcome {
                id: "1".into(),
                name: "echo".into(),
                content: word.repeat(10),
                is_error: false,
                elapsed: Duration::ZERO,
                blocks: None,
                images: Vec::new(),
            }]),
            Turn::Assistant {
                text: word.repeat(10),
                calls: Vec::new(),
                native: None,
            },
        ]
    }

    fn conversation(n: usize) -> (Vec<Turn>, Vec<usize>) {
        let turns: Vec<Turn> = (0..n).flat_map(|i| exchange(&format!(" w{i}"))).collect();
        let sizes = turns.iter().map(turn_tokens).collect();
        (turns, sizes)
    }

    #[test]
    fn under_the_budget_nothing_is_left_out() {
        let (turns, sizes) = conversation(3);
        let total: usize = sizes.iter().sum();
        let c = Compaction::new(total, total / 2);
        assert_eq!(compacted_start(&turns, &sizes, 0, &c), 0);
    }

    #[test]
    fn over_it_whole_exchanges_go_down_to_what_is_kept() {
        let (turns, sizes) = conversation(6);
        let total: usize = sizes.iter().sum();
        let last_two: usize = sizes[16..].iter().sum();
        let c = Compaction::new(total - 1, last_two);
        let start = compacted_start(&turns, &sizes, 0, &c);
        // Down to the last two exchanges, starting at a user message.
        assert_eq!(start, 16);
        assert!(matches!(turns[start], Turn::User(_)));
        // Then nothing more until the history outgrows the budget again.
        assert_eq!(compacted_start(&turns, &sizes, start, &c), start);
    }

    #[test]
    fn the_latest_exchange_is_kept_even_when_it_alone_is_too_long() {
        let (turns, sizes) = conversation(3);
        let c = Compaction::new(1, 1);
        assert_eq!(compacted_start(&turns, &sizes, 0, &c), 8);
    }

    #[test]
    fn every_kind_of_turn_counts() {
        let attached = Turn::Attached {
            tools: vec!["calculate".into()],
            text: "[Tools attached] {\"name\":\"calculate\"}".into(),
        };
        assert!(turn_tokens(&attached) > 5);
        let native = Turn::Assistant {
            text: "ignored".into(),
            calls: Vec::new(),
            native: Some(json!([{"type": "text", "text": "the provider's own blocks"}])),
        };
        assert!(turn_tokens(&native) > turn_tokens(&Turn::User("ignored".into())));
    }
}
