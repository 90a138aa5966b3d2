//! What the loop does for the servers small models run on (llama.cpp,
//! vLLM, Ollama): tools a model may call by name listed in `tools`
//! ([`ListLoaded`]), and calls written as text read as calls
//! ([`ToolCalls`](crate::ToolCalls)).

use serde_json::Value;

use super::{Agent, ListLoaded, ModelReply, ToolCalls, textcall};
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
    pub(super) fn read_text_calls(&self, reply: &mut ModelReply, calls_so_far: usize) {
        let registry = self.session.registry();
        let bridge = self.session.lazy_config().strategy == LoadStrategy::Bridge;
        let is_tool = |name: &str| registry.get(name).is_some() || (bridge && name == CALL_TOOL);
        if let Some(calls) = textcall::read(&reply.text, is_tool, calls_so_far) {
            reply.text.clear();
            reply.calls = calls;
        }
    }
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
