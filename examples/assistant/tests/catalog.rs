//! The assistant's tools, each exercised for real: results and refusals.
//! Network tests use a local server on 127.0.0.1 only.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use assistant::{App, AppConfig, CORE_TOOLS};
use optimclaw::{LazyConfig, Registry, ToolContext, ToolError, ToolKind};
use optimclaw_testkit::{FakeEndpoint, Reply};
use serde_json::{Value, json};

struct Fixture {
    _home: tempfile::TempDir,
    app: App,
    registry: Registry,
    ctx: ToolContext,
}

fn fixture_with(allow: Vec<String>) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let mut config = AppConfig::new(home.path());
    config.allow = allow;
    config.shell_timeout = Duration::from_secs(3);
    config.shell_output_cap = 4096;
    let app = App::open(config).unwrap();
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    let ctx = app.context();
    Fixture {
        _home: home,
        app,
        registry,
        ctx,
    }
}

fn fixture() -> Fixture {
    fixture_with(Vec::new())
}

impl Fixture {
    async fn call(&self, name: &str, args: Value) -> Result<Value, ToolError> {
        self.registry.call(name, args, &self.ctx).await
    }
    async fn ok(&self, name: &str, args: Value) -> Value {
        self.call(name, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{name}({args}): {e}"))
    }
    async fn err(&self, name: &str, args: Value) -> String {
        match self.call(name, args.clone()).await {
            Ok(v) => panic!("{name}({args}) should fail, got {v}"),
            Err(e) => e.to_string(),
        }
    }
}

/// A canned answer: path prefix, status, body (`{echo}` is the `x-token`
/// header, `{body}` the request body), headers.
type Route = (&'static str, u16, &'static str, Vec<(&'static str, String)>);

/// A tiny HTTP server on 127.0.0.1 answering by path.
fn serve(routes: Vec<Route>) -> FakeEndpoint {
    FakeEndpoint::start(move |request| {
        let echo = request.header("x-token").unwrap_or_default();
        match routes.iter().find(|r| request.path.starts_with(r.0)) {
            Some((_, status, body, headers)) => {
                let text = body
                    .replace("{echo}", echo)
                    .replace("{body}", &request.text());
                let mut reply = Reply::text(*status, text);
                for (k, v) in headers {
                    reply = reply.with_header(k, v);
                }
                reply
            }
            None => Reply::text(404, "not found"),
        }
    })
}

#[test]
fn the_catalog_has_the_twelve_core_tools_and_forty_deferred_ones() {
    let f = fixture();
    let core: Vec<&str> = f
        .registry
        .tools()
        .iter()
        .filter(|t| t.is_core())
        .map(|t| t.name())
        .collect();
    let mut expected = CORE_TOOLS.to_vec();
    expected.sort_unstable();
    assert_eq!(core, expected);
    let deferred: Vec<_> = f
        .registry
        .tools()
        .iter()
        .filter(|t| t.kind() == ToolKind::Deferred)
        .collect();
    assert!(deferred.len() >= 40, "{} deferred tools", deferred.len());
    for tool in &deferred {
        assert!(!tool.keywords().is_empty(), "{} has keywords", tool.name());
    }
    for name in [
        "job_create",
        "job_status",
        "job_cancel",
        "job_list",
        "routine_create",
        "routine_list",
        "routine_delete",
        "skill_list",
        "skill_search",
        "skill_install",
        "skill_remove",
        "extension_install",
        "extension_list",
        "extension_remove",
        "secrets_set",
        "secrets_get",
        "secrets_list",
        "secrets_delete",
        "list_dir",
        "glob",
        "grep",
        "apply_patch",
    ] {
        assert!(f.registry.get(name).is_some_and(|t| !t.is_core()), "{name}");
    }
    optimclaw::testing::assert_tools_valid();
}

#[tokio::test]
async fn echo_time_and_json() {
    let f = fixture();
    assert_eq!(f.ok("echo", json!({"text": "hi"})).await, json!("hi"));
    let utc = f.ok("time", json!({})).await;
    assert_eq!(utc["timezone"], "UTC");
    assert!(utc["unix_seconds"].as_i64().unwrap() > 1_700_000_000);
    let paris = f.ok("time", json!({"timezone": "Europe/Paris"})).await;
    assert!(
        paris["datetime"]
            .as_str()
            .unwrap()
            .ends_with("[Europe/Paris]")
    );
    assert!(
        f.err("time", json!({"timezone": "Mars/Olympus"}))
            .await
            .contains("unknown time zone")
    );
    // A given date-time is shown in the zone (the call small models write
    // for a conversion), not the current time.
    let chicago = f
        .ok(
            "time",
            json!({"datetime": "2025-01-15T20:00:00Z", "timezone": "America/Chicago"}),
        )
        .await;
    assert_eq!(
        chicago["datetime"],
        "2025-01-15T14:00:00-06:00[America/Chicago]"
    );
    assert_eq!(chicago["weekday"], "Wednesday");
    assert_eq!(chicago["unix_seconds"], 1_736_971_200);
    let offset = f
        .ok(
            "time",
            json!({"datetime": "2025-07-04T20:00:00+02:00", "timezone": "UTC"}),
        )
        .await;
    assert_eq!(offset["datetime"], "2025-07-04T18:00:00+00:00[UTC]");
    let blank = f.ok("time", json!({"datetime": " "})).await;
    assert!(blank["unix_seconds"].as_i64().unwrap() > 1_700_000_000);
    let bad = f.err("time", json!({"datetime": "tomorrow at noon"})).await;
    assert!(bad.contains("cannot read \"tomorrow at noon\""), "{bad}");

    let doc = r#"{"items": [{"name": "a", "n": 1}, {"name": "b", "n": 2}]}"#;
    let path = f
        .ok(
            "json",
            json!({"document": doc, "query": "$.items[?@.n > 1].name"}),
        )
        .await;
    assert_eq!(path["matches"], json!(["b"]));
    let pointer = f
        .ok("json", json!({"document": doc, "query": "/items/0/name"}))
        .await;
    assert_eq!(pointer["matches"], json!(["a"]));
    assert_eq!(
        f.ok("json", json!({"document": "[1, 2]"})).await,
        json!([1, 2])
    );
    assert!(
        f.err("json", json!({"document": "{oops"}))
            .await
            .contains("not valid JSON")
    );
    assert!(
        f.err("json", json!({"document": "{}", "query": "items"}))
            .await
            .contains("neither JSONPath")
    );
    assert!(
        f.err("json", json!({"document": "{}", "query": "$[?"}))
            .await
            .contains("invalid JSONPath")
    );
}

#[tokio::test]
async fn http_reaches_only_the_allowlist_and_keeps_secrets_out_of_answers() {
    let server = serve(vec![
        (
            "/ok",
            200,
            "hello {echo}",
            vec![("Content-Type", "text/plain".into())],
        ),
        ("/post", 201, "got {body}", vec![]),
        (
            "/redirect-out",
            302,
            "",
            vec![("Location", "http://127.0.0.2:9/".into())],
        ),
        ("/redirect-in", 302, "", vec![]),
    ]);
    let base = server.url("");
    let f = fixture_with(vec![format!("{base}/")]);
    f.app
        .secrets
        .set("api_token", "s3cr3t-value-123", &[format!("{base}/")])
        .unwrap();

    let ok = f
        .ok(
            "http",
            json!({"url": format!("{base}/ok"), "headers": {"x-token": "{{secret:api_token}}"}}),
        )
        .await;
    assert_eq!(ok["status"], 200);
    assert_eq!(
        ok["body"], "hello [secret:api_token]",
        "the echoed secret is redacted"
    );
    assert!(!ok.to_string().contains("s3cr3t"));

    let post = f
        .ok(
            "http",
            json!({"url": format!("{base}/post"), "method": "POST", "body": "{\"a\":1}"}),
        )
        .await;
    assert_eq!(post["status"], 201);
    assert_eq!(post["body"], "got {\"a\":1}");

    let refused = f
        .err("http", json!({"url": "http://127.0.0.1:1/elsewhere"}))
        .await;
    assert!(refused.contains("is not on the allowlist"), "{refused}");
    let redirect = f
        .err("http", json!({"url": format!("{base}/redirect-out")}))
        .await;
    assert!(redirect.contains("not on the allowlist"), "{redirect}");
    assert!(
        f.err("http", json!({"url": "file:///etc/passwd"}))
            .await
            .contains("only http and https")
    );
    let unknown = f
        .err(
            "http",
            json!({"url": format!("{base}/ok"), "headers": {"x": "{{secret:nope}}"}}),
        )
        .await;
    assert!(
        unknown.contains("names no stored secret") && !unknown.contains("s3cr3t"),
        "{unknown}"
    );
}

#[tokio::test]
async fn host_names_resolving_to_private_addresses_are_refused_unless_allowed() {
    let server = serve(vec![("/ok", 200, "hello", vec![])]);
    let base = server.url("");
    let port = base.rsplit(':').next().unwrap().to_owned();
    let by_name = format!("http://localhost:{port}");
    let f = fixture_with(vec![format!("{by_name}/")]);
    let err = f.err("http", json!({"url": format!("{by_name}/ok")})).await;
    assert!(
        err.contains("resolves only to private or local addresses"),
        "{err}"
    );
    // Allowed explicitly: the same request goes through.
    let home = tempfile::tempdir().unwrap();
    let mut config = AppConfig::new(home.path());
    config.allow = vec![format!("{by_name}/")];
    config.allow_private_networks = true;
    let app = App::open(config).unwrap();
    let registry = Registry::builder()
        .lazy(LazyConfig::lazy())
        .build()
        .unwrap();
    let ok = registry
        .call(
            "http",
            json!({"url": format!("{by_name}/ok")}),
            &app.context(),
        )
        .await
        .unwrap();
    assert_eq!(ok["body"], "hello");
}

#[tokio::test]
async fn web_fetch_returns_readable_text() {
    let page = "<html><head><title>T</title><style>p{}</style></head><body><h1>News</h1><p>First <b>story</b>.</p><script>var x=1;</script></body></html>";
    let server = serve(vec![(
        "/page",
        200,
        page,
        vec![("Content-Type", "text/html; charset=utf-8".into())],
    )]);
    let base = server.url("");
    let f = fixture_with(vec![base.clone()]);
    let got = f
        .ok("web_fetch", json!({"url": format!("{base}/page")}))
        .await;
    let text = got["text"].as_str().unwrap();
    assert!(
        text.contains("News") && text.contains("First story"),
        "{text}"
    );
    assert!(!text.contains("<b>") && !text.contains("var x"), "{text}");
    assert_eq!(got["truncated"], false);
    let cut = f
        .ok(
            "web_fetch",
            json!({"url": format!("{base}/page"), "max_chars": 100}),
        )
        .await;
    assert!(cut["text"].as_str().unwrap().chars().count() <= 100);
    assert!(
        f.err("web_fetch", json!({"url": "http://127.0.0.1:1/"}))
            .await
            .contains("allowlist")
    );
}

#[tokio::test]
async fn file_tools_stay_in_the_workspace() {
    let f = fixture();
    let w = f
        .ok(
            "file_write",
            json!({"path": "notes/today.md", "content": "line 1\nline 2\nline 3"}),
        )
        .await;
    assert_eq!(w["path"], "notes/today.md");
    f.ok(
        "file_write",
        json!({"path": "notes/today.md", "content": "\nline 4", "append": true}),
    )
    .await;
    let r = f
        .ok(
            "file_read",
            json!({"path": "notes/today.md", "start_line": 2, "max_lines": 2}),
        )
        .await;
    assert_eq!(r["content"], "line 2\nline 3");
    assert_eq!(r["total_lines"], 4);
    for bad in ["../escape.txt", "/etc/passwd", "notes/../../x"] {
        let e = f.err("file_read", json!({"path": bad})).await;
        assert!(e.contains("..") || e.contains("absolute"), "{bad}: {e}");
        f.err("file_write", json!({"path": bad, "content": "x"}))
            .await;
    }
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret").unwrap();
    std::os::unix::fs::symlink(outside.path(), f.app.workspace.root().join("link")).unwrap();
    assert!(
        f.err("file_read", json!({"path": "link/secret.txt"}))
            .await
            .contains("outside the workspace")
    );
    assert!(
        f.err(
            "file_write",
            json!({"path": "link/new.txt", "content": "x"})
        )
        .await
        .contains("outside the workspace")
    );
    std::os::unix::fs::symlink("/dev/zero", f.app.workspace.root().join("zero")).unwrap();
    f.err("file_read", json!({"path": "zero"})).await;
    let fifo = f.app.workspace.root().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert!(
        f.err("file_read", json!({"path": "pipe"}))
            .await
            .contains("not a regular file")
    );
}

#[tokio::test]
async fn shell_runs_in_the_workspace_with_limits() {
    let f = fixture();
    // The parent environment does not leak into the command.
    let out = f
        .ok(
            "shell",
            json!({"command": "echo hello; pwd; echo ${OPENAI_API_KEY:-unset} >&2; exit 3"}),
        )
        .await;
    assert_eq!(out["exit_code"], 3);
    let stdout = out["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("hello\n"));
    assert!(stdout.contains(&f.app.workspace.root().display().to_string()));
    assert_eq!(out["stderr"], "unset\n");
    let flood = f
        .ok("shell", json!({"command": "yes | head -c 100000"}))
        .await;
    assert_eq!(flood["truncated"], true);
    assert_eq!(flood["stdout"].as_str().unwrap().len(), 4096);
    let start = std::time::Instant::now();
    let slow = f
        .err(
            "shell",
            json!({"command": "sleep 30 & sleep 30", "timeout_secs": 1}),
        )
        .await;
    assert!(slow.contains("did not finish within 1 s"), "{slow}");
    assert!(start.elapsed() < Duration::from_secs(10));
    f.app.secrets.set("pw", "hunter2-hunter2", &[]).unwrap();
    let leaked = f
        .ok("shell", json!({"command": "echo hunter2-hunter2"}))
        .await;
    assert_eq!(leaked["stdout"], "[secret:pw]\n");
}

#[tokio::test]
async fn memory_is_searchable_by_words_and_similarity() {
    let f = fixture();
    f.ok(
        "memory_write",
        json!({"text": "The staging database password rotates monthly", "tags": ["ops"]}),
    )
    .await;
    f.ok(
        "memory_write",
        json!({"text": "Bob's birthday is on March 3"}),
    )
    .await;
    let hits = f.ok("memory_search", json!({"query": "birthday"})).await;
    assert_eq!(hits[0]["text"], "Bob's birthday is on March 3");
    let fuzzy = f.ok("memory_search", json!({"query": "databases"})).await;
    assert!(
        fuzzy[0]["text"]
            .as_str()
            .unwrap()
            .contains("staging database")
    );
    assert_eq!(fuzzy[0]["tags"], json!(["ops"]));
    let id = fuzzy[0]["id"].as_i64().unwrap();
    f.ok("memory_delete", json!({"id": id})).await;
    assert!(
        f.err("memory_delete", json!({"id": id}))
            .await
            .contains("no memory")
    );
    assert!(
        f.err("memory_write", json!({"text": " "}))
            .await
            .contains("empty")
    );
}

#[tokio::test]
async fn message_goes_to_the_outbox_or_an_allowed_webhook() {
    let server = serve(vec![("/hook", 200, "ok", vec![])]);
    let base = server.url("");
    let f = fixture_with(vec![format!("{base}/hook")]);
    f.ok("message", json!({"channel": "file", "text": "deploy done"}))
        .await;
    let outbox = std::fs::read_to_string(&f.app.outbox).unwrap();
    assert!(outbox.contains("\"text\":\"deploy done\""));
    let sent = f
        .ok(
            "message",
            json!({"channel": "webhook", "text": "hi", "url": format!("{base}/hook")}),
        )
        .await;
    assert_eq!(sent["status"], 200);
    assert!(
        f.err(
            "message",
            json!({"channel": "webhook", "text": "hi", "url": format!("{base}/other")})
        )
        .await
        .contains("allowlist")
    );
    assert!(
        f.err("message", json!({"channel": "webhook", "text": "hi"}))
            .await
            .contains("needs `url`")
    );
    f.ok(
        "message",
        json!({"channel": "stdout", "text": "to the console"}),
    )
    .await;
}

async fn wait_for(f: &Fixture, id: &str, status: &str) -> Value {
    for _ in 0..200 {
        let job = f.ok("job_status", json!({"id": id})).await;
        if job["status"] == status {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "job {id} never reached {status}: {}",
        f.ok("job_status", json!({"id": id})).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_run_by_priority_with_timeouts_and_cancellation() {
    let f = fixture();
    let prompt_only = f
        .ok(
            "job_create",
            json!({"prompt": "Summarize today's news", "priority": 3}),
        )
        .await;
    assert_eq!(prompt_only["status"], "queued");
    assert_eq!(prompt_only["timeout_secs"], 300);
    let low = f.ok("job_create", json!({"prompt": "low", "priority": 9, "tool": "shell", "arguments": {"command": "echo low >> order.txt"}})).await;
    let high = f.ok("job_create", json!({"prompt": "high", "priority": 1, "tool": "shell", "arguments": {"command": "echo high >> order.txt"}})).await;
    let doomed = f
        .ok(
            "job_create",
            json!({"prompt": "doomed", "priority": 10, "tool": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    let cancelled = f.ok("job_cancel", json!({"id": doomed["id"]})).await;
    assert_eq!(cancelled["status"], "cancelled");
    // One worker, so the order is the queue's.
    f.app.jobs.start(f.registry.clone(), f.ctx.clone(), 1);
    wait_for(&f, low["id"].as_str().unwrap(), "done").await;
    let done = wait_for(&f, high["id"].as_str().unwrap(), "done").await;
    assert_eq!(done["result"]["exit_code"], 0);
    let order = std::fs::read_to_string(f.app.workspace.root().join("order.txt")).unwrap();
    assert_eq!(order, "high\nlow\n");
    let slow = f.ok("job_create", json!({"prompt": "slow", "timeout_secs": 1, "tool": "shell", "arguments": {"command": "sleep 5"}})).await;
    let timed_out = wait_for(&f, slow["id"].as_str().unwrap(), "timed_out").await;
    assert!(
        timed_out["error"].as_str().unwrap().contains("1.0 s"),
        "{timed_out}"
    );
    assert_eq!(
        f.ok("job_status", json!({"id": prompt_only["id"]})).await["status"],
        "queued",
        "waits for a model"
    );
    let listed = f.ok("job_list", json!({"status": "done"})).await;
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert!(
        f.err("job_status", json!({"id": "job-nope"}))
            .await
            .contains("no job")
    );
    assert!(
        f.err("job_create", json!({"prompt": "x", "priority": 11}))
            .await
            .contains("out of range")
    );
    assert!(
        f.err("job_create", json!({"prompt": "x", "tool": "no_such_tool"}))
            .await
            .contains("no tool is named")
    );
}

#[tokio::test]
async fn routines_validate_cron_and_create_jobs_when_due() {
    let f = fixture();
    let r = f.ok("routine_create", json!({"name": "standup", "schedule": "0 9 * * MON-FRI", "prompt": "Post the standup reminder"})).await;
    assert!(r["next_run"].as_str().is_some(), "{r}");
    assert!(
        f.err(
            "routine_create",
            json!({"name": "bad", "schedule": "every day", "prompt": "x"})
        )
        .await
        .contains("invalid cron")
    );
    f.ok("routine_create", json!({"name": "tick", "schedule": "* * * * * *", "prompt": "tick", "tool": "echo", "arguments": {"text": "tick"}})).await;
    let list = f.ok("routine_list", json!({})).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    let now = jiff::Zoned::now();
    assert!(
        f.app.jobs.fire_due_routines(&now).unwrap().is_empty(),
        "first pass only records the start"
    );
    let later = now.checked_add(jiff::Span::new().seconds(2)).unwrap();
    let created = f.app.jobs.fire_due_routines(&later).unwrap();
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].tool.as_deref(), Some("echo"));
    f.ok("routine_delete", json!({"name": "tick"})).await;
    assert!(
        f.err("routine_delete", json!({"name": "tick"}))
            .await
            .contains("no routine")
    );
}

#[tokio::test]
async fn skills_are_markdown_files_with_front_matter() {
    let f = fixture();
    let skill = "---\nname: pdf-summary\ndescription: Summarize PDF reports into five bullet points\ntags: [pdf, reports]\n---\n# Steps\nRead the PDF, then summarize.\n";
    f.ok(
        "skill_install",
        json!({"name": "pdf-summary", "content": skill}),
    )
    .await;
    f.ok("skill_install", json!({"name": "haiku", "content": "---\nname: haiku\ndescription: Write a haiku about a topic\n---\nFive, seven, five.\n"})).await;
    let list = f.ok("skill_list", json!({})).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    let found = f
        .ok("skill_search", json!({"query": "summarizing reports"}))
        .await;
    assert_eq!(found[0]["name"], "pdf-summary");
    assert!(
        f.err(
            "skill_install",
            json!({"name": "x", "content": "no front matter"})
        )
        .await
        .contains("front matter")
    );
    assert!(
        f.err("skill_install", json!({"name": "other", "content": skill}))
            .await
            .contains("not \"other\"")
    );
    assert!(
        f.err(
            "skill_install",
            json!({"name": "../evil", "content": skill})
        )
        .await
        .contains("front matter names")
    );
    f.ok("skill_remove", json!({"name": "haiku"})).await;
    assert!(
        f.err("skill_remove", json!({"name": "haiku"}))
            .await
            .contains("no skill")
    );
    std::fs::write(
        f.app.workspace.root().join("s.md"),
        skill.replace("pdf-summary", "from-file"),
    )
    .unwrap();
    f.ok(
        "skill_install",
        json!({"name": "from-file", "from_path": "s.md"}),
    )
    .await;
}

#[tokio::test]
async fn extensions_edit_the_mcp_servers_config() {
    let f = fixture();
    f.ok("extension_install", json!({"name": "time", "command": "uvx", "args": ["mcp-server-time"], "env": {"TZ_TOKEN": "abc123"}})).await;
    f.ok(
        "extension_install",
        json!({"name": "remote", "url": "http://127.0.0.1:8931/mcp"}),
    )
    .await;
    let list = f.ok("extension_list", json!({})).await;
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert!(
        !list.to_string().contains("abc123"),
        "env values are hidden"
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(&f.app.extensions_file).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["time"]["args"],
        json!(["mcp-server-time"])
    );
    assert!(
        f.err(
            "extension_install",
            json!({"name": "both", "command": "x", "url": "http://a"})
        )
        .await
        .contains("exactly one")
    );
    assert!(
        f.err("extension_install", json!({"name": "a__b", "command": "x"}))
            .await
            .contains("no `__`")
    );
    f.ok("extension_remove", json!({"name": "time"})).await;
    assert!(
        f.err("extension_remove", json!({"name": "time"}))
            .await
            .contains("no extension")
    );
}

#[tokio::test]
async fn secrets_never_come_back_out() {
    let f = fixture();
    let value = "ghp_abcdefghijklmnop1234";
    let set = f
        .ok(
            "secrets_set",
            json!({"name": "github_token", "value": value}),
        )
        .await;
    let get = f.ok("secrets_get", json!({"name": "github_token"})).await;
    let list = f.ok("secrets_list", json!({})).await;
    for answer in [&set, &get, &list] {
        assert!(!answer.to_string().contains(value), "{answer}");
    }
    assert_eq!(get["length"], value.len());
    assert_eq!(get["reference"], "{{secret:github_token}}");
    let path = f.app.config.home.join("secrets.json");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let info = f.registry.tool_info("secrets", 20).unwrap();
    assert!(!serde_json::to_string(&info).unwrap().contains(value));
    let err = f.err("secrets_get", json!({"name": "missing"})).await;
    assert!(!err.contains(value));
    f.ok("secrets_delete", json!({"name": "github_token"}))
        .await;
    assert!(
        f.err("secrets_get", json!({"name": "github_token"}))
            .await
            .contains("no secret")
    );
    assert!(
        f.err("secrets_set", json!({"name": "bad name", "value": "x"}))
            .await
            .contains("secret names")
    );
}

#[tokio::test]
async fn deferred_file_tools() {
    let f = fixture();
    f.ok("make_dir", json!({"path": "src/app"})).await;
    f.ok(
        "file_write",
        json!({"path": "src/app/main.rs", "content": "fn main() {\n    println!(\"hi\");\n}\n"}),
    )
    .await;
    f.ok(
        "file_write",
        json!({"path": "README.md", "content": "# Title\nTODO: write\n"}),
    )
    .await;
    let ls = f.ok("list_dir", json!({})).await;
    assert_eq!(
        ls.as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["README.md", "src"]
    );
    assert_eq!(
        f.ok("glob", json!({"pattern": "**/*.rs"})).await,
        json!(["src/app/main.rs"])
    );
    let grep = f
        .ok("grep", json!({"pattern": "(?i)todo", "include": "*.md"}))
        .await;
    assert_eq!(grep[0]["file"], "README.md");
    assert_eq!(grep[0]["line"], 2);
    let patch = "--- a/src/app/main.rs\n+++ b/src/app/main.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n }\n";
    f.ok(
        "apply_patch",
        json!({"path": "src/app/main.rs", "patch": patch}),
    )
    .await;
    let read = f.ok("file_read", json!({"path": "src/app/main.rs"})).await;
    assert!(read["content"].as_str().unwrap().contains("hello"));
    assert!(
        f.err(
            "apply_patch",
            json!({"path": "src/app/main.rs", "patch": patch})
        )
        .await
        .contains("does not apply")
    );
    let info = f.ok("file_info", json!({"path": "README.md"})).await;
    assert_eq!(info["kind"], "file");
    f.ok("file_move", json!({"from": "README.md", "to": "docs.md"}))
        .await;
    assert_eq!(
        f.ok("file_info", json!({"path": "README.md"})).await["exists"],
        false
    );
    f.ok("file_delete", json!({"path": "docs.md"})).await;
    assert!(
        f.err("file_delete", json!({"path": "."}))
            .await
            .contains("root")
    );
    assert!(
        f.err("file_move", json!({"from": "src", "to": "../src"}))
            .await
            .contains("..")
    );
}

#[tokio::test]
async fn data_tools() {
    let f = fixture();
    assert_eq!(
        f.ok("hash_text", json!({"text": "abc"})).await,
        json!("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    );
    let b64 = f.ok("base64_encode", json!({"text": "héllo"})).await;
    assert_eq!(
        f.ok("base64_decode", json!({"data": b64})).await,
        json!("héllo")
    );
    assert!(
        f.err("base64_decode", json!({"data": "***"}))
            .await
            .contains("not valid base64")
    );
    assert_eq!(
        f.ok("uuid_new", json!({"count": 3}))
            .await
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        f.ok(
            "regex_replace",
            json!({"text": "a1b22", "pattern": "\\d+", "replacement": "#"})
        )
        .await,
        json!("a#b#")
    );
    let found = f
        .ok(
            "regex_find",
            json!({"text": "x=1, y=22", "pattern": "(\\w)=(\\d+)"}),
        )
        .await;
    assert_eq!(found[1]["groups"], json!(["y", "22"]));
    assert_eq!(
        f.ok("word_count", json!({"text": "two words\nthree"}))
            .await["words"],
        3
    );
    assert_eq!(
        f.ok("calculate", json!({"expression": "(3 + 4) * 2"}))
            .await,
        json!(14)
    );
    assert!(
        f.err("calculate", json!({"expression": "3 +"}))
            .await
            .contains("cannot evaluate")
    );
    let rows = f
        .ok("csv_to_json", json!({"csv": "name,age\nAda,36\nAlan,41\n"}))
        .await;
    assert_eq!(rows[1], json!({"name": "Alan", "age": "41"}));
    let url = f
        .ok(
            "url_parse",
            json!({"url": "https://example.com:8443/a/b?x=1&y=two#top"}),
        )
        .await;
    assert_eq!(url["port"], 8443);
    assert_eq!(url["query"], json!([["x", "1"], ["y", "two"]]));
    assert_eq!(
        f.ok(
            "date_diff",
            json!({"start": "2026-01-01", "end": "2026-01-31"})
        )
        .await["days"],
        30.0
    );
    assert_eq!(
        f.ok(
            "date_add",
            json!({"datetime": "2026-01-31T10:00:00Z", "duration": "P1D"})
        )
        .await,
        json!("2026-02-01T10:00:00+00:00[UTC]")
    );
    assert_eq!(
        f.ok(
            "timezone_convert",
            json!({"datetime": "2026-06-01T12:00:00Z", "to": "Asia/Tokyo"})
        )
        .await,
        json!("2026-06-01T21:00:00+09:00[Asia/Tokyo]")
    );
    let diff = f
        .ok(
            "text_diff",
            json!({"original": "a\nb\n", "modified": "a\nc\n"}),
        )
        .await;
    assert!(diff.as_str().unwrap().contains("-b\n+c"));
}
