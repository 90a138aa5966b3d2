//! `demo`: the OptimClaw lazy-tools document's example flow, run through
//! a real session with a scripted model.

use optimclaw::provider::Dialect;
use optimclaw::tokens::Encoding;
use optimclaw::{LazyConfig, Registry, Session, ToolContext};
use serde_json::json;

use super::print_json;
use super::report::measure;

/// Replays the document's flow: request 1, `tool_info`, request 2, the call.
pub async fn demo(registry: &Registry, ctx: &ToolContext) -> Result<(), String> {
    let session = Session::with_lazy(registry.clone(), LazyConfig::lazy());
    let show = |step: &str, session: &Session| -> Result<(), String> {
        let prompt = session.prompt();
        let tokens = measure(session, Dialect::OpenAi, Encoding::O200kBase)?;
        out!(
            "== {step}: {} tools, {} tokens (o200k_base, openai dialect)",
            prompt.tools.len(),
            tokens.total()
        );
        out!("   tools: {}", prompt.tool_names().join(", "));
        if let Some(note) = &prompt.note {
            let short: String = note.chars().take(160).collect();
            out!("   note:  {short}…");
        }
        Ok(())
    };
    show("request 1", &session)?;
    out!("\n[scripted model] -> tool_info(query=\"job_create\")");
    let answer = session
        .call("tool_info", json!({"query": "job_create"}), ctx)
        .await
        .map_err(|e| e.to_string())?;
    print_json(&answer);
    out!();
    show("request 2", &session)?;
    out!("\n[scripted model] -> job_create(prompt=\"Summarize today's news\", priority=3)");
    let job = session
        .call(
            "job_create",
            json!({"prompt": "Summarize today's news", "priority": 3}),
            ctx,
        )
        .await
        .map_err(|e| e.to_string())?;
    print_json(&job);
    out!(
        "\n(the model's side is a fixed script; the session, tool_info and job_create ran for real)"
    );
    Ok(())
}
