//! Every provider transform on any JSON schema: no panic, `$ref`s always
//! resolved, and every spec a request would carry passes its provider's
//! rules (or the tool is reported as left out).
#![no_main]

use libfuzzer_sys::fuzz_target;
use optimclaw::provider::rules::violations;
use optimclaw::provider::{Dialect, RenderOptions, describe_tool, gemini_schema, render_text};
use optimclaw::schema::resolve_refs;
use optimclaw::{DynamicTool, LazyConfig, Registry};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(mut schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let _ = resolve_refs(&schema);
    let _ = gemini_schema(&schema);
    if let Value::Object(map) = &mut schema {
        map.insert("type".into(), "object".into());
    } else {
        return;
    }
    let tool = DynamicTool::new("fuzzed", "A fuzzed tool.", schema);
    let Ok(registry) = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tool(tool)
        .build()
    else {
        return;
    };
    let tool = registry.get("fuzzed").unwrap();
    for dialect in Dialect::ALL {
        let described = describe_tool(tool, dialect, RenderOptions::default());
        let Some(spec) = described.spec else {
            assert!(described.degraded.is_some(), "left out without a reason");
            continue;
        };
        let parameters = match dialect {
            Dialect::OpenAi | Dialect::OpenAiStrict => spec["function"].get("parameters"),
            Dialect::Anthropic => spec.get("input_schema"),
            Dialect::Mcp | Dialect::Text => None,
            _ => spec.get("parameters"),
        };
        let strict = spec.get("function").unwrap_or(&spec)["strict"] == true;
        let broken = violations(dialect, parameters, strict);
        assert!(broken.is_empty(), "{dialect}: {broken:?} in {spec}");
    }
    let _ = render_text(&[tool], Some("note"));
});
