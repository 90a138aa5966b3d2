//! The progress guard: a conversation that stops making progress ends
//! instead of running to `max_steps`. Small models loop in two ways:
//!
//! - they send the same failing call again (the same tool, the same
//!   arguments), whatever the error said;
//! - they call a tool again after it succeeded: with the same arguments, or
//!   fed its own last result (`calculate` returned `126`, then
//!   `calculate({"expression": "126"})`, or returned `8660` for
//!   `(365 * 24) - 100`, then `calculate({"expression": "8660 - 100"})`;
//!   `time` returned `{"datetime": …,
//!   "weekday": …, "utc_offset": …}` and was called with those fields), or
//!   they call a tool that does not exist after one succeeded
//!   (`base64_decode` answered, then `small({"size": 10})`), or, given the
//!   result, they write the call they made once more inside prose (read as
//!   an answer, the prose would hide the result), or end with an empty
//!   reply.
//!
//! The first ends the turn with [`AgentError::NoProgress`](crate::AgentError)
//! naming the call and its error, unless a tool succeeded earlier in the
//! turn: then, like the others, it ends with the result already in hand
//! (the last success) as the answer. A small model that got its answer
//! often wanders on to a call that fails (`url_parse` answered, then
//! `http` to the same URL, refused twice). `tool_info` is left to the
//! search guard.

use serde_json::Value;

use super::{ToolCallRequest, ToolOutcome};
use optimclaw::TOOL_INFO;

/// What the guard decides about the model's next calls.
#[derive(Debug, PartialEq)]
pub(super) enum Verdict {
    /// Run them.
    Go,
    /// The same call failed last time with this error.
    Repeated { tool: String, error: String },
    /// The tool already answered: this is the answer.
    Answered(String),
}

/// The last single call and how it went.
#[derive(Default)]
pub(super) struct ProgressGuard {
    last: Option<(String, Value, Result<Value, String>)>,
    /// The last result of a tool (not `tool_info`) that succeeded.
    succeeded: Option<Value>,
}

impl ProgressGuard {
    /// Judges the calls of a new reply against the last one; `is_tool`
    /// says which names are tools.
    pub(super) fn judge(
        &self,
        calls: &[ToolCallRequest],
        is_tool: impl Fn(&str) -> bool,
    ) -> Verdict {
        let ([call], Some((name, args, outcome))) = (calls, &self.last) else {
            return Verdict::Go;
        };
        if let Ok(result) = outcome
            && name != TOOL_INFO
            && !is_tool(&call.name)
        {
            return Verdict::Answered(answer_text(result));
        }
        let Ok(new_args) = &call.arguments else {
            return Verdict::Go;
        };
        if call.name != *name || call.name == TOOL_INFO {
            return Verdict::Go;
        }
        match outcome {
            Err(error) if new_args == args => match &self.succeeded {
                Some(result) => Verdict::Answered(answer_text(result)),
                None => Verdict::Repeated {
                    tool: name.clone(),
                    error: error.clone(),
                },
            },
            Ok(result) if new_args == args || fed_back(new_args, args, result) => {
                Verdict::Answered(answer_text(result))
            }
            _ => Verdict::Go,
        }
    }

    /// The last call's result when `text`, a reply read as an answer,
    /// writes that same call again among its prose (a small model, given
    /// its result, writes the call it made once more, after a sentence of
    /// its instructions): the result is the answer, not the prose.
    pub(super) fn written_again(&self, text: &str) -> Option<String> {
        let (name, args, Ok(result)) = self.last.as_ref()? else {
            return None;
        };
        if name == TOOL_INFO {
            return None;
        }
        let same = |object: &Value| {
            let Some(map) = object.as_object() else {
                return false;
            };
            let named = ["name", "tool"]
                .iter()
                .any(|k| map.get(*k).and_then(Value::as_str) == Some(name.as_str()));
            let with_args = ["arguments", "parameters", "args"]
                .iter()
                .filter_map(|k| map.get(*k))
                .any(|a| match a {
                    Value::String(raw) => {
                        serde_json::from_str::<Value>(raw).ok().as_ref() == Some(args)
                    }
                    other => other == args,
                });
            named && with_args
        };
        embedded_objects(text)
            .any(|o| same(&o))
            .then(|| answer_text(result))
    }

    /// The last successful result of the turn (not `tool_info`'s), as the
    /// answer's text.
    pub(super) fn in_hand(&self) -> Option<String> {
        self.succeeded.as_ref().map(answer_text)
    }

    /// Remembers the calls just run (only a lone call is remembered: a
    /// reply with several calls is progress of its own).
    pub(super) fn record(&mut self, calls: &[ToolCallRequest], outcomes: &[ToolOutcome]) {
        for (call, outcome) in calls.iter().zip(outcomes) {
            if !outcome.is_error && call.name != TOOL_INFO {
                self.succeeded = Some(result_value(outcome));
            }
        }
        self.last = match (calls, outcomes) {
            ([call], [outcome]) => call.arguments.as_ref().ok().map(|args| {
                let result = if outcome.is_error {
                    Err(outcome.content.clone())
                } else {
                    Ok(result_value(outcome))
                };
                (call.name.clone(), args.clone(), result)
            }),
            _ => None,
        };
    }
}

/// A successful outcome's content as JSON (text that is no JSON as a string).
fn result_value(outcome: &ToolOutcome) -> Value {
    serde_json::from_str(&outcome.content)
        .unwrap_or_else(|_| Value::String(outcome.content.clone()))
}

/// Whether the new call is fed the tool's own last result: an argument is
/// that result (a string or a number), or that result followed by the end
/// of the same argument in the last call (the same step applied to its own
/// result again: `calculate` sent `(365 * 24) - 100`, got `8660`, then
/// sent `8660 - 100`, `8560 - 100`, … to the step limit), or the same call
/// with one argument now the result's start (`date_add` of `2026-02-20`
/// gave `2026-03-04T02:00:00+00:00[UTC]`, then the same duration was added
/// to `2026-03-04`, and again, to the step limit), or, for a result
/// that is an object, the call copies most of its fields: at least two, and
/// at least half of its scalar fields, each a value the last call did not
/// send. A call that takes one field on (a cursor to the next page) is
/// progress, and so is a next step of another kind (`5 * 4` after `2 + 3`
/// gave `5`). A request to apply one step twice in one turn ("double 5,
/// then double that") reads the same as the loop and ends at the first
/// result; small models loop this way far more often than they are asked
/// that (`stop_when_stuck` turns the guard off).
fn fed_back(args: &Value, last_args: &Value, result: &Value) -> bool {
    let Some(map) = args.as_object() else {
        return false;
    };
    if let Value::Object(fields) = result {
        let scalar = |v: &Value| !v.is_object() && !v.is_array() && !v.is_null();
        let scalars = fields.values().filter(|v| scalar(v)).count();
        let copied = fields
            .iter()
            .filter(|(key, value)| {
                scalar(value)
                    && map.get(*key) == Some(value)
                    && last_args.get(key.as_str()) != Some(value)
            })
            .count();
        return copied >= 2 && 2 * copied >= scalars;
    }
    let result_text = match result {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return false,
    };
    if result_text.is_empty() {
        return false;
    }
    map.iter().any(|(key, v)| match v {
        Value::String(s) => {
            let s = s.trim();
            s == result_text
                || last_args
                    .get(key)
                    .and_then(Value::as_str)
                    .is_some_and(|last| {
                        applied_again(s, last.trim(), &result_text)
                            || pasted_line(s, last, result)
                            || (result_text.starts_with(s)
                                && s != last.trim()
                                && s.chars().count() >= MIN_RESULT_START
                                && only_change(map, last_args, key))
                    })
        }
        Value::Number(n) => n.to_string() == result_text,
        _ => false,
    })
}

/// Whether `args` are `last` with only `key`'s value changed.
fn only_change(args: &serde_json::Map<String, Value>, last: &Value, key: &str) -> bool {
    last.as_object().is_some_and(|last| {
        last.len() == args.len() && args.iter().all(|(k, v)| k == key || last.get(k) == Some(v))
    })
}

/// The shortest start of a result that, sent back in the same call, is
/// that result fed back (a date of 10 characters is; a year of 4 is not).
const MIN_RESULT_START: usize = 8;

/// Lines of a result at least this long, found in the next call's
/// argument, are the result pasted back ([`pasted_line`]).
const MIN_PASTED_LINE: usize = 8;

/// Whether `arg`, changed from `last`, now holds a whole line of the text
/// `result` that `last` did not: the model pasted its result into its next
/// call (`text_diff` of `one two three`, then of `one two three` and the
/// diff's `\ No newline at end of file`, growing by a line each request).
fn pasted_line(arg: &str, last: &str, result: &Value) -> bool {
    let Value::String(text) = result else {
        return false;
    };
    arg != last
        && text
            .lines()
            .map(str::trim)
            .filter(|line| line.chars().count() >= MIN_PASTED_LINE)
            .any(|line| arg.contains(line) && !last.contains(line))
}

/// Whether `arg` is `result` followed by the end of `last` (the argument
/// the result came from): the same step applied to the result again.
fn applied_again(arg: &str, last: &str, result: &str) -> bool {
    arg.strip_prefix(result)
        .is_some_and(|step| !step.trim().is_empty() && arg != last && last.ends_with(step))
}

/// The JSON objects written in `text`, each from one of its `{` (objects
/// inside others are not looked at again).
fn embedded_objects(text: &str) -> impl Iterator<Item = Value> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(at) = text.get(from..)?.find('{') {
            let start = from + at;
            let mut stream =
                serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
            match stream.next() {
                Some(Ok(value @ Value::Object(_))) => {
                    from = start + stream.byte_offset();
                    return Some(value);
                }
                _ => from = start + 1,
            }
        }
        None
    })
}

/// Whether a reply echoes the chat template's instruction for calls rather
/// than answering: it holds the placeholders of Qwen's template
/// (`{"name": <function-name>, "arguments": <args-json-object>}`), which
/// no answer does. Qwen2.5-Coder 1.5B replies so to a right call's result
/// when the server parses its calls (11 times in the recorded runs, in
/// five sets): the result in hand is the answer.
pub(super) fn echoes_call_format(text: &str) -> bool {
    text.contains("<function-name>") || text.contains("<args-json-object>")
}

/// A result as the answer's text: a string as it is, anything else as JSON.
fn answer_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
