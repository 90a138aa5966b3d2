//! A conversation of parallel calls: messages needing two deferred tools,
//! which the stand-in calls in one reply once both are in sight, for each
//! way of asking for caching.

use optimclaw::{LazyConfig, LoadStrategy, Registry};
use optimclaw_agent::WireFormat;
use serde_json::{Value, json};

use crate::standin::{Behaviour, Task};
use crate::tasks::task;
use crate::{Setup, bill, caching_modes, conversation};

/// A message needing two tools, called together once both are in sight.
fn pair(
    message: &str,
    first: (&'static str, &'static str, Value),
    second: (&'static str, &'static str, Value),
) -> Task {
    Task {
        also: Some(second),
        ..task(message, Some(first.0), first.1, first.2)
    }
}

/// Messages that each need two tools, which the model calls in one reply
/// once both are in sight; 4 rounds of 6 messages.
fn parallel_script() -> Vec<Task> {
    let one = [
        pair(
            "Encode 'hi' in base64 and count the words in 'a b c'.",
            ("base64_encode", "base64 encode text", json!({"text": "hi"})),
            (
                "word_count",
                "count words in a text",
                json!({"text": "a b c"}),
            ),
        ),
        pair(
            "What is 6 times 7, and what is the SHA-256 hash of 'x'?",
            (
                "calculate",
                "calculate arithmetic expression",
                json!({"expression": "6 * 7"}),
            ),
            (
                "hash_text",
                "hash text sha256",
                json!({"text": "x", "algorithm": "sha256"}),
            ),
        ),
        pair(
            "Convert 2026-03-01T12:00:00Z to Tokyo time, and add 3 days to 2026-02-27T10:00:00Z.",
            (
                "timezone_convert",
                "convert time zone",
                json!({"datetime": "2026-03-01T12:00:00Z", "to": "Asia/Tokyo"}),
            ),
            (
                "date_add",
                "add duration to date",
                json!({"datetime": "2026-02-27T10:00:00Z", "duration": "3 days"}),
            ),
        ),
        task(
            "Echo the word done.",
            Some("echo"),
            "",
            json!({"text": "done"}),
        ),
        pair(
            "Generate a UUID and split the URL https://example.com/a?b=1 into its parts.",
            ("uuid_new", "generate uuid", json!({})),
            (
                "url_parse",
                "parse url",
                json!({"url": "https://example.com/a?b=1"}),
            ),
        ),
        task("Thanks, that is all.", None, "", json!({})),
    ];
    (0..4)
        .flat_map(|round| {
            one.iter().cloned().map(move |mut t| {
                if round > 0 {
                    t.message = format!("{} (again, {})", t.message, round + 1);
                }
                t
            })
        })
        .collect()
}

/// A conversation of parallel calls (two tools per message), per wire
/// format and way of asking for caching: eager against bridge + preload.
pub async fn table(registry: &Registry) {
    println!(
        "\nParallel calls: 24 messages, four in six needing two tools the model calls in one reply (assistant catalog):\n"
    );
    println!(
        "| wire format | caching | setup | requests | replies with parallel calls | tool_info calls | uncached tokens | cache reads | cache writes | cost | vs eager with cache | tasks done |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let tasks = parallel_script();
    let n = tasks.len();
    for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
        for &(cache, cache_label) in caching_modes(format) {
            let mut eager_cost = None;
            for (label, lazy, preload) in [
                ("eager", LazyConfig::eager(), false),
                (
                    "bridge",
                    LazyConfig::lazy().with_strategy(LoadStrategy::Bridge),
                    false,
                ),
                (
                    "bridge + preload",
                    LazyConfig::lazy().with_strategy(LoadStrategy::Bridge),
                    true,
                ),
            ] {
                let setup = Setup {
                    label,
                    lazy,
                    preload,
                    cache,
                    compaction: None,
                };
                let run =
                    conversation(format, &setup, registry, tasks.clone(), Behaviour::Searches)
                        .await;
                let b = bill(format, &run.bodies);
                let base = *eager_cost.get_or_insert(b.cost);
                println!(
                    "| {} | {cache_label} | {label} | {} | {} | {} | {} | {}/{n} |",
                    format.name(),
                    b.requests,
                    run.parallel,
                    run.searches,
                    b.cells(base),
                    run.done,
                );
            }
        }
    }
}
