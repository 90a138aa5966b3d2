//! Example user requests (`asks`): indexed for `tool_info`, on linked and
//! dynamic tools and in manifests; and the discoverability report.

use optimclaw::manifest::{ManifestOptions, parse_manifest};
use optimclaw::search::Weights;
use optimclaw::testing::discoverability;
use optimclaw::{DynamicTool, MatchStrength, Registry, tool};
use serde_json::json;

/// Add an item to the to-do list.
#[tool(asks = ["remind me to call mom tomorrow", "don't let me forget the dentist"])]
fn todo_add(
    /// What to do.
    text: String,
) -> String {
    text
}

/// Archive old notes.
#[tool(keywords = ["archive"])]
fn note_archive(
    /// Notes older than this many days.
    days: u32,
) -> u32 {
    days
}

fn registry(weights: Weights) -> Registry {
    let weather = DynamicTool::new(
        "weather_now",
        "Current conditions for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
    .asks(["do I need an umbrella in Paris?", "  "]);
    Registry::builder()
        .search_weights(weights)
        .tool(weather)
        .build()
        .unwrap()
}

#[test]
fn asks_are_searched_and_only_them_find_these_requests() {
    let with = registry(Weights::default());
    assert_eq!(with.get("todo_add").unwrap().asks().len(), 2);
    assert_eq!(
        with.get("weather_now").unwrap().asks(),
        ["do I need an umbrella in Paris?"],
        "blank asks are dropped"
    );
    // Words only the asks hold.
    for (request, tool) in [
        ("remind me to phone my sister", "todo_add"),
        ("should I take an umbrella", "weather_now"),
    ] {
        let answer = with.tool_info(request, 3).unwrap();
        assert_eq!(answer.tools[0].name, tool, "{request}: {answer:?}");
        let without = registry(Weights::default().with_asks(0.0));
        let answer = without.tool_info(request, 3).unwrap();
        assert!(
            answer.no_match
                || answer
                    .tools
                    .first()
                    .is_none_or(|t| t.name != tool || t.strength == Some(MatchStrength::Listed)),
            "{request} found {tool} without its asks: {answer:?}"
        );
    }
}

#[test]
fn manifests_carry_asks_as_a_field_or_in_meta() {
    let text = json!({"tools": [
        {"name": "a_tool", "description": "A.", "inputSchema": {"type": "object"},
         "asks": ["please do the first thing"]},
        {"name": "b_tool", "description": "B.", "inputSchema": {"type": "object"},
         "_meta": {"io.optimclaw/asks": ["please do the second thing", 3]}},
    ]})
    .to_string();
    let tools = parse_manifest(&text, "test.json", &ManifestOptions::default()).unwrap();
    let registry = Registry::builder()
        .without_linked()
        .tools(tools)
        .build()
        .unwrap();
    assert_eq!(
        registry.get("a_tool").unwrap().asks(),
        ["please do the first thing"]
    );
    assert_eq!(
        registry.get("b_tool").unwrap().asks(),
        ["please do the second thing"]
    );
}

#[test]
fn the_report_names_what_was_missed_confused_and_falsely_matched() {
    let registry = registry(Weights::default());
    let report = discoverability(
        &registry,
        [
            ("remind me to pay the rent", Some("todo_add")),
            ("archive my notes from last year", Some("note_archive")),
            ("will it rain in Lyon today", Some("weather_now")),
            ("zzzz qqqq", Some("todo_add")),
            ("archive the old weather reports", None),
        ],
    );
    assert_eq!(report.results.len(), 5);
    assert_eq!(report.results[0].rank(), Some(1), "{report}");
    assert!(
        report.recall_at(5) >= 0.5 && report.recall_at(5) < 1.0,
        "{report}"
    );
    assert!(
        report.missed().iter().any(|r| r.request == "zzzz qqqq"),
        "{report}"
    );
    let text = report.to_string();
    assert!(text.contains("\"zzzz qqqq\""), "{text}");
    assert!(text.contains("requests for no tool"), "{text}");
    // "archive" is a keyword of note_archive: a strong, false match.
    assert_eq!(report.false_matches().len(), 1, "{text}");
}
