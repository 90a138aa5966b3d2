//! `chat`: a conversation with a model over the catalog, one message
//! (`--once`) or interactive, where Ctrl-C stops the running turn and, at
//! the prompt, ends the chat.

use std::io::BufRead;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use optimclaw::Registry;

use crate::App;
use crate::chat::{self, ChatSettings};

/// Runs `chat` with `settings` (the model's answers jobs' prompts meanwhile).
pub async fn run(
    app: &App,
    registry: Registry,
    settings: ChatSettings,
    once: Option<String>,
) -> Result<(), String> {
    let ctx = app.start(&registry);
    app.jobs
        .set_prompt_runner(settings.prompt_runner(registry.clone(), ctx.clone()));
    let mut agent = settings.agent(registry, ctx)?;
    let (mut out, mut log) = (std::io::stdout(), std::io::stderr());
    if let Some(message) = once {
        return chat::once(&mut agent, &message, &mut out, &mut log).await;
    }
    let cancel = agent.cancel_handle();
    let busy = Arc::new(AtomicBool::new(false));
    let watch = Arc::clone(&busy);
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if watch.load(Ordering::SeqCst) {
                cancel.cancel();
            } else {
                std::process::exit(130);
            }
        }
    });
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let typed = Arc::clone(&busy);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            typed.store(true, Ordering::SeqCst);
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    chat::interactive(&mut agent, rx, &mut out, &mut log, &busy).await;
    Ok(())
}
