//! Without the `code-mode` feature, asking for code mode is a clear build
//! error, not a registry that silently lacks `run_code`.
#![cfg(not(feature = "code-mode"))]

use optimclaw::{LazyConfig, Registry};

#[test]
fn code_mode_without_the_feature_names_the_feature() {
    let err = Registry::builder()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .build()
        .expect_err("code mode cannot be on without its interpreter");
    let text = err.to_string();
    assert!(text.contains("`code-mode` feature"), "{text}");
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    assert!(registry.get("run_code").is_none());
}
