//! What the loop does for the servers small models run on (llama.cpp,
//! vLLM, Ollama): tools a model may call by name listed in `tools`
//! ([`ListLoaded`]), and calls written as text read as calls
//! ([`ToolCalls`](crate::ToolCalls)).

use serde_json::Value;

use super::{
    Agent, CallReading, FirstCall, ListLoaded, ModelReply, ToolCalls, WireFormat, textcall,
};
use optimclaw::provider::{read_announced_calls, read_text_calls, written_json};
use optimclaw::{CALL_TOOL, LoadStrategy};

impl Agent {
    /// Adds the specs of attached and loaded tools to `tools` when
    /// [`AgentOptions::list_loaded`] asks for it (see [`ListLoaded`]).
    pub(super) fn list_loaded(&self, tools: &mut Vec<Value>) {
        if !self.lists_loaded() || tools.is_empty() {
            return;
        }
        let dialect = self.dialect();
        let mut names = self.session.attached();
        names.extend(self.session.loaded());
        for name in names {
            let listed = |spec: &Value| {
                spec.pointer("/function/name")
                    .or_else(|| spec.get("name"))
                    .and_then(Value::as_str)
                    == Some(name.as_str())
            };
            if tools.iter().any(listed) || !self.session.scope().allows(&name) {
                continue;
            }
            if let Some(spec) = self
                .session
                .registry()
                .get(&name)
                .and_then(|tool| optimclaw::provider::tool_spec(tool, dialect).ok())
            {
                tools.push(spec);
            }
        }
    }

    /// Whether attached and loaded tools go in `tools` on this endpoint:
    /// [`AgentOptions::list_loaded`](crate::AgentOptions::list_loaded),
    /// lazily, with native tool calls, outside code mode.
    pub(super) fn lists_loaded(&self) -> bool {
        let on = match self.options.list_loaded {
            ListLoaded::Always => true,
            ListLoaded::Never => false,
            _ => !self.model.is_first_party(),
        };
        on && self.session.lazy_config().enabled
            && self.options.tool_calls != ToolCalls::Text
            && !self.registry_in_code_mode()
    }

    fn registry_in_code_mode(&self) -> bool {
        self.session
            .registry()
            .in_code_mode(self.session.lazy_config())
    }

    /// Reads calls the model wrote as text (see [`ToolCalls`]): the
    /// reply's text becomes the calls.
    ///
    /// A reply that is nothing but calls (one JSON object or an array of
    /// them, in a fence or bare, with no other field than the name and
    /// the arguments) is read as calls even when it names no tool: it is
    /// a call of a tool the model made up, which then fails naming the
    /// tools it may have meant, rather than an answer of raw JSON. A reply
    /// that is one object naming a tool with its parameters beside the name
    /// is that call ([`textcall::read_flat`]). With `announced`, a reply
    /// whose prose names a tool in backticks and then writes its call in a
    /// fenced block is that call
    /// ([`read_announced_calls`](optimclaw::provider::read_announced_calls)):
    /// the loop asks for it until a tool has answered in the turn, since a
    /// model that has its result writes its call again to explain it. Only
    /// tools that cannot destroy data are run from an announcement
    /// ([`ToolHints::may_destroy`](optimclaw::ToolHints::may_destroy)):
    /// prose that shows how to delete a file reads the same as prose about
    /// to delete it. With `announced` too, and on the same terms, a reply
    /// that is nothing but the arguments of the one tool in scope that
    /// takes them ([`textcall::read_arguments_only`]) is that tool's call.
    pub(super) fn read_text_calls(
        &self,
        reply: &mut ModelReply,
        calls_so_far: usize,
        announced: bool,
    ) {
        let known = textcall::read(&reply.text, |n| self.names_a_tool(n), calls_so_far);
        let calls = known
            .or_else(|| {
                only_calls(&reply.text)
                    .then(|| textcall::read(&reply.text, |_| true, calls_so_far))
                    .flatten()
            })
            .or_else(|| {
                let registry = self.session.registry();
                let parameters_of = |name: &str| {
                    registry
                        .get(name)
                        .and_then(|tool| tool.input_schema()["properties"].as_object())
                };
                textcall::read_flat(&reply.text, parameters_of, calls_so_far).map(|call| vec![call])
            })
            .or_else(|| {
                if !announced {
                    return None;
                }
                let harmless = |name: &str| {
                    let tool = self.session.registry().get(name);
                    tool.is_some_and(|t| !t.hints().may_destroy())
                };
                if let Some(calls) = read_announced_calls(&reply.text, harmless) {
                    return Some(textcall::requests(calls, calls_so_far));
                }
                let registry = self.session.registry();
                let in_scope = registry
                    .tools()
                    .iter()
                    .filter(|tool| self.session.scope().allows(tool.name()))
                    .map(|tool| (tool.name(), tool.input_schema()));
                let call = textcall::read_arguments_only(&reply.text, in_scope, calls_so_far)?;
                harmless(&call.name).then(|| vec![call])
            });
        if let Some(calls) = calls {
            reply.text.clear();
            reply.calls = calls;
        }
    }

    /// Whether a call written as text names a tool: one of the registry,
    /// or `call_tool` under the bridge.
    pub(super) fn names_a_tool(&self, name: &str) -> bool {
        let bridge = self.session.lazy_config().strategy == LoadStrategy::Bridge;
        self.session.registry().get(name).is_some() || (bridge && name == CALL_TOOL)
    }

    /// Whether replies are read only up to their first complete call
    /// ([`FirstCall`]): OpenAI-compatible endpoints, on this machine or a
    /// private network and not marked as the provider's own API, unless
    /// the options say otherwise.
    pub(super) fn stops_at_first_call(&self) -> bool {
        if self.model.format != WireFormat::OpenAiChat {
            return false;
        }
        match self.options.first_call {
            FirstCall::Always => true,
            FirstCall::Never => false,
            _ => self.on_local_server(),
        }
    }

    /// Whether the endpoint is on this machine or a private network and
    /// not marked as the provider's own API: where the `Auto` settings for
    /// small models apply.
    fn on_local_server(&self) -> bool {
        self.model.is_local() && !self.model.is_first_party()
    }

    /// Whether the agent, not the server, reads the model's calls
    /// ([`CallReading`]): the request then carries `tool_choice: "none"`
    /// beside its `tools`.
    pub(super) fn reads_calls_itself(&self) -> bool {
        if self.model.format != WireFormat::OpenAiChat || self.options.tool_calls == ToolCalls::Text
        {
            return false;
        }
        match self.options.call_reading {
            CallReading::Agent => true,
            CallReading::Server => false,
            _ => self.on_local_server(),
        }
    }

    /// The reply's text cut after the first call written in it, once the
    /// model has begun another object after it (see [`cut_after_first_call`]).
    pub(super) fn cut_after_first_call(&self, text: &str) -> Option<String> {
        cut_after_first_call(text, |name| self.names_a_tool(name))
    }
}

/// `text` up to the end of its first top-level JSON object, once a second
/// one has begun after it, when that much reads as calls (a fence left
/// open is closed): where a small model that wrote its call goes on to
/// write it again, or another it made up. A first object one closing
/// brace short, with a new line opening the next (`{"name": "f",
/// "arguments": {…}` then `{"name": …` on the next line: the small models
/// miscount the braces of a nested call, then write call after call for
/// their whole output cap), is cut at that line with its brace added.
/// `None` while the text holds no such call, or is prose.
pub(super) fn cut_after_first_call(text: &str, is_tool: impl Fn(&str) -> bool) -> Option<String> {
    first_object_ends(text)
        .into_iter()
        .find_map(|(end, short)| {
            let mut cut = text[..end].trim_end().to_owned();
            if short {
                cut.push('}');
            }
            if cut.matches("```").count() % 2 == 1 {
                cut.push_str("\n```");
            }
            (read_text_calls(&cut, |n| is_tool(n)).is_some() || only_calls(&cut)).then_some(cut)
        })
}

/// Whether `text` is nothing but calls: one JSON object or an array of
/// them, bare or in one fence, each with a name (`name` or `tool`) and
/// arguments (`arguments`, `parameters` or `args`) and no other field.
pub(super) fn only_calls(text: &str) -> bool {
    let is_call = |v: &Value| {
        let Some(map) = v.as_object() else {
            return false;
        };
        let name = ["name", "tool"]
            .iter()
            .filter(|k| map.get(**k).is_some_and(Value::is_string))
            .count();
        let args = ["arguments", "parameters", "args"]
            .iter()
            .filter(|k| map.get(**k).is_some_and(|a| a.is_object() || a.is_string()))
            .count();
        name == 1 && args == 1 && map.len() == 2
    };
    match written_json(text) {
        Some(Value::Array(items)) => !items.is_empty() && items.iter().all(is_call),
        Some(one) => is_call(&one),
        None => false,
    }
}

/// Where the first top-level `{…}` of `text` may end, in order: where it
/// closed, once another `{` has opened at the top level after it (`false`:
/// whole), and where a line opens `{` while only the first object is still
/// open (`true`: one brace short). Braces inside JSON strings do not
/// count; quotes outside objects (prose) open no string.
fn first_object_ends(text: &str) -> Vec<(usize, bool)> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut first_end = None;
    let mut ends = Vec::new();
    // Where the last line break outside strings was, with only spaces
    // after it so far.
    let mut line_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' if depth > 0 => in_string = true,
            '{' => {
                if depth == 0 && first_end.is_some() {
                    ends.extend(first_end.map(|end| (end, false)));
                    return ends;
                }
                if depth == 1
                    && first_end.is_none()
                    && let Some(start) = line_start
                {
                    ends.push((start, true));
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 && first_end.is_none() {
                    first_end = Some(i + 1);
                }
            }
            _ => {}
        }
        match c {
            '\n' => line_start = Some(i),
            ' ' | '\t' | '\r' => {}
            _ => line_start = None,
        }
    }
    ends
}

/// A chat-completions body with its `tools` moved into the system prompt,
/// one JSON line each, with how to call one: for a server whose tool-call
/// parser refused the model's output, the model still sees every tool and
/// its call comes back as text.
pub(super) fn tools_in_system(request: &Value) -> Value {
    let mut body = request.clone();
    let Some(map) = body.as_object_mut() else {
        return body;
    };
    map.remove("tool_choice");
    let Some(Value::Array(tools)) = map.remove("tools") else {
        return body;
    };
    let mut text = String::from(
        "# Tools\nTo call a tool, reply with only {\"name\": \"<tool>\", \"arguments\": {<arguments>}}.",
    );
    for tool in &tools {
        let spec = tool.get("function").unwrap_or(tool);
        text.push('\n');
        text.push_str(&spec.to_string());
    }
    let Some(Value::Array(messages)) = map.get_mut("messages") else {
        return body;
    };
    match messages.first_mut() {
        Some(first) if first["role"] == "system" => {
            let system = first["content"].as_str().unwrap_or("").to_owned();
            first["content"] = Value::String(format!("{system}\n\n{text}"));
        }
        _ => messages.insert(0, serde_json::json!({"role": "system", "content": text})),
    }
    body
}

#[cfg(test)]
mod tests {
    use super::cut_after_first_call;

    fn tools(name: &str) -> bool {
        matches!(name, "calculate" | "base64_encode")
    }

    #[test]
    fn a_second_object_after_a_call_cuts_the_reply_after_the_call() {
        let bare = r#"{"name": "calculate", "arguments": {"expression": "2 * {3}"}}
{"name": "calculate", "arguments": {"expression": "6"}}"#;
        assert_eq!(
            cut_after_first_call(bare, tools).as_deref(),
            Some(r#"{"name": "calculate", "arguments": {"expression": "2 * {3}"}}"#)
        );
        // A fenced call: the fence left open is closed.
        let fenced = "```json\n{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"hi\"}}\n```\n\n```json\n{\"name\": \"sm";
        let cut = cut_after_first_call(fenced, tools).unwrap();
        assert_eq!(
            cut,
            "```json\n{\"name\": \"base64_encode\", \"arguments\": {\"text\": \"hi\"}}\n```"
        );
        // Tags: the last closing tag may be missing.
        let tagged = "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}</tool_call>\n<tool_call>{";
        assert!(cut_after_first_call(tagged, tools).is_some());
    }

    #[test]
    fn a_call_one_brace_short_is_cut_where_the_next_line_opens_another() {
        let short = "{\"name\": \"base64_encode\", \"arguments\": {\"text\": {\"a\": 1}}\n{\"name\": \"calculate\", \"arguments\": {\"x\": {";
        assert_eq!(
            cut_after_first_call(short, tools).as_deref(),
            Some("{\"name\": \"base64_encode\", \"arguments\": {\"text\": {\"a\": 1}}}")
        );
        // Pretty-printed arguments open on their own line: no cut there,
        // the call is cut where it ends.
        let pretty = "{\"name\": \"calculate\", \"arguments\":\n  {\"expression\": \"2\"}}\n{\"name\": \"calculate\", \"arguments\": {}}";
        assert_eq!(
            cut_after_first_call(pretty, tools).as_deref(),
            Some("{\"name\": \"calculate\", \"arguments\":\n  {\"expression\": \"2\"}}")
        );
        // Still being written: nothing to cut.
        let open = "{\"name\": \"calculate\", \"arguments\":\n  {\"expression\": \"2";
        assert_eq!(cut_after_first_call(open, tools), None);
    }

    #[test]
    fn a_reply_of_nothing_but_calls_is_calls_whatever_they_name() {
        use super::only_calls;
        assert!(only_calls(
            "```json\n{\"name\": \"md5\", \"arguments\": {\"text\": \"hello\"}}\n```"
        ));
        assert!(only_calls(
            r#"[{"tool": "a", "args": {}}, {"name": "b", "parameters": "{}"}]"#
        ));
        // A made-up call is cut like a known one.
        let twice = r#"{"name": "md5", "arguments": {}} {"name": "md5", "arguments": {}}"#;
        assert!(cut_after_first_call(twice, tools).is_some());
        for answer in [
            r#"{"name": "Ann", "age": 30}"#,
            r#"{"result": 4}"#,
            r#"The call is {"name": "md5", "arguments": {}}"#,
            r#"{"name": "md5"}"#,
            "[]",
        ] {
            assert!(!only_calls(answer), "{answer}");
        }
    }

    #[test]
    fn nothing_is_cut_before_a_second_object_or_in_prose() {
        // One call still being written, or complete with nothing after.
        let one = r#"{"name": "calculate", "arguments": {"expression": "2"#;
        assert_eq!(cut_after_first_call(one, tools), None);
        let whole = r#"{"name": "calculate", "arguments": {"expression": "2"}}"#;
        assert_eq!(cut_after_first_call(whole, tools), None);
        // Prose that shows JSON objects is an answer, read whole.
        let prose = r#"The config is {"a": 1} and then {"b": 2}."#;
        assert_eq!(cut_after_first_call(prose, tools), None);
        // An object that is no call shape is no call.
        let record = r#"{"name": "Ann", "age": 30} {"name": "calculate", "arguments": {}}"#;
        assert_eq!(cut_after_first_call(record, tools), None);
        // Quotes in prose open no string; braces in strings do not count.
        let quoted = r#"He said "hi" {"name": "calculate", "arguments": {"expression": "}{"}} {"#;
        assert_eq!(
            cut_after_first_call(quoted, tools),
            None,
            "prose before the call makes it an answer"
        );
    }
}
