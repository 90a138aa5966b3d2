//! Tests of the progress guard.

use std::time::Duration;

use serde_json::json;

use super::*;

fn call(name: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest {
        id: "c".into(),
        name: name.into(),
        raw_arguments: args.to_string(),
        arguments: Ok(args),
    }
}

fn tool(name: &str) -> bool {
    name != "small"
}

fn outcome(content: &str, is_error: bool) -> ToolOutcome {
    ToolOutcome {
        id: "c".into(),
        name: "t".into(),
        content: content.into(),
        is_error,
        elapsed: Duration::ZERO,
        blocks: None,
        images: Vec::new(),
    }
}

#[test]
fn the_same_failing_call_twice_is_no_progress() {
    let mut guard = ProgressGuard::default();
    let bad = call("base64_encode", json!({"text": "hi", "data": "base64"}));
    assert_eq!(guard.judge(std::slice::from_ref(&bad), tool), Verdict::Go);
    guard.record(
        std::slice::from_ref(&bad),
        &[outcome("{\"error\":\"x\"}", true)],
    );
    assert_eq!(
        guard.judge(std::slice::from_ref(&bad), tool),
        Verdict::Repeated {
            tool: "base64_encode".into(),
            error: "{\"error\":\"x\"}".into()
        }
    );
    // Other arguments are a new try.
    let fixed = call("base64_encode", json!({"text": "hi"}));
    assert_eq!(guard.judge(&[fixed], tool), Verdict::Go);
}

/// A guard that saw one call of `name` with `args` return `result`.
fn after(name: &str, args: Value, result: &str) -> ProgressGuard {
    let mut guard = ProgressGuard::default();
    guard.record(&[call(name, args)], &[outcome(result, false)]);
    guard
}

#[test]
fn the_same_step_applied_to_its_own_result_ends_with_that_result() {
    // As the 0.5B looped: the result, then the end of the last expression.
    let guard = after(
        "calculate",
        json!({"expression": "(365 * 24) - 100"}),
        "8660",
    );
    let again = call("calculate", json!({"expression": "8660 - 100"}));
    assert_eq!(
        guard.judge(&[again], tool),
        Verdict::Answered("8660".into())
    );
    let guard = after("calculate", json!({"expression": "144 / 12 + 7"}), "19");
    let again = call("calculate", json!({"expression": "19 / 12 + 7"}));
    assert_eq!(guard.judge(&[again], tool), Verdict::Answered("19".into()));
    // A next step of another kind is progress.
    let guard = after("calculate", json!({"expression": "2 + 3"}), "5");
    for next in ["5 * 4", "5 + 3 * 2", "15 + 3"] {
        let next = call("calculate", json!({"expression": next}));
        assert_eq!(guard.judge(&[next], tool), Verdict::Go);
    }
    // The same call with one argument now the start of its own result.
    let guard = after(
        "date_add",
        json!({"datetime": "2026-02-20", "duration": "P12DT2H"}),
        "2026-03-04T02:00:00+00:00[UTC]",
    );
    let again = call(
        "date_add",
        json!({"datetime": "2026-03-04", "duration": "P12DT2H"}),
    );
    assert_eq!(
        guard.judge(&[again], tool),
        Verdict::Answered("2026-03-04T02:00:00+00:00[UTC]".into())
    );
    // With another argument changed too, or a start too short to be the
    // result's, it is a next step.
    for next in [
        json!({"datetime": "2026-03-04", "duration": "P1D"}),
        json!({"datetime": "2026-03-04", "duration": "P12DT2H", "zone": "UTC"}),
        json!({"datetime": "2026", "duration": "P12DT2H"}),
    ] {
        assert_eq!(guard.judge(&[call("date_add", next)], tool), Verdict::Go);
    }
    // A line of a text result pasted into the same argument.
    let diff = "--- original\n+++ modified\n@@ -1 +1 @@\n-one two three\n\\ No newline at end of file\n+one two four\n";
    let guard = after(
        "text_diff",
        json!({"original": "one two three", "modified": "one two four"}),
        &json!(diff).to_string(),
    );
    let pasted = call(
        "text_diff",
        json!({"original": "one two three\n\\ No newline at end of file\n", "modified": "one two four"}),
    );
    assert_eq!(guard.judge(&[pasted], tool), Verdict::Answered(diff.into()));
    let other = call(
        "text_diff",
        json!({"original": "one two three", "modified": "one two five"}),
    );
    assert_eq!(guard.judge(&[other], tool), Verdict::Go);
    // Another tool, or another argument, is progress too.
    let other = call("word_count", json!({"expression": "5 + 3"}));
    assert_eq!(guard.judge(&[other], tool), Verdict::Go);
    let other = call("calculate", json!({"formula": "5 + 3"}));
    assert_eq!(guard.judge(&[other], tool), Verdict::Go);
}

#[test]
fn a_tool_fed_its_own_result_ends_with_that_result() {
    let mut guard = ProgressGuard::default();
    let first = call("calculate", json!({"expression": "(17 + 25) * 3"}));
    guard.record(std::slice::from_ref(&first), &[outcome("\"126\"", false)]);
    let again = call("calculate", json!({"expression": "126"}));
    assert_eq!(guard.judge(&[again], tool), Verdict::Answered("126".into()));
    assert_eq!(guard.judge(&[first], tool), Verdict::Answered("126".into()));
    let other = call("calculate", json!({"expression": "126 / 2"}));
    assert_eq!(guard.judge(&[other], tool), Verdict::Go);
    // A result object whose fields come back as arguments.
    let mut guard = ProgressGuard::default();
    let now = json!({"datetime": "2026-12-07T09:03:08+01:00", "timezone": "Europe/Paris",
        "unix_seconds": 1796630588, "utc_offset": "+01", "weekday": "Monday"});
    let first = call(
        "time",
        json!({"datetime": "2025-07-04T18:00:00Z", "timezone": "Europe/Paris"}),
    );
    guard.record(
        std::slice::from_ref(&first),
        &[outcome(&now.to_string(), false)],
    );
    let copied = call("time", now.clone());
    assert_eq!(
        guard.judge(&[copied], tool),
        Verdict::Answered(now.to_string())
    );
    // One field taken on (the next page's cursor) is progress.
    let mut guard = ProgressGuard::default();
    let page = call("list", json!({"cursor": null}));
    let listed = json!({"items": ["a", "b"], "cursor": "p2", "total": 9});
    guard.record(
        std::slice::from_ref(&page),
        &[outcome(&listed.to_string(), false)],
    );
    assert_eq!(
        guard.judge(&[call("list", json!({"cursor": "p2"}))], tool),
        Verdict::Go
    );
}

#[test]
fn a_made_up_tool_after_a_success_ends_with_that_success() {
    let mut guard = ProgressGuard::default();
    let made_up = call("small", json!({"size": 10}));
    // With no success in hand it is a call like any other (it fails
    // naming the tools meant).
    assert_eq!(
        guard.judge(std::slice::from_ref(&made_up), tool),
        Verdict::Go
    );
    let decode = call("base64_decode", json!({"data": "c21hbGw="}));
    guard.record(
        std::slice::from_ref(&decode),
        &[outcome("\"small\"", false)],
    );
    assert_eq!(
        guard.judge(std::slice::from_ref(&made_up), tool),
        Verdict::Answered("small".into())
    );
    // After a failure it is left to run (and fail).
    guard.record(std::slice::from_ref(&decode), &[outcome("{}", true)]);
    assert_eq!(guard.judge(&[made_up], tool), Verdict::Go);
}

#[test]
fn a_call_failing_twice_after_a_success_ends_with_that_success() {
    let mut guard = ProgressGuard::default();
    let parse = call("url_parse", json!({"url": "https://example.com:8080/"}));
    guard.record(
        std::slice::from_ref(&parse),
        &[outcome("{\"port\":8080}", false)],
    );
    let fetch = call("http", json!({"url": "https://example.com:8080/"}));
    assert_eq!(guard.judge(std::slice::from_ref(&fetch), tool), Verdict::Go);
    guard.record(
        std::slice::from_ref(&fetch),
        &[outcome("not allowed", true)],
    );
    assert_eq!(
        guard.judge(&[fetch], tool),
        Verdict::Answered("{\"port\":8080}".into())
    );
    // A search is no success to answer with.
    let mut guard = ProgressGuard::default();
    let search = call(TOOL_INFO, json!({"query": "url"}));
    guard.record(std::slice::from_ref(&search), &[outcome("{}", false)]);
    let bad = call("url_parse", json!({"link": "x"}));
    guard.record(std::slice::from_ref(&bad), &[outcome("bad", true)]);
    assert!(matches!(
        guard.judge(&[bad], tool),
        Verdict::Repeated { .. }
    ));
}

#[test]
fn the_last_call_written_again_in_prose_is_answered_with_its_result() {
    let mut guard = ProgressGuard::default();
    let encode = call("base64_encode", json!({"text": "optimclaw rocks"}));
    guard.record(
        std::slice::from_ref(&encode),
        &[outcome("\"b3B0aW1jbGF3IHJvY2tz\"", false)],
    );
    let prose = "To call a function, reply with only a json object.\n{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"optimclaw rocks\"}}";
    assert_eq!(
        guard.written_again(prose),
        Some("b3B0aW1jbGF3IHJvY2tz".to_owned())
    );
    // Other arguments, another tool, plain prose: the prose answers.
    for text in [
        "{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"other\"}}",
        "Use {\"name\": \"calculate\", \"arguments\": {\"text\": \"optimclaw rocks\"}}",
        "The encoded text is b3B0aW1jbGF3IHJvY2tz {not json}.",
    ] {
        assert_eq!(guard.written_again(text), None, "{text}");
    }
    // After a failure there is no result to answer with.
    guard.record(std::slice::from_ref(&encode), &[outcome("bad", true)]);
    assert_eq!(guard.written_again(prose), None);
}

#[test]
fn searches_and_several_calls_are_left_alone() {
    let mut guard = ProgressGuard::default();
    let search = call(TOOL_INFO, json!({"query": "time"}));
    guard.record(std::slice::from_ref(&search), &[outcome("{}", false)]);
    assert_eq!(guard.judge(&[search], tool), Verdict::Go);
    let a = call("calculate", json!({"expression": "1"}));
    guard.record(std::slice::from_ref(&a), &[outcome("\"1\"", false)]);
    assert_eq!(guard.judge(&[a.clone(), a], tool), Verdict::Go);
}
