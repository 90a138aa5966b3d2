//! What a run produced, as the model reads it: the returned value or the
//! error, the `console.log` lines (capped), and notes on what was cut.

use serde_json::Value;

/// What a run produced.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// The returned value (JSON) or the error, with its line.
    pub outcome: Option<Result<Value, String>>,
    pub logs: Vec<String>,
    /// What was cut (result, logs), said to the model.
    pub notes: Vec<String>,
    pub tool_calls: u64,
}

impl Report {
    /// The tool result: `{"result": …, "logs": […]}` or `{"error": …, "logs": […]}`.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        match &self.outcome {
            Some(Ok(value)) => {
                out.insert("result".into(), value.clone());
            }
            Some(Err(message)) => {
                out.insert("error".into(), Value::String(message.clone()));
            }
            None => {
                out.insert(
                    "error".into(),
                    Value::String("the program did not finish".into()),
                );
            }
        }
        out.insert(
            "logs".into(),
            Value::Array(self.logs.iter().cloned().map(Value::String).collect()),
        );
        if !self.notes.is_empty() {
            out.insert(
                "notes".into(),
                Value::Array(self.notes.iter().cloned().map(Value::String).collect()),
            );
        }
        Value::Object(out)
    }
}

/// `console.log` lines, capped in total bytes.
#[derive(Clone)]
pub(super) struct Logs {
    pub(super) lines: Vec<String>,
    bytes: usize,
    max: usize,
    dropped: usize,
}

impl Logs {
    pub(super) fn new(max: usize) -> Self {
        Logs {
            lines: Vec::new(),
            bytes: 0,
            max,
            dropped: 0,
        }
    }

    pub(super) fn push(&mut self, line: String) {
        if self.bytes + line.len() > self.max {
            let room = self.max.saturating_sub(self.bytes);
            if self.dropped == 0 && room > 0 {
                self.lines.push(format!("{}…", cut(&line, room)));
                self.bytes = self.max;
            }
            self.dropped += 1;
            return;
        }
        self.bytes += line.len();
        self.lines.push(line);
    }

    pub(super) fn note(&self) -> Option<String> {
        (self.dropped > 0).then(|| {
            format!(
                "logs are capped at {} bytes: {} line(s) were cut or not shown",
                self.max, self.dropped
            )
        })
    }
}

/// The longest prefix of `s` within `max` bytes, at a character boundary.
pub(super) fn cut(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
