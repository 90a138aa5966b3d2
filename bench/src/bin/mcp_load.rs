//! Load on an MCP streamable-HTTP server, as clients send it: raw JSON-RPC
//! over keep-alive connections (one `reqwest` client, so one connection,
//! per worker). Prints one markdown table row per scenario:
//!
//! - one session, `tools/call calculate` from 1, 8 and 64 connections;
//! - 1,000 sessions × 20 calls (64 at a time), resident memory with the
//!   1,000 sessions live, then with 10,000 live;
//! - an `initialize` flood for 20 s from 64 connections, resident memory
//!   after it, and again once the server's idle timeout has passed.
//!
//! Usage: `mcp_load URL PID LABEL [IDLE_SECS]` (run by `bench/mcp_load.sh`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const VERSION: &str = "2025-06-18";

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

fn request(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut req = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", VERSION)
        .body(body.to_string());
    // The key `bench/mcp_load.sh` gave our server (a server without keys
    // ignores the header).
    if let Ok(token) = std::env::var("OPTIMCLAW_MCP_TOKEN") {
        req = req.bearer_auth(token);
    }
    if let Some(id) = session {
        req = req.header("mcp-session-id", id);
    }
    req
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {},
        "clientInfo": {"name": "mcp_load", "version": "0"}}})
}

/// Opens a session; `None` if the server refused it.
async fn open(http: &reqwest::Client, url: &str) -> Option<String> {
    let reply = request(http, url, None, &initialize()).send().await.ok()?;
    if !reply.status().is_success() {
        let _ = reply.bytes().await;
        return None;
    }
    let id = reply
        .headers()
        .get("mcp-session-id")?
        .to_str()
        .ok()?
        .to_owned();
    let _ = reply.bytes().await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = request(http, url, Some(&id), &note).send().await.ok()?;
    let _ = ack.bytes().await;
    Some(id)
}

/// One `tools/call calculate`; its latency, or `None` on any failure.
async fn call(http: &reqwest::Client, url: &str, session: &str, n: u64) -> Option<Duration> {
    let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": "calculate", "arguments": {"expression": "(3 + 4) * 2"}}});
    let start = Instant::now();
    let reply = request(http, url, Some(session), &body).send().await.ok()?;
    let ok = reply.status().is_success();
    let text = reply.text().await.ok()?;
    (ok && text.contains("14")).then(|| start.elapsed())
}

fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// Calls on one session from `conns` connections for `secs` seconds.
async fn one_session(url: &str, session: &str, conns: usize, secs: u64) -> (f64, f64, f64, u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let counter = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let workers = (0..conns).map(|_| {
        let (url, session) = (url.to_owned(), session.to_owned());
        let (counter, failures) = (Arc::clone(&counter), Arc::clone(&failures));
        tokio::spawn(async move {
            let http = client();
            let mut lat = Vec::new();
            while Instant::now() < deadline {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                match call(&http, &url, &session, n).await {
                    Some(d) => lat.push(d),
                    None => {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            lat
        })
    });
    summarize(workers, &failures).await
}

/// Waits for the workers; (requests/s, p50 ms, p99 ms, failures).
async fn summarize(
    workers: impl Iterator<Item = tokio::task::JoinHandle<Vec<Duration>>>,
    failures: &AtomicU64,
) -> (f64, f64, f64, u64) {
    let start = Instant::now();
    let mut all: Vec<Duration> = Vec::new();
    for w in futures_util::future::join_all(workers).await {
        all.extend(w.expect("worker"));
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort();
    (
        all.len() as f64 / elapsed,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        failures.load(Ordering::Relaxed),
    )
}

/// `sessions` sessions (64 at a time), each making `calls` calls.
async fn many_sessions(url: &str, sessions: usize, calls: u64) -> (f64, f64, f64, u64) {
    let next = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let workers = (0..64).map(|_| {
        let url = url.to_owned();
        let (next, failures) = (Arc::clone(&next), Arc::clone(&failures));
        tokio::spawn(async move {
            let http = client();
            let mut lat = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < sessions as u64 {
                let Some(id) = open(&http, &url).await else {
                    failures.fetch_add(calls, Ordering::Relaxed);
                    continue;
                };
                for n in 0..calls {
                    match call(&http, &url, &id, n).await {
                        Some(d) => lat.push(d),
                        None => {
                            failures.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
            lat
        })
    });
    summarize(workers, &failures).await
}

/// `initialize` from 64 connections until `secs` pass (or `limit` sessions
/// were answered); (answered, refused).
async fn flood(url: &str, secs: u64, limit: Option<u64>) -> (u64, u64) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let ok = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let workers = (0..64).map(|_| {
        let url = url.to_owned();
        let (ok, refused) = (Arc::clone(&ok), Arc::clone(&refused));
        tokio::spawn(async move {
            let http = client();
            while Instant::now() < deadline && limit.is_none_or(|l| ok.load(Ordering::Relaxed) < l)
            {
                match open(&http, &url).await {
                    Some(_) => ok.fetch_add(1, Ordering::Relaxed),
                    None => refused.fetch_add(1, Ordering::Relaxed),
                };
            }
        })
    });
    futures_util::future::join_all(workers).await;
    (ok.load(Ordering::Relaxed), refused.load(Ordering::Relaxed))
}

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Vec<String> = std::env::args().collect();
    let (url, pid, label) = (&args[1], args[2].parse::<u32>().expect("pid"), &args[3]);
    let idle: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(30);
    let secs: u64 = std::env::var("LOAD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let http = client();
    let session = open(&http, url).await.expect("the server opens a session");
    let baseline = rss_mib(pid);
    for conns in [1, 8, 64] {
        let (rps, p50, p99, failed) = one_session(url, &session, conns, secs).await;
        println!(
            "| {label} | one session, {conns} connection(s) | {rps:.0} | {p50:.2} | {p99:.2} | {failed} |"
        );
    }
    let (rps, p50, p99, failed) = many_sessions(url, 1000, 20).await;
    println!("| {label} | 1,000 sessions × 20 calls | {rps:.0} | {p50:.2} | {p99:.2} | {failed} |");
    let at_1k = rss_mib(pid);
    let (opened, refused) = flood(url, 120, Some(9_000)).await;
    let at_10k = rss_mib(pid);
    let (flood_ok, flood_refused) = flood(url, 20, None).await;
    let after_flood = rss_mib(pid);
    tokio::time::sleep(Duration::from_secs(idle + 10)).await;
    let after_expiry = rss_mib(pid);
    println!(
        "MEM | {label} | {baseline:.0} | {at_1k:.0} | {at_10k:.0} ({opened} more opened, {refused} refused) | {after_flood:.0} ({flood_ok} answered, {flood_refused} refused in 20 s) | {after_expiry:.0} |"
    );
}
