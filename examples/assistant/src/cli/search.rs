//! `search`: ranked `tool_info` search over the catalog or manifests, one
//! query or JSON lines on stdin (what the retrieval benchmark drives).

use std::io::BufRead;

use optimclaw::Registry;
use serde_json::{Value, json};

/// Prints the names `registry.search` returns for one query, or answers
/// `{"id", "query"}` lines on stdin with `tool_info`'s answer as
/// `{"id", "results", "matches": [{"name", "match"}], "no_match", "shortened"}`
/// lines (at most 20 results, as `tool_info` gives).
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
        // What a model would see: tool_info's own answer.
        let answer = registry.tool_info(q, k).map_err(|e| e.to_string())?;
        let names: Vec<&str> = answer.tools.iter().map(|t| t.name.as_str()).collect();
        let matches: Vec<Value> = answer
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "match": t.strength}))
            .collect();
        out!(
            "{}",
            json!({
                "id": req["id"],
                "results": names,
                "matches": matches,
                "no_match": answer.no_match,
                "shortened": answer.shortened,
            })
        );
    }
    Ok(())
}
