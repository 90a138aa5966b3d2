//! What tools' `asks` do for discovery: the assistant's catalog on
//! requests written for it (`examples/assistant/requests/`: `dev`, read
//! when the asks were written, and `held-out`, not read then), with the
//! asks and without them (the same catalog rebuilt with every tool's asks
//! left out: a weight of 0 would still count their words in the IDF).
//!
//! `cargo run --release -p optimclaw-bench --bin asks`

use assistant::requests::{DEV, HELD_OUT, report};
use optimclaw::search::Weights;
use optimclaw::{DynamicTool, LazyConfig, Registry};

fn registry(weights: Weights) -> Registry {
    Registry::builder()
        .lazy(LazyConfig::lazy())
        .search_weights(weights)
        .build()
        .expect("the assistant's catalog builds")
}

/// The same tools, searched the same way, without their asks.
fn without_asks(with: &Registry) -> Registry {
    let tools = with
        .tools()
        .iter()
        .filter(|t| t.name() != optimclaw::TOOL_INFO)
        .map(|t| {
            DynamicTool::new(t.name(), t.description(), t.input_schema().clone())
                .kind(t.kind())
                .keywords(t.keywords().to_vec())
                .examples(t.examples().to_vec())
        });
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(tools)
        .build()
        .expect("the catalog without asks builds")
}

fn main() {
    let with = registry(Weights::default());
    let without = without_asks(&with);
    let asked = with.tools().iter().filter(|t| !t.asks().is_empty()).count();
    println!(
        "The assistant's catalog ({} tools, {asked} with asks), tool_info on requests written for it:\n",
        with.len()
    );
    println!(
        "| set | asks | requests for a tool | recall@1 | recall@5 | first and strong | no match | requests for none | strong match on none |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (name, set) in [("dev", DEV), ("held-out", HELD_OUT)] {
        for (label, reg) in [("searched", &with), ("without", &without)] {
            let r = report(reg, set).expect("the set parses");
            let for_tool = r.results.iter().filter(|x| x.expected.is_some()).count();
            let for_none = r.results.len() - for_tool;
            println!(
                "| {name} | {label} | {for_tool} | {:.2} | {:.2} | {:.2} | {} | {for_none} | {} |",
                r.recall_at(1),
                r.recall_at(5),
                r.strong_at_1(),
                r.unanswered().len(),
                r.false_matches().len()
            );
        }
    }
    if std::env::var_os("ASKS_DETAIL").is_some() {
        for (name, set) in [("dev", DEV), ("held-out", HELD_OUT)] {
            println!(
                "\n{name}, asks searched:\n{}",
                report(&with, set).expect("parses")
            );
        }
    }
}
