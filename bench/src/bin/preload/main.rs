//! What preload attaches to requests it was not tuned on: messages for the
//! assistant's deferred tools, written as users write them and without
//! looking at the search first. Set A (30) was written with the close-pair
//! rule; set B (41, every deferred tool) later, after set A's misses were
//! read; set C (40) after set B's were, before the catalog's keywords were
//! reviewed; set D (40) after the review, and measured once (what the
//! review gives on messages it did not see); set E (41, every deferred
//! tool) at the start of the next release, measured once before anything
//! else changed; set F (30, tasks stated as a test script states them)
//! after E's changes, measured once. Each message goes
//! to a fresh session (so nothing counts as attached before); a message
//! "holds the tool" when what is attached includes the one it needs: what
//! a model that never calls `tool_info` needs to do the task.
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin preload`; with
//! vectors fused in (all-MiniLM-L6-v2, `bash tests/embed/fetch_minilm.sh
//! target/models` prints its folder): `cargo run --release -p
//! optimclaw-bench --features minilm --bin preload -- MODEL_DIR`.

use optimclaw::preload::PreloadOptions;
use optimclaw::{LazyConfig, Registry, Session};

mod sets;

use sets::{SET_A, SET_B, SET_C, SET_D, SET_E, SET_F};

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let builder = Registry::builder().lazy(LazyConfig::lazy());
    let registry = with_vectors(builder, std::env::args().nth(1))
        .build()
        .expect("the catalog is valid");
    let options = PreloadOptions::default();
    let mut totals = Vec::new();
    for (set, messages) in [
        ("A", &SET_A[..]),
        ("B", &SET_B[..]),
        ("C", &SET_C[..]),
        ("D", &SET_D[..]),
        ("E", &SET_E[..]),
        ("F", &SET_F[..]),
    ] {
        println!("\nSet {set}:\n\n| message | needs | attached | verdict |\n|---|---|---|---|");
        let counts = judge(&registry, &options, messages);
        totals.push((set, messages.len(), counts));
    }
    println!();
    for (set, n, [holds, wrong, nothing, schemas]) in totals {
        println!(
            "Set {set}: {holds} of {n} hold the tool they need, {wrong} carry only a wrong one, {nothing} carry nothing; {schemas} schemas attached in all (max_tools {}).",
            options.max_tools
        );
    }
}

/// The builder with vector search when a model folder is given.
#[cfg(feature = "minilm")]
fn with_vectors(
    builder: optimclaw::RegistryBuilder,
    model_dir: Option<String>,
) -> optimclaw::RegistryBuilder {
    match model_dir {
        Some(dir) => {
            let model = optimclaw_embed::MiniLm::from_dir(&dir).expect("the model folder loads");
            println!("Vectors: all-MiniLM-L6-v2 from {dir}, fused with keywords.");
            builder.embedder(std::sync::Arc::new(model))
        }
        None => builder,
    }
}

/// The builder as it is: vectors need the `minilm` feature.
#[cfg(not(feature = "minilm"))]
fn with_vectors(
    builder: optimclaw::RegistryBuilder,
    model_dir: Option<String>,
) -> optimclaw::RegistryBuilder {
    assert!(
        model_dir.is_none(),
        "a model folder needs the `minilm` feature (--features minilm)"
    );
    builder
}

/// Prints a row per message; returns how many hold the tool, carry only a
/// wrong one, carry nothing, and the schemas attached in all.
fn judge(registry: &Registry, options: &PreloadOptions, messages: &[(&str, &str)]) -> [usize; 4] {
    let (mut holds, mut wrong, mut nothing, mut schemas) = (0, 0, 0, 0);
    for &(message, needs) in messages {
        let session = Session::new(registry.clone());
        let attached = session
            .preload(message, options)
            .map(|p| p.tools)
            .unwrap_or_default();
        schemas += attached.len();
        let verdict = if attached.iter().any(|t| t == needs) {
            holds += 1;
            "holds the tool"
        } else if attached.is_empty() {
            nothing += 1;
            "nothing attached"
        } else {
            wrong += 1;
            "wrong tool"
        };
        let shown = message.replace('\n', " ");
        println!(
            "| {shown} | `{needs}` | {} | {verdict} |",
            attached.join(", ")
        );
    }
    [holds, wrong, nothing, schemas]
}
