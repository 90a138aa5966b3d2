//! A chat model as reranker: it reads the request and the candidates and
//! names the ones that fit, or none. Any OpenAI-compatible chat completions
//! endpoint (OpenAI, vLLM, llama.cpp, Ollama).

use std::time::Duration;

use serde_json::{Value, json};

use super::http::Endpoint;
use optimclaw::rerank::{Candidate, RerankError, Reranked, Reranker};

/// What the model is told. Answers are numbers, so a small model's
/// spelling of names cannot go wrong.
const INSTRUCTIONS: &str = "You choose tools for a request. You get the request and numbered tools. \
Answer with JSON only: {\"tools\": [numbers of the tools that can do what the request asks, best first]}. \
Answer {\"tools\": []} when none of them can, or when the request needs no tool.";

/// Candidates picked by an OpenAI-compatible chat model
/// (`POST {base}/chat/completions`, temperature 0). Its picks are the
/// strong matches; picking none makes `tool_info` say "no match". Costs one
/// model request per search: the tokens are in [`Reranked::tokens`].
///
/// ```no_run
/// use std::sync::Arc;
/// use optimclaw::rerank::RerankConfig;
/// use optimclaw_embed::rerank::ChatReranker;
/// use optimclaw::Registry;
///
/// let reranker = ChatReranker::new("http://127.0.0.1:11434/v1", "qwen3:4b");
/// let registry = Registry::builder()
///     .reranker(RerankConfig::new(Arc::new(reranker)))
///     .build()?;
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
#[derive(Debug)]
pub struct ChatReranker {
    endpoint: Endpoint,
}

impl ChatReranker {
    /// Picks with `model` at `base_url` (e.g. `https://api.openai.com/v1`;
    /// `/chat/completions` is appended).
    pub fn new(base_url: &str, model: impl Into<String>) -> Self {
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        ChatReranker {
            endpoint: Endpoint::new(url, model.into(), Duration::from_secs(30)),
        }
    }

    /// Sends `Authorization: Bearer <key>`.
    #[must_use]
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.endpoint = self.endpoint.with_api_key(key.into());
        self
    }
}

/// The numbers (1-based) in the model's answer: the JSON asked for, or, from
/// a model that wrote around it, the first `[…]` list in the text.
fn picks(content: &str, count: usize) -> Result<Vec<usize>, RerankError> {
    let no_list = || {
        RerankError::new(format!(
            "the reranking model answered no list of tool numbers: {}",
            content.chars().take(200).collect::<String>()
        ))
    };
    let parsed: Option<Value> = serde_json::from_str(content.trim()).ok().or_else(|| {
        let start = content.find('{')?;
        let end = content.rfind('}')?;
        serde_json::from_str(content.get(start..=end)?).ok()
    });
    let list: Vec<Value> = match parsed.as_ref().and_then(|v| v.get("tools")) {
        Some(Value::Array(items)) => items.clone(),
        _ => {
            let start = content.find('[').ok_or_else(no_list)?;
            let end = content
                .rfind(']')
                .filter(|&e| e > start)
                .ok_or_else(no_list)?;
            serde_json::from_str(&content[start..=end]).map_err(|_| no_list())?
        }
    };
    let mut out = Vec::new();
    for item in list {
        let n = match &item {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        if let Some(i) = n
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| (1..=count).contains(n))
            .map(|n| n - 1)
            && !out.contains(&i)
        {
            out.push(i);
        }
    }
    Ok(out)
}

impl Reranker for ChatReranker {
    fn id(&self) -> String {
        format!("chat:{}#{}", self.endpoint.url, self.endpoint.model)
    }

    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Reranked, RerankError> {
        if candidates.is_empty() {
            return Ok(Reranked::default());
        }
        let listing: String = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{}. {}\n", i + 1, c.document()))
            .collect();
        let request: String = query.chars().take(4000).collect();
        let body = json!({
            "model": self.endpoint.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": format!("Request: {request}\n\nTools:\n{listing}")},
            ],
        });
        let answer = self.endpoint.post(&body)?;
        let content = answer
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RerankError::new("the reranking model's answer has no choices[0].message.content")
            })?;
        let fits = picks(content, candidates.len())?;
        let tokens = answer
            .pointer("/usage/total_tokens")
            .and_then(Value::as_u64);
        Ok(Reranked {
            order: fits.clone(),
            scores: Vec::new(),
            fits: Some(fits),
            tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::picks;

    #[test]
    fn reads_picks_from_json_or_text_around_it() {
        assert_eq!(picks(r#"{"tools": [2, 1]}"#, 3).unwrap(), [1, 0]);
        assert_eq!(picks(r#"{"tools": []}"#, 3).unwrap(), Vec::<usize>::new());
        assert_eq!(
            picks("Sure! {\"tools\": [\"3\"]} is my answer", 3).unwrap(),
            [2]
        );
        assert_eq!(picks("tools: [1, 9, 1]", 3).unwrap(), [0]);
        assert!(picks("I cannot decide", 3).is_err());
    }
}
