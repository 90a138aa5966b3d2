//! What tool examples cost in tokens, per dialect: the assistant's catalog
//! rendered eager and lazy (the core tools and `tool_info`), with and
//! without the tools' example calls (o200k_base). Anthropic (`input_examples`)
//! and MCP (`_meta`) always carry examples; the other dialects only with
//! `RenderOptions::examples_in_description`.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin examples_cost`

use optimclaw::provider::{Dialect, EXAMPLES_META_KEY, RenderOptions};
use optimclaw::tokens::{Encoding, RequestTokens};
use optimclaw::{LazyConfig, Registry, Session};
use serde_json::Value;

fn tokens(tools: &[Value]) -> usize {
    RequestTokens::measure(tools, None, Encoding::O200kBase).tools
}

/// The same specs without their examples.
fn stripped(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .cloned()
        .map(|mut spec| {
            if let Some(map) = spec.as_object_mut() {
                map.remove("input_examples");
                if let Some(Value::Object(meta)) = map.get_mut("_meta") {
                    meta.remove(EXAMPLES_META_KEY);
                    if meta.is_empty() {
                        map.remove("_meta");
                    }
                }
            }
            spec
        })
        .collect()
}

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let registry = Registry::from_linked().expect("the catalog is valid");
    let with_examples = registry
        .tools()
        .iter()
        .filter(|t| !t.examples().is_empty())
        .count();
    let examples: usize = registry.tools().iter().map(|t| t.examples().len()).sum();
    println!(
        "{} tools, {with_examples} with examples ({examples} examples in all)\n",
        registry.len()
    );
    println!("| dialect | eager without | eager with | added | lazy without | lazy with | added |");
    println!("|---|---|---|---|---|---|---|");
    let opt_in = RenderOptions::default().with_examples_in_description(true);
    for dialect in Dialect::ALL {
        if dialect == Dialect::Text {
            continue;
        }
        let mut cells = Vec::new();
        for lazy in [LazyConfig::eager(), LazyConfig::lazy()] {
            let session = Session::with_lazy(registry.clone(), lazy);
            let plain = session.render(dialect, RenderOptions::default()).tools;
            let (without, with) = match dialect {
                Dialect::Anthropic | Dialect::Mcp => (tokens(&stripped(&plain)), tokens(&plain)),
                _ => {
                    let described = session.render(dialect, opt_in).tools;
                    (tokens(&plain), tokens(&described))
                }
            };
            cells.push(format!("{without} | {with} | +{}", with - without));
        }
        let label = match dialect {
            Dialect::Anthropic | Dialect::Mcp => format!("{} (always)", dialect.name()),
            _ => format!("{} (opt-in)", dialect.name()),
        };
        println!("| {label} | {} | {} |", cells[0], cells[1]);
    }
}
