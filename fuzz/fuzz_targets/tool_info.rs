//! `tool_info` queries: any text, any `max_results`. Only an empty (or
//! all-whitespace) query may be an error; anything else is answered, and
//! strengths stay within 0..=1.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use optimclaw::manifest::{ManifestOptions, parse_manifest};
use optimclaw::{LazyConfig, Registry};

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        let text = r#"{"tools": [
            {"name": "job_create", "description": "Create a background job with a prompt and a priority."},
            {"name": "github__list_PRs", "description": "List pull requests of a repository.", "inputSchema": {"type": "object", "properties": {"repo": {"type": "string", "description": "owner/name"}}}},
            {"name": "weatherForecast", "description": "Forecast the weather for a city."},
            {"name": "secrets-set", "description": "Store a secret value under a name."},
            {"name": "get-tickets", "description": "查询12306余票信息。乗車券を検索します。기차표 조회"},
            {"name": "date_times", "description": "The time between two date-times, timed several times over; secrets of timing.", "inputSchema": {"type": "object", "properties": {"times": {"type": "integer", "description": "How many times"}}}}
        ]}"#;
        let tools = parse_manifest(text, "fuzz", &ManifestOptions::default()).unwrap();
        Registry::builder().lazy(LazyConfig::lazy()).tools(tools).build().unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let k = data.first().copied().unwrap_or(5) as usize;
    let query = String::from_utf8_lossy(data.get(1..).unwrap_or_default());
    match registry().tool_info(&query, k) {
        Ok(answer) => assert!(answer.tools.len() <= k.clamp(1, 20)),
        Err(e) => assert!(query.trim().is_empty(), "{query:?} refused: {e}"),
    }
    assert!(registry().search(&query, k).len() <= k);
    for hit in registry().search_index().search(&query, k) {
        assert!((0.0..=1.0).contains(&hit.strength), "{hit:?}");
    }
});
