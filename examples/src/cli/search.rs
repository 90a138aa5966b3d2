//! `search`: ranked `tool_info` search over the catalog or manifests, one
//! query or JSON lines on stdin (what the retrieval benchmark drives).

use std::io::BufRead;

use optimclaw::Registry;
use serde_json::{Value, json};

/// Prints the names `registry.search` returns for one query, or answers
/// `{"id", "query"}` lines on stdin with `{"id", "results"}` lines.
pub fn search(
    registry: &Registry,
    query: Option<String>,
    k: usize,
    batch: bool,
) -> Result<(), String> {
    if !batch {
        let query = query.ok_or("give a query, or --batch to read JSON lines on stdin")?;
        for tool in registry.search(&query, k) {
            out!("{}", tool.name());
        }
        return Ok(());
    }
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let req: Value =
            serde_json::from_str(&line).map_err(|e| format!("bad input line {line:?}: {e}"))?;
        let q = req["query"]
            .as_str()
            .ok_or_else(|| format!("input line without \"query\": {line}"))?;
        let names: Vec<&str> = registry.search(q, k).iter().map(|t| t.name()).collect();
        out!("{}", json!({"id": req["id"], "results": names}));
    }
    Ok(())
}
