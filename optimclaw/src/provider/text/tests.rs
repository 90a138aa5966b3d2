//! Tests of the text dialect and of the lenient text-call reader.

use serde_json::json;

use super::*;

fn tools(name: &str) -> bool {
    matches!(name, "base64_encode" | "calculate" | "tool_info")
}

fn names(text: &str) -> Option<Vec<String>> {
    read_text_calls(text, tools).map(|calls| calls.into_iter().map(|c| c.tool).collect())
}

#[test]
fn a_bare_object_is_a_call() {
    let calls = read_text_calls(
        r#"{"name": "base64_encode", "arguments": {"text": "hello world"}}"#,
        tools,
    )
    .unwrap();
    assert_eq!(calls.len(), 1);
    let args: Value = serde_json::from_str(&calls[0].raw_arguments).unwrap();
    assert_eq!(args, json!({"text": "hello world"}));
}

#[test]
fn fenced_blocks_tags_and_arrays_are_calls() {
    let fenced =
        "```json\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2+2\"}}\n```";
    assert_eq!(names(fenced).unwrap(), ["calculate"]);
    let tagged = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": \"{\\\"expression\\\": \\\"1\\\"}\"}\n</tool_call>\n<tool_call>{\"name\": \"tool_info\", \"arguments\": {\"query\": \"time\"}}</tool_call>";
    assert_eq!(names(tagged).unwrap(), ["calculate", "tool_info"]);
    let array = r#"[{"name": "calculate", "parameters": {"expression": "1"}}, {"name": "tool_info", "args": {"query": "x"}}]"#;
    assert_eq!(names(array).unwrap(), ["calculate", "tool_info"]);
    let lines = "{\"name\": \"calculate\", \"arguments\": {}}\n{\"name\": \"tool_info\", \"arguments\": {}}";
    assert_eq!(names(lines).unwrap(), ["calculate", "tool_info"]);
    let short_prose =
        "Sure:\n```\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"3\"}}\n```";
    assert_eq!(names(short_prose).unwrap(), ["calculate"]);
    // Mistral's and Llama 3's markers before the calls.
    let mistral = "[TOOL_CALLS][{\"name\": \"calculate\", \"arguments\": {\"expression\": \"5\"}}]";
    assert_eq!(names(mistral).unwrap(), ["calculate"]);
    let llama = "<|python_tag|>{\"name\": \"calculate\", \"parameters\": {\"expression\": \"6\"}}";
    assert_eq!(names(llama).unwrap(), ["calculate"]);
    // The text dialect's own shape is read too.
    let dialect = "```json\n{\"tool\": \"calculate\", \"arguments\": {\"expression\": \"4\"}}\n```";
    assert_eq!(names(dialect).unwrap(), ["calculate"]);
}

#[test]
fn a_call_with_a_models_slips_in_its_strings_is_read() {
    // Qwen2.5-Coder-1.5B's call of a JSON tool, as it wrote it.
    let written = "```json\n{\n  \"name\": \"calculate\",\n  \"arguments\": {\n    \"expression\": '{\"book\": {\"pages\": 412}}',\n    \"query\": \"$.book.pages\"\n  }\n}\n```";
    let calls = read_text_calls(written, tools).unwrap();
    let args: Value = serde_json::from_str(&calls[0].raw_arguments).unwrap();
    assert_eq!(
        args,
        json!({"expression": "{\"book\": {\"pages\": 412}}", "query": "$.book.pages"})
    );
    // Bare, and in tags, too; an apostrophe in prose is no string.
    assert_eq!(
        names("{'name': 'calculate', 'arguments': {'expression': '1'}}").unwrap(),
        ["calculate"]
    );
    assert_eq!(
        names(
            "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": '2'}}</tool_call>"
        )
        .unwrap(),
        ["calculate"]
    );
    assert_eq!(names("It's {\"name\": \"calculate\"}, isn't it"), None);
    // A regex's backslash written once, as the 0.5B writes it.
    let regex = "```json\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"[a-z]+@[a-z]+\\.com\"}}\n```";
    let calls = read_text_calls(regex, tools).unwrap();
    let args: Value = serde_json::from_str(&calls[0].raw_arguments).unwrap();
    assert_eq!(args, json!({"expression": "[a-z]+@[a-z]+\\.com"}));
}

#[test]
fn prose_stays_prose() {
    // An answer that shows JSON, with a lot of text around it.
    let answer = format!(
        "To encode text, you would call the tool like this:\n```json\n{}\n```\n{}",
        r#"{"name": "base64_encode", "arguments": {"text": "hi"}}"#,
        "It returns the encoded text, which you can then paste wherever you need it. Let me know if you want me to run it for you."
    );
    assert_eq!(names(&answer), None);
    // Plain answers, JSON data, unknown names, other fields, other languages.
    assert_eq!(names("The answer is 42."), None);
    assert_eq!(names(r#"{"result": 126}"#), None);
    assert_eq!(names(r#"{"name": "Alice", "age": 30}"#), None);
    assert_eq!(names(r#"{"name": "launch_rocket", "arguments": {}}"#), None);
    assert_eq!(
        names("```python\nprint({\"name\": \"calculate\", \"arguments\": {}})\n```"),
        None
    );
    assert_eq!(names("[1, 2, 3]"), None);
}

#[test]
fn an_argument_written_beside_the_arguments_is_one_of_them() {
    let high = r#"{"name": "calculate", "arguments": {"expression": "1+"}, "precision": 2}"#;
    let calls = read_text_calls(high, tools).unwrap();
    let args: Value = serde_json::from_str(&calls[0].raw_arguments).unwrap();
    assert_eq!(args, json!({"expression": "1+", "precision": 2}));
    // A tool described, a field given twice, a name without arguments:
    // not calls.
    for text in [
        r#"{"name": "calculate", "description": "Evaluate.", "parameters": {"type": "object"}}"#,
        r#"{"name": "calculate", "arguments": {"expression": "1"}, "expression": "2"}"#,
        r#"{"name": "calculate", "result": 4}"#,
        r#"{"name": "calculate", "arguments": "{}", "precision": 2}"#,
    ] {
        assert_eq!(names(text), None, "{text}");
    }
}

#[test]
fn what_a_small_model_writes_after_its_calls_is_left_out() {
    // The call, then the result the model imagined for it.
    let imagined =
        "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2+2\"}}\n{\"result\": 4}";
    assert_eq!(names(imagined).unwrap(), ["calculate"]);
    // Calls repeated until the output cap cut the last one short.
    let cut = "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}\n{\"name\": \"tool_info\", \"arguments\": {}}\n{\"name\": \"calcu";
    assert_eq!(names(cut).unwrap(), ["calculate", "tool_info"]);
    // The same call over and over: one call.
    let repeated = "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}\n".repeat(5);
    assert_eq!(names(&repeated).unwrap(), ["calculate"]);
    // A call, then a short remark.
    let remark =
        "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}\nThis adds them.";
    assert_eq!(names(remark).unwrap(), ["calculate"]);
    // A call shown before a long explanation is an answer.
    let explained = format!(
        "{}\n{}",
        r#"{"name": "calculate", "arguments": {"expression": "1"}}"#,
        "That is how you would call the calculator; it takes one expression and returns its value, so you can paste it wherever you need it."
    );
    assert_eq!(names(&explained), None);
    // Data first, then a call: data.
    assert_eq!(
        names("{\"result\": 4}\n{\"name\": \"calculate\", \"arguments\": {}}"),
        None
    );
    assert_eq!(names("{\"result\": 4}\n{\"cut"), None);
}

#[test]
fn arguments_that_are_not_an_object_stay_a_call_as_written() {
    let calls = read_text_calls(r#"{"name": "calculate", "arguments": "2+2"}"#, tools).unwrap();
    assert_eq!(calls[0].raw_arguments, "2+2");
}

#[test]
fn the_strict_reader_and_the_lenient_one_share_fences() {
    let reply = "```json\n{\"tool\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}\n```";
    let strict = parse_text_call(reply).unwrap().unwrap();
    let lenient = read_text_calls(reply, tools).unwrap();
    assert_eq!(strict.tool, lenient[0].tool);
    let (blocks, prose) = fenced_parts("intro\n```json\n{}\n```\noutro");
    assert_eq!(blocks, [("json", "{}\n")]);
    assert_eq!(prose, "intro".len() + "outro".len());
}

#[test]
fn a_call_short_of_its_last_brace_is_read_whole() {
    let short = r#"{"name": "base64_encode", "arguments": {"text": "hello world"}"#;
    let calls = read_text_calls(short, tools).unwrap();
    assert_eq!(calls[0].tool, "base64_encode");
    assert_eq!(calls[0].raw_arguments, r#"{"text":"hello world"}"#);
    // The bridge's call, one brace short.
    let bridged = r#"{"name": "tool_info", "arguments": {"name": "x", "arguments": {"a": "b"}}"#;
    assert_eq!(names(bridged).unwrap(), ["tool_info"]);
    // Two braces short, or cut inside a string: not read.
    for cut in [
        r#"{"name": "calculate", "arguments": {"expression": "1""#,
        r#"{"name": "calculate", "arguments": {"expression": "1"#,
        r#"{"name": "calculate", "arguments": {"expression": "1"}, "#,
    ] {
        assert!(read_text_calls(cut, tools).is_none(), "{cut}");
    }
}

/// Replies as Qwen2.5-Coder-1.5B wrote them: the call explained first.
const ANNOUNCED: &str = "To encode the text, you can use the `base64_encode` function. Here's how you can do it:\n\n```json\n{\n  \"name\": \"base64_encode\",\n  \"arguments\": {\n    \"text\": \"lazy tools\"\n  }\n}\n```\n\nThe output will be the base64-encoded form of the text, which you can paste wherever you need it.";

#[test]
fn a_call_the_prose_announces_by_name_is_read_by_the_announced_reader_only() {
    // Too much prose for the strict reader: an answer showing JSON.
    assert!(read_text_calls(ANNOUNCED, tools).is_none());
    let calls = read_announced_calls(ANNOUNCED, tools).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool, "base64_encode");
    let args: Value = serde_json::from_str(&calls[0].raw_arguments).unwrap();
    assert_eq!(args, json!({"text": "lazy tools"}));
    // A plain fence, and a second block after it (what the call "returns"),
    // change nothing.
    let plain = ANNOUNCED.replace("```json", "```")
        + "\n\n```json\n{\"result\": \"bGF6eSB0b29scw==\"}\n```";
    assert_eq!(read_announced_calls(&plain, tools).unwrap(), calls);
}

#[test]
fn a_block_the_prose_does_not_announce_stays_an_answer() {
    let cases = [
        // The tool is not named before the block (only after it, or as a
        // plain word, or another tool is named).
        ANNOUNCED.replace("the `base64_encode` function", "a function"),
        ANNOUNCED.replace("`base64_encode` function", "base64_encode function"),
        ANNOUNCED.replace("`base64_encode`", "`calculate`"),
        ANNOUNCED.replace("the `base64_encode` function", "a function") + " Use `base64_encode`.",
        // A tool the caller does not know, though named.
        ANNOUNCED.replace("base64_encode", "base64_magic"),
        // The block is data or code, not a call.
        "Use the `calculate` tool; its result looks like:\n```json\n{\"result\": 4}\n```"
            .to_owned(),
        "Call the `calculate` tool:\n```python\ncalculate(expression=\"2+2\")\n```".to_owned(),
        // The block does not parse (cut short).
        ANNOUNCED[..ANNOUNCED.find("\"text\"").unwrap()].to_owned(),
        // No block at all.
        "You can use the `calculate` tool for that.".to_owned(),
    ];
    for text in &cases {
        assert!(read_announced_calls(text, tools).is_none(), "{text}");
    }
}
