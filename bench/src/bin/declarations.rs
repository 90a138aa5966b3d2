//! What code mode's TypeScript declarations cost against the JSON schemas
//! they replace, in o200k tokens: per catalog, every tool as the OpenAI
//! chat-completions spec (`{"type": "function", "function": {name,
//! description, parameters}}`) and as its declaration (input and output
//! types, doc comments).
//!
//! Usage: `cargo run --release -p optimclaw-bench --bin declarations`

use optimclaw::code::{declaration, ts_type};
use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::tokens::Encoding;
use optimclaw::{DynamicTool, LazyConfig, Registry};
use optimclaw_bench::data_dir;

fn main() {
    // Link the assistant's catalog into this binary.
    assert_eq!(assistant::CORE_TOOLS.len(), 12);
    let data = data_dir();
    let opts = ManifestOptions::default();
    let load = |path: &str| load_manifest(&data.join(path), &opts).expect("the corpus loads");
    let catalogs: Vec<(&str, bool, Vec<DynamicTool>)> = vec![
        ("assistant catalog", true, Vec::new()),
        (
            "mcp-live-526 (real MCP servers)",
            false,
            load("mcp-live-526/tools.json"),
        ),
        ("bfcl-dev", false, load("bfcl-dev/tools.json")),
    ];
    let o200k = Encoding::O200kBase;
    println!(
        "| catalog | tools | JSON specs (o200k) | declarations (o200k) | of which result types | declarations / JSON | largest tool: JSON → declaration |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, linked, tools) in catalogs {
        let builder = Registry::builder().lazy(LazyConfig::eager());
        let builder = if linked {
            builder
        } else {
            builder.without_linked()
        };
        let registry = builder.tools(tools).build().expect("valid catalog");
        let prompt = registry.prompt::<&str>(&LazyConfig::eager(), &[]);
        let rendered = prompt.render(Dialect::OpenAi, RenderOptions::default());
        let mut json_total = 0;
        let mut ts_total = 0;
        let mut results = 0;
        let mut largest = (0, 0);
        for (tool, spec) in prompt.tools.iter().zip(&rendered.tools) {
            let json = o200k.count(&spec.to_string());
            let ts = o200k.count(&declaration(tool));
            json_total += json;
            ts_total += ts;
            results += tool.output_schema().map_or(0, |o| o200k.count(&ts_type(o)));
            if json > largest.0 {
                largest = (json, ts);
            }
        }
        println!(
            "| {name} | {} | {json_total} | {ts_total} | {results} | {:.2} | {} → {} |",
            prompt.tools.len(),
            ts_total as f64 / json_total as f64,
            largest.0,
            largest.1
        );
    }
}
