//! Without the optimclaw-code crate linked, asking for code mode is a clear
//! build error that names the crate, not a registry that silently lacks
//! `run_code`.

use optimclaw::{LazyConfig, Registry};

#[test]
fn code_mode_without_the_code_crate_names_the_crate() {
    let err = Registry::builder()
        .lazy(LazyConfig::lazy().with_code_mode(true))
        .build()
        .expect_err("code mode cannot be on without its interpreter");
    let text = err.to_string();
    assert!(text.contains("optimclaw-code"), "{text}");
    assert!(text.contains("use optimclaw_code as _;"), "{text}");
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    assert!(registry.get("run_code").is_none());
}
