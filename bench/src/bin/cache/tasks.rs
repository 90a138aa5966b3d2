//! The conversations the cache bench plays: their messages, the tool each
//! needs and the arguments of its call.

use serde_json::{Value, json};

use crate::standin::Task;

pub(crate) fn task(
    message: &str,
    tool: Option<&'static str>,
    query: &'static str,
    args: Value,
) -> Task {
    Task {
        message: message.to_owned(),
        tool,
        query,
        args,
        also: None,
    }
}

/// The conversation: the 8 messages below, `rounds` times (later rounds
/// use tools found in the first, as long conversations do).
pub(crate) fn script(rounds: usize) -> Vec<Task> {
    let one = vec![
        task(
            "What is 6 times 7?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "6 * 7"}),
        ),
        task(
            "Encode the word hello in base64.",
            Some("base64_encode"),
            "base64 encode text",
            json!({"text": "hello"}),
        ),
        task(
            "And 12 times 12?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "12 * 12"}),
        ),
        task(
            "How many words are in 'the quick brown fox'?",
            Some("word_count"),
            "count words in a text",
            json!({"text": "the quick brown fox"}),
        ),
        task(
            "What time is 2026-03-01T12:00:00Z in Tokyo?",
            Some("timezone_convert"),
            "convert time zone",
            json!({"datetime": "2026-03-01T12:00:00Z", "to": "Asia/Tokyo"}),
        ),
        task(
            "Echo the word done.",
            Some("echo"),
            "",
            json!({"text": "done"}),
        ),
        task(
            "What is 3 plus 4?",
            Some("calculate"),
            "calculate arithmetic expression",
            json!({"expression": "3 + 4"}),
        ),
        task("Thanks, that is all.", None, "", json!({})),
    ];
    let mut all = Vec::new();
    for round in 0..rounds {
        for mut t in one.clone() {
            if round > 0 {
                t.message = format!("{} (again, {})", t.message, round + 1);
            }
            all.push(t);
        }
    }
    all
}

/// Twelve tasks, each needing one deferred tool of the assistant, as a
/// user would ask them (not tuned to the search).
pub(crate) fn never_search_tasks() -> Vec<Task> {
    vec![
        task(
            "Encode 'hello world' as base64.",
            Some("base64_encode"),
            "",
            json!({"text": "hello world"}),
        ),
        task(
            "Decode this base64 for me: aGVsbG8=",
            Some("base64_decode"),
            "",
            json!({"data": "aGVsbG8="}),
        ),
        task(
            "What is the SHA-256 hash of the word banana?",
            Some("hash_text"),
            "",
            json!({"text": "banana", "algorithm": "sha256"}),
        ),
        task(
            "How many days are there between 2026-01-01 and 2026-03-01?",
            Some("date_diff"),
            "",
            json!({"start": "2026-01-01", "end": "2026-03-01"}),
        ),
        task(
            "Convert 2026-05-01T09:00:00Z to the Europe/Paris time zone.",
            Some("timezone_convert"),
            "",
            json!({"datetime": "2026-05-01T09:00:00Z", "to": "Europe/Paris"}),
        ),
        task(
            "Give me three new random UUIDs.",
            Some("uuid_new"),
            "",
            json!({"count": 3}),
        ),
        task(
            "Turn this CSV into JSON: name,age\nAda,36",
            Some("csv_to_json"),
            "",
            json!({"csv": "name,age\nAda,36"}),
        ),
        task(
            "Split the URL https://example.com:8080/a?b=1 into its parts.",
            Some("url_parse"),
            "",
            json!({"url": "https://example.com:8080/a?b=1"}),
        ),
        task(
            "Show the differences between the texts 'cat' and 'cart'.",
            Some("text_diff"),
            "",
            json!({"original": "cat", "modified": "cart"}),
        ),
        task(
            "Find every number in 'a1 b22 c333' with the regular expression \\d+.",
            Some("regex_find"),
            "",
            json!({"pattern": "\\d+", "text": "a1 b22 c333"}),
        ),
        task(
            "Count the words in 'to be or not to be'.",
            Some("word_count"),
            "",
            json!({"text": "to be or not to be"}),
        ),
        task(
            "Add 3 days to 2026-02-27T10:00:00Z.",
            Some("date_add"),
            "",
            json!({"datetime": "2026-02-27T10:00:00Z", "duration": "3 days"}),
        ),
    ]
}
