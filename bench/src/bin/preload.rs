//! What preload attaches to requests it was not tuned on: 30 messages for
//! the assistant's deferred tools, written as users write them and without
//! looking at the search first. Each message goes to a fresh session (so
//! nothing counts as attached before); a message "holds the tool" when
//! what is attached includes the one it needs: what a model that never
//! calls `tool_info` needs to do the task.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin preload`.

use optimclaw::preload::PreloadOptions;
use optimclaw::{LazyConfig, Registry, Session};

/// (message, the tool it needs).
const MESSAGES: [(&str, &str); 30] = [
    ("Can you turn 'good morning' into base64?", "base64_encode"),
    (
        "What does SGVsbG8gd29ybGQ= say once decoded?",
        "base64_decode",
    ),
    (
        "I need an md5 checksum of the string 'password123'.",
        "hash_text",
    ),
    (
        "Generate a fresh unique identifier for my new record.",
        "uuid_new",
    ),
    (
        "Replace every 'colour' with 'color' in this sentence: The colour of the colour wheel.",
        "regex_replace",
    ),
    (
        "Pull out all the email addresses from this text: contact a@b.com or c@d.org",
        "regex_find",
    ),
    (
        "How long is this paragraph in characters? 'Lorem ipsum dolor sit amet'",
        "word_count",
    ),
    ("What's 15% of 240?", "calculate"),
    (
        "Here's a spreadsheet export, make it JSON objects: id;name\n1;Ann",
        "csv_to_json",
    ),
    (
        "Which host and port does http://localhost:3000/api?x=1 point to?",
        "url_parse",
    ),
    (
        "How many hours passed between 2026-06-01T08:00Z and 2026-06-03T20:00Z?",
        "date_diff",
    ),
    ("What date is two weeks after 2026-12-20?", "date_add"),
    (
        "It's 9am in New York, what time is it in London?",
        "timezone_convert",
    ),
    (
        "Compare these two versions of the line and show me what changed: 'hello world' vs 'hello there world'",
        "text_diff",
    ),
    ("Which files in the workspace end in .md?", "glob"),
    ("Show me what's inside the docs folder.", "list_dir"),
    ("Search the source files for the word TODO.", "grep"),
    (
        "How big is report.pdf and when was it last modified?",
        "file_info",
    ),
    ("Rename draft.txt to final.txt.", "file_move"),
    ("Delete the old backup.zip file.", "file_delete"),
    ("Create a folder called archive.", "make_dir"),
    (
        "Forget what I told you about my favourite colour.",
        "memory_delete",
    ),
    (
        "Run the test suite in the background and tell me when it finishes.",
        "job_create",
    ),
    (
        "Remind me every Monday at 9 to send the weekly report.",
        "routine_create",
    ),
    ("What scheduled routines do I have?", "routine_list"),
    ("Store my GitHub token as a secret.", "secrets_set"),
    ("Which skills are installed?", "skill_list"),
    ("Cancel the running backup job.", "job_cancel"),
    ("What is 128 divided by 4?", "calculate"),
    ("Multiply 17 by 23 for me.", "calculate"),
];

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .expect("the catalog is valid");
    let options = PreloadOptions::default();
    let (mut holds, mut wrong, mut nothing, mut schemas) = (0, 0, 0, 0);
    println!("| message | needs | attached | verdict |\n|---|---|---|---|");
    for (message, needs) in MESSAGES {
        let session = Session::new(registry.clone());
        let attached = session
            .preload(message, &options)
            .map(|p| p.tools)
            .unwrap_or_default();
        schemas += attached.len();
        let verdict = if attached.iter().any(|t| t == needs) {
            holds += 1;
            "holds the tool"
        } else if attached.is_empty() {
            nothing += 1;
            "nothing attached"
        } else {
            wrong += 1;
            "wrong tool"
        };
        let shown = message.replace('\n', " ");
        println!(
            "| {shown} | `{needs}` | {} | {verdict} |",
            attached.join(", ")
        );
    }
    println!(
        "\n{holds} of {} hold the tool they need, {wrong} carry only a wrong one, {nothing} carry nothing; {schemas} schemas attached in all (max_tools {}).",
        MESSAGES.len(),
        options.max_tools
    );
}
