//! Load: 10,000 concurrent calls spread over 100 sessions on the
//! multi-threaded runtime. Every call is answered, and no session sees
//! another's loaded tools. Prints the throughput (measured, not asserted).

use std::sync::Arc;
use std::time::Instant;

use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_calls_over_a_hundred_sessions() {
    let tools = (0..100).map(|i| {
        DynamicTool::new(
            format!("svc__tool_{i:03}"),
            format!("Tool {i}."),
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        )
        .handler(move |_ctx, args: serde_json::Value| async move {
            tokio::task::yield_now().await;
            Ok(json!({"tool": i, "n": args["n"]}))
        })
    });
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(tools)
        .build()
        .unwrap();
    let sessions: Vec<Arc<Session>> = (0..100)
        .map(|_| Arc::new(Session::new(registry.clone())))
        .collect();
    let start = Instant::now();
    let mut handles = Vec::with_capacity(10_000);
    for call in 0..10_000usize {
        let s = call % 100;
        let session = Arc::clone(&sessions[s]);
        // Session s only ever calls tools s and (s + 1) % 100.
        let tool = if (call / 100) % 2 == 0 {
            s
        } else {
            (s + 1) % 100
        };
        handles.push(tokio::spawn(async move {
            let out = session
                .call(
                    &format!("svc__tool_{tool:03}"),
                    json!({"n": call}),
                    &ToolContext::new(),
                )
                .await
                .unwrap();
            assert_eq!(out, json!({"tool": tool, "n": call}));
        }));
    }
    for h in handles {
        h.await.expect("every call is answered");
    }
    let elapsed = start.elapsed();
    for (s, session) in sessions.iter().enumerate() {
        let mut loaded = session.loaded();
        loaded.sort();
        let mut want = vec![
            format!("svc__tool_{s:03}"),
            format!("svc__tool_{:03}", (s + 1) % 100),
        ];
        want.sort();
        assert_eq!(loaded, want, "session {s}");
    }
    eprintln!(
        "10,000 calls over 100 sessions in {elapsed:?}: {:.0} calls/s",
        10_000.0 / elapsed.as_secs_f64()
    );
}
