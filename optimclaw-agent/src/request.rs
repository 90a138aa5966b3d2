//! The body of the next model request: the wire format's body for the
//! history requests carry (the transcript, less what compaction left out), with what the options ask of the provider (prompt
//! caching marks, the cache key, streaming).

use serde_json::{Value, json};

use super::{Agent, ToolCalls, WireFormat, anthropic, cache, openai};

impl Agent {
    /// The next request's body.
    pub(super) fn request_body(&self, system: Option<&str>, tools: &[Value]) -> Value {
        match self.model.format {
            WireFormat::OpenAiChat => {
                let mut body = openai::request(
                    &self.model,
                    system,
                    tools,
                    self.history(),
                    self.options.tool_calls == ToolCalls::Text,
                );
                // The server shows the tools to the model through its chat
                // template and returns the output as text: the calls in it
                // are read here, never refused by the server's parser.
                if self.reads_calls_itself() && body.get("tools").is_some() {
                    body["tool_choice"] = Value::String("none".into());
                }
                if let Some(key) = &self.options.prompt_cache_key {
                    body["prompt_cache_key"] = Value::String(key.clone());
                }
                if self.options.stream || self.stops_at_first_call() {
                    body["stream"] = Value::Bool(true);
                    body["stream_options"] = json!({"include_usage": true});
                }
                self.add_extra_fields(&mut body);
                body
            }
            WireFormat::AnthropicMessages => {
                let mut body = anthropic::request(&self.model, system, tools, self.history());
                cache::mark_anthropic(&mut body, self.options.cache, self.options.cache_ttl);
                if self.options.stream {
                    body["stream"] = Value::Bool(true);
                }
                self.add_extra_fields(&mut body);
                body
            }
        }
    }

    /// The model's [`extra_body`](crate::ModelConfig::extra_body) fields
    /// the body does not already have.
    fn add_extra_fields(&self, body: &mut Value) {
        if let Some(map) = body.as_object_mut() {
            for (name, value) in &self.model.extra_body {
                map.entry(name.clone()).or_insert_with(|| value.clone());
            }
        }
    }
}
