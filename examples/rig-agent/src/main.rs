//! A rig agent with the assistant's catalog, loaded lazily: the agent gets
//! the core tools, `tool_info` and `call_tool` as a fixed tool list (the
//! provider's prompt cache holds), the preamble names the deferred tools,
//! and every call runs through an optimclaw session.
//!
//! ```sh
//! OPENAI_API_KEY=sk-… cargo run -p optimclaw-example-rig-agent -- "What is 6 times 7?"
//! # any OpenAI-compatible chat-completions endpoint:
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPTIMCLAW_MODEL=qwen3 cargo run -p optimclaw-example-rig-agent -- "…"
//! ```

use assistant::{App, AppConfig};
use optimclaw::{LazyConfig, LoadStrategy, Registry, Session};
use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAIConfig;

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is 6 times 7?".to_owned());
    let key = std::env::var("OPENAI_API_KEY").map_err(|_| {
        "set OPENAI_API_KEY (any value for a local server that needs none)".to_owned()
    })?;
    let model = std::env::var("OPTIMCLAW_MODEL").unwrap_or_else(|_| "gpt-4.1-mini".to_owned());
    let mut config = OpenAIConfig::new(key);
    if let Ok(base) = std::env::var("OPENAI_BASE_URL") {
        config = config.with_base_url(base);
    }

    let home = AppConfig::default_home();
    let app = App::open(AppConfig::new(&home))?;
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy().with_strategy(LoadStrategy::Bridge))
        .build()
        .map_err(|e| e.to_string())?;
    let session = Session::new(registry);
    let tools = optimclaw_rig::tools(&session, &app.context());
    eprintln!(
        "rig agent with {} tools: {}",
        tools.len(),
        tools
            .iter()
            .map(|t| t.name().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let agent = AgentBuilder::new(config.client().chat(model))
        .preamble(format!(
            "You are a helpful assistant. {}",
            optimclaw_rig::preamble(&session).unwrap_or_default()
        ))
        .dynamic_tools(tools)
        .default_max_turns(8)
        .build();
    let answer = agent.prompt(question).await.map_err(|e| e.to_string())?;
    println!("{answer}");
    eprintln!("loaded through tool_info: {}", session.loaded().join(", "));
    Ok(())
}
