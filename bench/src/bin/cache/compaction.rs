//! The long conversation with its history compacted
//! ([`Compaction`]), against the same without, for each way of asking
//! for caching: which keeps more of the cached prefix when the oldest
//! turns are left out.

use optimclaw::{LazyConfig, LoadStrategy, Registry};
use optimclaw_agent::{Compaction, WireFormat};

use crate::standin::Behaviour;
use crate::{Setup, bill, caching_modes, conversation, script, setups};

/// Where compaction starts, and what it keeps, in the compaction table
/// (tokens of history; the 24-message conversation carries about 2,700
/// lazily by its end).
const COMPACT_AT: usize = 1_000;
const COMPACT_TO: usize = 300;

/// The 24-message conversation with the history compacted, against the
/// same without, per wire format and way of asking for caching: which
/// keeps more of the cached prefix when the oldest turns are left out.
pub async fn table(registry: &Registry) {
    println!(
        "\nThe 24-message conversation (assistant catalog, bridge + preload) with its history compacted at {COMPACT_AT} tokens down to {COMPACT_TO}:\n"
    );
    println!(
        "| wire format | caching | compaction | compactions | tool_info calls | uncached tokens | cache reads | cache writes | cost | vs eager with cache | tasks done |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let tasks = script(3);
    let n = tasks.len();
    for format in [WireFormat::OpenAiChat, WireFormat::AnthropicMessages] {
        let eager = setups(format).into_iter().next().expect("eager first");
        let eager =
            conversation(format, &eager, registry, tasks.clone(), Behaviour::Searches).await;
        let base = bill(format, &eager.bodies).cost;
        for &(cache, cache_label) in caching_modes(format) {
            for compaction in [None, Some(Compaction::new(COMPACT_AT, COMPACT_TO))] {
                let setup = Setup {
                    label: "bridge + preload",
                    lazy: LazyConfig::lazy().with_strategy(LoadStrategy::Bridge),
                    preload: true,
                    cache,
                    compaction,
                };
                let run =
                    conversation(format, &setup, registry, tasks.clone(), Behaviour::Searches)
                        .await;
                let b = bill(format, &run.bodies);
                println!(
                    "| {} | {cache_label} | {} | {} | {} | {} | {}/{n} |",
                    format.name(),
                    if compaction.is_some() { "on" } else { "off" },
                    run.compactions,
                    run.searches,
                    b.cells(base),
                    run.done,
                );
            }
        }
    }
}
