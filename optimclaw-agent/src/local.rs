//! What the loop does for the servers small models run on (llama.cpp,
//! vLLM, Ollama): tools a model may call by name listed in `tools`
//! ([`ListLoaded`]), and calls written as text read as calls
//! ([`ToolCalls`](crate::ToolCalls)).

use serde_json::Value;

use super::{Agent, ListLoaded, ModelReply, textcall};
use optimclaw::{CALL_TOOL, LoadStrategy};

impl Agent {
    /// Adds the specs of attached and loaded tools to `tools` when
    /// [`AgentOptions::list_loaded`] asks for it (see [`ListLoaded`]).
    pub(super) fn list_loaded(&self, tools: &mut Vec<Value>) {
        let lazy = self.session.lazy_config();
        let on = match self.options.list_loaded {
            ListLoaded::Always => true,
            ListLoaded::Never => false,
            _ => !self.model.is_first_party(),
        };
        if !on || !lazy.enabled || self.registry_in_code_mode() || tools.is_empty() {
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
