//! The body of the next model request: the wire format's body for the
//! transcript so far, with what the options ask of the provider (prompt
//! caching marks, the cache key, streaming).

use serde_json::{Value, json};

use super::{Agent, WireFormat, anthropic, cache, openai};

impl Agent {
    /// The next request's body.
    pub(super) fn request_body(&self, system: Option<&str>, tools: &[Value]) -> Value {
        match self.model.format {
            WireFormat::OpenAiChat => {
                let mut body = openai::request(&self.model, system, tools, &self.transcript);
                if let Some(key) = &self.options.prompt_cache_key {
                    body["prompt_cache_key"] = Value::String(key.clone());
                }
                if self.options.stream {
                    body["stream"] = Value::Bool(true);
                    body["stream_options"] = json!({"include_usage": true});
                }
                body
            }
            WireFormat::AnthropicMessages => {
                let mut body = anthropic::request(&self.model, system, tools, &self.transcript);
                cache::mark_anthropic(&mut body, self.options.cache, self.options.cache_ttl);
                if self.options.stream {
                    body["stream"] = Value::Bool(true);
                }
                body
            }
        }
    }
}
