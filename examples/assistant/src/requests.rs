//! Requests written for the assistant's own catalog, each with the tool
//! meant to answer it (or none), for `report`'s discoverability section
//! and the benches. Two sets: `dev`, read when the tools' `asks` were
//! written, and `held-out`, not read then, on which their effect is
//! measured.

use optimclaw::Registry;
use optimclaw::testing::{Discoverability, discoverability};
use serde::Deserialize;

/// The dev set.
pub const DEV: &str = include_str!("../requests/dev.jsonl");
/// The held-out set.
pub const HELD_OUT: &str = include_str!("../requests/held-out.jsonl");

#[derive(Deserialize)]
struct Line {
    request: String,
    tool: Option<String>,
}

/// `(request, tool)` pairs of a set's JSON lines; a malformed line is an
/// error naming it.
pub fn parse(set: &str) -> Result<Vec<(String, Option<String>)>, String> {
    set.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Line>(l)
                .map(|line| (line.request, line.tool))
                .map_err(|e| format!("request line {}: {e}", i + 1))
        })
        .collect()
}

/// The discoverability of `registry`'s tools on a set.
pub fn report(registry: &Registry, set: &str) -> Result<Discoverability, String> {
    let cases = parse(set)?;
    Ok(discoverability(
        registry,
        cases.iter().map(|(r, t)| (r.as_str(), t.clone())),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sets_parse_and_name_real_tools() {
        let registry = Registry::builder()
            .lazy(optimclaw::LazyConfig::lazy())
            .build()
            .unwrap();
        for set in [DEV, HELD_OUT] {
            let cases = parse(set).unwrap();
            assert!(cases.len() >= 20);
            assert!(cases.iter().any(|(_, t)| t.is_none()));
            for (request, tool) in &cases {
                if let Some(tool) = tool {
                    assert!(registry.get(tool).is_some(), "{request}: no tool {tool}");
                }
            }
        }
    }
}
