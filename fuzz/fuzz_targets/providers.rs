//! Every provider transform on any JSON schema: no panic, and what the
//! strict transform accepts passes the strict checker.
#![no_main]

use libfuzzer_sys::fuzz_target;
use optimclaw::provider::{
    Dialect, check_strict, gemini_schema, render_text, strict_schema, tool_spec,
};
use optimclaw::{DynamicTool, LazyConfig, Registry};

fuzz_target!(|data: &[u8]| {
    let Ok(mut schema) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(strict) = strict_schema(&schema) {
        if schema.get("type").and_then(|t| t.as_str()) == Some("object") {
            assert!(check_strict(&strict).is_ok(), "{:?}", check_strict(&strict));
        }
    }
    let _ = gemini_schema(&schema);
    if let serde_json::Value::Object(map) = &mut schema {
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
        let _ = tool_spec(tool, dialect);
    }
    let _ = render_text(&[tool], Some("note"));
});
