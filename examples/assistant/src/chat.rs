//! `assistant chat`: the catalog in a conversation with a model, through
//! [`optimclaw_agent`].

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use optimclaw::preload::PreloadOptions;
use optimclaw::{LazyConfig, LoadStrategy, Registry, Session, ToolContext};
use optimclaw_agent::{
    Agent, AgentEvent, AgentOptions, CacheTtl, CallReading, Compaction, FirstCall, ListLoaded,
    ModelConfig, PromptCache, ToolCalls, WireFormat,
};
use serde_json::json;

use crate::jobs::PromptRunner;

/// The system text put before the lazy note.
pub const SYSTEM: &str = "You are the optimclaw assistant. Use the tools when they help; \
call tool_info to load a tool that is listed by name only. Answer briefly.";

/// The load strategy `assistant chat` uses for a wire format unless
/// `--strategy` says otherwise: the one whose whole conversations cost least
/// under prefix caching in `bench/cache` (see BENCHMARKS.md).
pub fn default_strategy(_format: WireFormat) -> LoadStrategy {
    // The cheapest measured for both wire formats, with preload on
    // (docs/benchmarks-history.md §8).
    LoadStrategy::Bridge
}

/// How `assistant chat` talks to the model.
#[derive(Clone, Debug)]
pub struct ChatSettings {
    /// The endpoint, model and key.
    pub model: ModelConfig,
    /// Model requests per message at most.
    pub max_steps: usize,
    /// `tool_info` calls in a row before the search guard answers instead.
    pub max_searches: usize,
    /// Anthropic: the provider's own deferral instead of `tool_info`.
    pub native_deferral: bool,
    /// Chat completions: tools in OpenAI's strict mode.
    pub strict: bool,
    /// Lazy loading on or off for the conversation.
    pub lazy: LazyConfig,
    /// Tools attached to each message that match it (needs the bridge).
    pub preload: bool,
    /// Anthropic: how requests ask for prompt caching.
    pub cache: PromptCache,
    /// Anthropic: how long a cached prefix stays.
    pub cache_ttl: CacheTtl,
    /// OpenAI: the `prompt_cache_key` of every request.
    pub prompt_cache_key: Option<String>,
    /// Show the model's text as it streams in.
    pub stream: bool,
    /// Leave the oldest exchanges out of long histories.
    pub compaction: Option<Compaction>,
    /// Tools as text in the system prompt, calls read from the reply's
    /// text ([`ToolCalls::Text`]).
    pub text_tools: bool,
    /// Whether attached and loaded tools go in `tools` too.
    pub list_loaded: ListLoaded,
    /// Whether a reply is read only up to its first complete call.
    pub first_call: FirstCall,
    /// Who reads the model's calls: the server or the agent.
    pub call_reading: CallReading,
}

impl ChatSettings {
    /// Settings from flags, the environment and `~/.optimclaw/.env`.
    pub fn from_env(
        format: &str,
        base_url: Option<String>,
        model: Option<String>,
        lazy: LazyConfig,
    ) -> Result<Self, String> {
        let format = WireFormat::from_name(format).ok_or_else(|| {
            format!("unknown format {format:?}; use openai (chat completions) or anthropic")
        })?;
        let model = ModelConfig::from_env(format, base_url, model).map_err(|e| e.to_string())?;
        let lazy = lazy.with_strategy(default_strategy(format));
        Ok(ChatSettings {
            model,
            max_steps: 12,
            max_searches: AgentOptions::default().max_searches,
            native_deferral: false,
            strict: false,
            lazy,
            preload: true,
            cache: PromptCache::default(),
            cache_ttl: CacheTtl::default(),
            prompt_cache_key: None,
            stream: false,
            compaction: None,
            text_tools: false,
            list_loaded: ListLoaded::Auto,
            first_call: FirstCall::Auto,
            call_reading: CallReading::Auto,
        })
    }

    /// A new conversation over `registry`, running tools with `ctx`.
    pub fn agent(&self, registry: Registry, ctx: ToolContext) -> Result<Agent, String> {
        let session = Session::with_lazy(registry, self.lazy.clone());
        let options = AgentOptions::default()
            .with_system(SYSTEM)
            .with_max_steps(self.max_steps)
            .with_max_searches(self.max_searches)
            .with_native_deferral(self.native_deferral)
            .with_strict(self.strict)
            .with_preload(self.preload.then(PreloadOptions::default))
            .with_cache(self.cache, self.cache_ttl)
            .with_stream(self.stream)
            .with_code_mode(self.lazy.code_mode)
            .with_compaction(self.compaction)
            .with_list_loaded(self.list_loaded)
            .with_first_call(self.first_call)
            .with_call_reading(self.call_reading)
            .with_tool_calls(if self.text_tools {
                ToolCalls::Text
            } else {
                ToolCalls::Native
            });
        let options = match &self.prompt_cache_key {
            Some(key) => options.with_prompt_cache_key(key.clone()),
            None => options,
        };
        Ok(Agent::new(session, self.model.clone(), options)
            .map_err(|e| e.to_string())?
            .context(ctx))
    }

    /// Runs prompt-only jobs as one-message conversations.
    pub fn prompt_runner(&self, registry: Registry, ctx: ToolContext) -> PromptRunner {
        let settings = self.clone();
        Arc::new(move |prompt: String| {
            let agent = settings.agent(registry.clone(), ctx.clone());
            Box::pin(async move {
                let mut agent = agent?;
                let reply = agent.send(&prompt).await.map_err(|e| e.to_string())?;
                Ok(
                    json!({"answer": reply.text, "requests": reply.requests, "tool_calls": reply.tool_calls}),
                )
            })
        })
    }
}

/// One line describing a loop event (`None` for events not shown).
pub fn describe_event(event: &AgentEvent<'_>) -> Option<String> {
    match event {
        AgentEvent::ToolCall(call) => {
            let args = clip(&call.raw_arguments, 120);
            Some(format!("  → {} {args}", call.name))
        }
        AgentEvent::ToolResult(outcome) => {
            let verdict = if outcome.is_error { "error" } else { "ok" };
            Some(format!(
                "  ← {} {verdict} ({} ms): {}",
                outcome.name,
                outcome.elapsed.as_millis(),
                clip(&outcome.content, 100)
            ))
        }
        AgentEvent::Retry { wait, reason, .. } => Some(format!(
            "  (retrying in {:.1} s: {})",
            wait.as_secs_f64(),
            clip(reason, 160)
        )),
        AgentEvent::Compacted { turns, kept_tokens } => Some(format!(
            "  (history compacted: {turns} earlier turn(s) left out of requests, {kept_tokens} tokens kept)"
        )),
        _ => None,
    }
}

/// Token use of the conversation so far, in one line.
pub fn usage_line(agent: &Agent) -> String {
    let usage = agent.usage();
    let sum = |f: fn(&optimclaw_agent::RequestUsage) -> Option<u64>| -> u64 {
        usage.iter().filter_map(f).sum()
    };
    let mut line = format!(
        "{} request(s): {} input tokens ({} read from the cache, {} written to it), {} output tokens",
        usage.len(),
        sum(|u| u.input_tokens),
        sum(|u| u.cached_input_tokens),
        sum(|u| u.cache_write_tokens),
        sum(|u| u.output_tokens)
    );
    if let Some(last) = usage.last()
        && let (Some(sent), Some(eager)) = (last.tool_tokens, last.eager_tool_tokens)
    {
        line.push_str(&format!(
            "; tools in the last request: {sent} tokens (all tools in full: {eager})"
        ));
    }
    line
}

/// Answers one message: the reply on `out`, tool calls and usage on `log`.
pub async fn once(
    agent: &mut Agent,
    message: &str,
    out: &mut impl Write,
    log: &mut impl Write,
) -> Result<(), String> {
    // Streamed text is shown as it arrives (and the reply not printed
    // again); other events start on a line of their own.
    let (mut streamed, mut mid_line) = (false, false);
    let reply = agent
        .send_with(message, |e| {
            if let AgentEvent::TextDelta(text) = e {
                streamed = true;
                mid_line = !text.ends_with('\n');
                let _ = write!(out, "{text}");
                let _ = out.flush();
                return;
            }
            if let Some(line) = describe_event(&e) {
                if std::mem::take(&mut mid_line) {
                    let _ = writeln!(out);
                }
                let _ = writeln!(log, "{line}");
            }
        })
        .await
        .map_err(|e| e.to_string())?;
    if !streamed {
        writeln!(out, "{}", reply.text).map_err(|e| e.to_string())?;
    } else if mid_line {
        writeln!(out).map_err(|e| e.to_string())?;
    }
    let _ = writeln!(log, "[{}]", usage_line(agent));
    Ok(())
}

/// The interactive loop: one message a line from `lines`, until it ends or
/// `/quit`. An error is shown and the conversation goes on. `busy` is set
/// while a message is answered (cleared at the prompt).
pub async fn interactive(
    agent: &mut Agent,
    mut lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    out: &mut impl Write,
    log: &mut impl Write,
    busy: &AtomicBool,
) {
    let model = agent.model();
    let _ = writeln!(
        log,
        "optimclaw chat: {} at {} ({}). /usage shows tokens, /quit or Ctrl-D ends, Ctrl-C stops a turn.",
        model.model, model.base_url, model.format
    );
    loop {
        busy.store(false, Ordering::SeqCst);
        let _ = write!(log, "› ");
        let _ = log.flush();
        let Some(line) = lines.recv().await else {
            break;
        };
        busy.store(true, Ordering::SeqCst);
        let line = line.trim();
        match line {
            "" => continue,
            "/quit" | "/exit" => break,
            "/usage" => {
                let _ = writeln!(log, "{}", usage_line(agent));
                continue;
            }
            _ => {}
        }
        if let Err(e) = once(agent, line, out, log).await {
            let _ = writeln!(log, "error: {e}");
        }
    }
}

fn clip(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}
