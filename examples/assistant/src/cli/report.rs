//! `report`: what eager and lazy loading send, in tokens; `prompt`: the
//! exact first request; `tool-info`: a `tool_info` answer.

use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::tokens::{Encoding, RequestTokens};
use optimclaw::{LazyConfig, Registry, Session, ToolOrigin};
use serde_json::json;

use super::{chosen_mode, dialect, print_json};
use crate::App;

/// `report`'s last line: how `shell` is confined on this machine.
#[cfg(not(target_os = "linux"))]
pub fn sandbox(app: &App) {
    let state = if app.config.unsandboxed_shell {
        "OFF (--unsandboxed-shell)"
    } else {
        "unavailable (it needs Linux), so shell refuses to run (--unsandboxed-shell runs it unconfined)"
    };
    out!("\nshell sandbox: {state}");
}

/// `report`'s last line: how `shell` is confined on this machine.
#[cfg(target_os = "linux")]
pub fn sandbox(app: &App) {
    let support = optimclaw_sandbox::Sandbox::support();
    let network = if app.config.shell_network {
        "network allowed"
    } else {
        "no network"
    };
    if app.config.unsandboxed_shell {
        out!("\nshell sandbox: OFF (--unsandboxed-shell); this kernel offers: {support}");
    } else if support.is_complete() {
        out!("\nshell sandbox: on ({support}; {network})");
    } else {
        out!(
            "\nshell sandbox: unavailable, so shell refuses to run: {} (--unsandboxed-shell runs it unconfined)",
            support.missing().join("; ")
        );
    }
}

/// Tokens of what `session` sends in `dialect`.
pub fn measure(
    session: &Session,
    dialect: Dialect,
    encoding: Encoding,
) -> Result<RequestTokens, String> {
    let rendered = session.render(dialect, RenderOptions::default());
    Ok(RequestTokens::measure(
        &rendered.tools,
        rendered.system.as_deref(),
        encoding,
    ))
}

/// How `tool_info` searches: keywords, or keywords and vectors.
pub fn search(registry: &Registry, url: Option<&str>, model: Option<&str>) {
    if registry.has_vector_search() {
        out!(
            "tool_info search: keywords + vectors ({} at {})",
            model.unwrap_or_default(),
            url.unwrap_or_default()
        );
    } else {
        out!("tool_info search: keywords (vectors: --embed-url URL --embed-model NAME)");
    }
}

/// `report`: eager against lazy, in tokens, for both encodings.
pub fn report(registry: &Registry, provider: &str, budget: Option<usize>) -> Result<(), String> {
    let dialect = dialect(provider)?;
    let mut lazy = LazyConfig::lazy();
    if let Some(b) = budget {
        lazy = lazy.with_note_budget_chars(b);
    }
    let eager = Session::with_lazy(registry.clone(), lazy.clone().with_enabled(false));
    let lazy_session = Session::with_lazy(registry.clone(), lazy.clone());
    let core = registry.tools().iter().filter(|t| t.is_core()).count();
    let deferred = registry.len() - core;
    let wasm = registry
        .tools()
        .iter()
        .filter(|t| matches!(t.origin(), ToolOrigin::Dynamic(from) if from.starts_with("wasm ")))
        .count();
    out!(
        "optimclaw assistant: what one request sends ({} dialect)",
        dialect.name()
    );
    let wasm_note = if wasm > 0 {
        format!(", {wasm} of them WebAssembly")
    } else {
        String::new()
    };
    out!(
        "catalog: {} tools ({core} core incl. tool_info, {deferred} deferred{wasm_note})\n",
        registry.len()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "",
        "tools",
        "o200k_base",
        "cl100k_base"
    );
    let mut rows = Vec::new();
    for encoding in Encoding::ALL {
        rows.push((
            measure(&eager, dialect, encoding)?,
            measure(&lazy_session, dialect, encoding)?,
        ));
    }
    let (e0, l0) = &rows[0];
    let (e1, l1) = &rows[1];
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "eager (every tool)",
        e0.tool_count,
        e0.total(),
        e1.total()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "lazy (core + tool_info)",
        l0.tool_count,
        l0.total(),
        l1.total()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "  of which the note",
        "",
        l0.note,
        l1.note
    );
    let pct = |e: &RequestTokens, l: &RequestTokens| {
        100.0 * (1.0 - l.total() as f64 / e.total().max(1) as f64)
    };
    out!(
        "{:<28}{:>8}{:>13.1}%{:>13.1}%",
        "reduction",
        "",
        pct(e0, l0),
        pct(e1, l1)
    );
    if deferred > 0 {
        out!(
            "\nlisting a deferred tool in the note costs {:.1} tokens (o200k_base) instead of {:.0} for its schema",
            l0.note as f64 / deferred as f64,
            (e0.total() as f64 - (l0.total() - l0.note) as f64) / deferred as f64
        );
    }
    out!("the OptimClaw lazy-tools document claims about 13,000 -> 4,000 tokens (70 %)");
    degraded(registry, dialect);
    let found = crate::requests::report(registry, crate::requests::HELD_OUT)?;
    out!(
        "\ndiscoverability: tool_info on the requests written for this catalog (requests/held-out.jsonl):\n{}",
        found.to_string().trim_end()
    );
    Ok(())
}

/// `report`: the tools this provider would refuse as written, and what
/// is sent instead.
fn degraded(registry: &Registry, dialect: Dialect) {
    let degraded = registry.degraded(dialect);
    if degraded.is_empty() {
        out!("\nevery tool goes to {dialect} as written");
        return;
    }
    out!(
        "\n{} tools cannot go to {dialect} as written (what {dialect} refuses, and what is sent instead):",
        degraded.len()
    );
    for d in &degraded {
        out!("  {d}");
    }
}

/// `prompt`: prints exactly what a first request would send.
pub fn prompt(
    registry: Registry,
    eager: bool,
    lazy: bool,
    provider: &str,
    native_deferral: bool,
) -> Result<(), String> {
    let mode = chosen_mode(eager, lazy, &registry);
    let session = Session::with_lazy(registry, mode);
    let rendered = session.render(
        dialect(provider)?,
        RenderOptions::default().with_native_deferral(native_deferral),
    );
    for degraded in &rendered.degraded {
        eprintln!("warning: {degraded}");
    }
    print_json(&json!({"tools": rendered.tools, "system": rendered.system}));
    Ok(())
}

/// `tool-info`: asks `tool_info` as a model would.
pub fn tool_info(registry: &Registry, query: &str, max_results: usize) -> Result<(), String> {
    let answer = registry
        .tool_info(query, max_results)
        .map_err(|e| e.to_string())?;
    print_json(&serde_json::to_value(answer).unwrap_or_default());
    Ok(())
}
