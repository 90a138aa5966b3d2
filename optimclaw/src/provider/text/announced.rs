//! A call a reply's prose announces by name, then writes in a fenced
//! block: "To parse the URL, you can use the `url_parse` function. Here's
//! how: ```json {"name": "url_parse", "arguments": {…}}``` This returns…".
//! Small models write their call this way when they explain it first
//! (Qwen2.5-Coder-1.5B often does, always with the tool's name in
//! backticks before the block).

use super::{WrittenCall, as_call, fenced_parts, json_objects};

/// The calls of a reply whose text *announces* them: its first fenced
/// block (` ```json ` or plain) holds calls (`{"name": …, "arguments":
/// …}`, as [`read_text_calls`](super::read_text_calls) reads them), each
/// naming a tool `is_tool` knows, and the text before that block names
/// each of those tools in backticks (`` `url_parse` ``). Any amount of
/// prose may stand around the block; other blocks after it are not read.
/// `None` for anything else: a block of data, a call of a tool the prose
/// does not name, a block that does not parse.
///
/// Prose that shows how a tool is called reads the same as prose that
/// calls it, so this is for the caller to apply where a call is what the
/// model means: before a tool has answered in the turn (after a result, a
/// model explaining what it did writes its call again).
///
/// ```
/// use optimclaw::provider::read_announced_calls;
/// let is_tool = |name: &str| name == "url_parse";
/// let reply = "To get the host you can use the `url_parse` function. Here's how:\n\n\
///     ```json\n{\"name\": \"url_parse\", \"arguments\": {\"url\": \"https://a.example/x\"}}\n```\n\n\
///     This returns the URL's parts, among them its host, which is what you asked for.";
/// let calls = read_announced_calls(reply, is_tool).unwrap();
/// assert_eq!(calls[0].tool, "url_parse");
/// // The same block after prose that does not name the tool: an answer.
/// let shown = reply.replace("the `url_parse` function", "a parser");
/// assert!(read_announced_calls(&shown, is_tool).is_none());
/// ```
pub fn read_announced_calls(
    text: &str,
    is_tool: impl Fn(&str) -> bool,
) -> Option<Vec<WrittenCall>> {
    let fence = text.find("```")?;
    let before = &text[..fence];
    let (blocks, _) = fenced_parts(text);
    let (lang, body) = blocks.first()?;
    if !lang.is_empty() && !lang.eq_ignore_ascii_case("json") {
        return None;
    }
    let mut calls: Vec<WrittenCall> = Vec::new();
    for object in json_objects(body.trim())? {
        let Some(call) = as_call(&object) else {
            break;
        };
        if !is_tool(&call.tool) || !before.contains(&format!("`{}`", call.tool)) {
            return None;
        }
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    (!calls.is_empty()).then_some(calls)
}
