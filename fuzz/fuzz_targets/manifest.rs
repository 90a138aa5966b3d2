//! Manifest import: any bytes as a `tools/list` JSON, with and without name
//! sanitising; whatever parses must build a registry or fail cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use optimclaw::manifest::{ManifestOptions, parse_manifest};
use optimclaw::{LazyConfig, Registry};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for sanitize_names in [false, true] {
        let options = ManifestOptions::default().with_sanitize_names(sanitize_names);
        if let Ok(tools) = parse_manifest(&text, "fuzz", &options) {
            let _ = Registry::builder()
                .without_linked()
                .lazy(LazyConfig::lazy())
                .tools(tools)
                .build();
        }
    }
});
