//! The core tools: always sent to the model with their full schemas (`time` is in `clock`).

use std::collections::BTreeMap;
use std::io::Write;

use optimclaw::{ToolContext, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::App;
use crate::memory::MemoryHit;
use crate::net::{describe, read_capped, redact_url};
use crate::shell::ShellOutput;

pub(crate) fn app(ctx: &ToolContext) -> Result<&App, ToolError> {
    Ok(ctx.require::<App>()?)
}

/// Return the given text unchanged, to show it to the user.
#[tool(core, read_only)]
fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// Parse a JSON document and query it with JSONPath (`$.items[*].name`) or
/// JSON Pointer (`/items/0/name`); without a query, returns the parsed document.
#[tool(core,
    examples = [{"document": "{\"items\": [{\"id\": 1}, {\"id\": 2}]}", "query": "$.items[*].id"}], read_only)]
fn json(
    /// The JSON document, as text.
    document: String,
    /// A JSONPath expression (starts with `$`) or a JSON Pointer (starts with `/`).
    query: Option<String>,
) -> Result<Value, ToolError> {
    let doc: Value = serde_json::from_str(&document)
        .map_err(|e| ToolError::new(format!("the document is not valid JSON: {e}")))?;
    let Some(query) = query.map(|q| q.trim().to_owned()).filter(|q| !q.is_empty()) else {
        return Ok(doc);
    };
    if query.starts_with('$') {
        let path = serde_json_path::JsonPath::parse(&query)
            .map_err(|e| ToolError::new(format!("invalid JSONPath {query:?}: {e}")))?;
        let matches: Vec<Value> = path.query(&doc).all().into_iter().cloned().collect();
        Ok(json!({ "query": query, "matches": matches }))
    } else if query.starts_with('/') {
        let found = doc
            .pointer(&query)
            .ok_or_else(|| ToolError::new(format!("nothing at JSON Pointer {query:?}")))?;
        Ok(json!({ "query": query, "matches": [found] }))
    } else {
        Err(ToolError::new(format!(
            "{query:?} is neither JSONPath (starting with `$`) nor a JSON Pointer (starting with `/`)"
        )))
    }
}

/// An HTTP method.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "UPPERCASE")]
enum Method {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
    /// HEAD
    Head,
}

/// What an HTTP request returned.
#[derive(Debug, Serialize, JsonSchema)]
struct HttpReply {
    /// The status code.
    status: u16,
    /// Selected response headers.
    headers: BTreeMap<String, String>,
    /// The body as text (secrets redacted), or a note for binary bodies.
    body: String,
    /// Whether the body was cut at the size limit.
    truncated: bool,
}

/// Make an HTTP request to an allowed endpoint (see the allowlist). Headers
/// and body may use `{{secret:NAME}}` to insert a stored secret.
#[tool(core,
    examples = [{"url": "https://api.example.com/items", "method": "POST", "headers": {"Authorization": "Bearer {{secret:API_TOKEN}}"}, "body": "{\"name\": \"widget\"}"}], open_world)]
async fn http(
    ctx: &ToolContext,
    /// The full URL, e.g. https://api.example.com/v1/items.
    url: String,
    /// The HTTP method.
    #[arg(default = Method::Get)]
    method: Method,
    /// Request headers.
    #[arg(default)]
    headers: BTreeMap<String, String>,
    /// The request body (text; JSON is sent as is).
    body: Option<String>,
) -> Result<HttpReply, ToolError> {
    let app = app(ctx)?;
    // The host is judged with the references left out, so a secret cannot
    // choose where it goes; then the final URL must pass again.
    let first = app.allowlist.check(&without_references(&url))?;
    let (expanded, mut with_secret) = app.secrets.expand_for(&url, &first)?;
    let target = app.allowlist.check(&expanded)?;
    app.secrets.expand_for(&url, &target)?;
    let method = match method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Put => reqwest::Method::PUT,
        Method::Patch => reqwest::Method::PATCH,
        Method::Delete => reqwest::Method::DELETE,
        Method::Head => reqwest::Method::HEAD,
    };
    let mut expanded_headers = Vec::new();
    for (name, value) in &headers {
        let (value, used) = app.secrets.expand_for(value, &target)?;
        with_secret |= used;
        expanded_headers.push((name, value));
    }
    let body = match body {
        Some(body) => {
            let (body, used) = app.secrets.expand_for(&body, &target)?;
            with_secret |= used;
            Some(body)
        }
        None => None,
    };
    // A request carrying a secret follows no redirect: the answer (3xx
    // with its Location) goes back to the model instead.
    let client = if with_secret {
        &app.http_direct
    } else {
        &app.http
    };
    let mut request = client.request(method, target.clone());
    for (name, value) in expanded_headers {
        request = request.header(name.as_str(), value);
    }
    if let Some(body) = body {
        request = request.body(body);
    }
    let response = request.send().await.map_err(|e| {
        ToolError::new(format!(
            "{} {}: {}",
            "request to",
            redact_url(&target),
            describe(&e)
        ))
    })?;
    let status = response.status().as_u16();
    let mut kept = BTreeMap::new();
    for name in [
        "content-type",
        "content-length",
        "location",
        "retry-after",
        "etag",
        "last-modified",
    ] {
        if let Some(v) = response.headers().get(name).and_then(|v| v.to_str().ok()) {
            kept.insert(name.to_owned(), v.to_owned());
        }
    }
    let (bytes, truncated) = read_capped(response, app.config.http_body_cap).await?;
    let body = match String::from_utf8(bytes) {
        Ok(text) => app.secrets.redact(&text),
        Err(e) => format!("(binary body of {} bytes not shown)", e.as_bytes().len()),
    };
    Ok(HttpReply {
        status,
        headers: kept,
        body,
        truncated,
    })
}

/// `url` with every `{{secret:…}}` reference removed.
fn without_references(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(start) = rest.find("{{secret:") {
        out.push_str(&rest[..start]);
        match rest[start..].find("}}") {
            Some(end) => rest = &rest[start + end + 2..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A fetched page as text.
#[derive(Debug, Serialize, JsonSchema)]
struct Page {
    /// The URL after redirects.
    url: String,
    /// The status code.
    status: u16,
    /// The readable text of the page.
    text: String,
    /// Whether the text was cut at `max_chars`.
    truncated: bool,
}

/// Fetch a web page from an allowed endpoint and return its readable text
/// (HTML is converted to plain text).
#[tool(core, read_only, open_world)]
async fn web_fetch(
    ctx: &ToolContext,
    /// The page URL.
    url: String,
    /// Return at most this many characters.
    #[arg(default = 20_000)]
    max_chars: usize,
) -> Result<Page, ToolError> {
    let app = app(ctx)?;
    let target = app.allowlist.check(&url)?;
    let response = app.http.get(target.clone()).send().await.map_err(|e| {
        ToolError::new(format!(
            "fetching {}: {}",
            redact_url(&target),
            describe(&e)
        ))
    })?;
    let status = response.status().as_u16();
    let final_url = redact_url(response.url());
    let is_html = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.contains("html"));
    let (bytes, cut) = read_capped(response, app.config.http_body_cap).await?;
    let text = if is_html {
        html2text::config::plain_no_decorate()
            .string_from_read(&bytes[..], 100)
            .map_err(|e| ToolError::new(format!("the page could not be read as HTML: {e}")))?
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let text = app.secrets.redact(text.trim());
    let max = max_chars.clamp(100, 200_000);
    let truncated = cut || text.chars().count() > max;
    Ok(Page {
        url: final_url,
        status,
        text: text.chars().take(max).collect(),
        truncated,
    })
}

/// Read a text file from the workspace, optionally a range of lines.
#[tool(core, read_only)]
fn file_read(
    ctx: &ToolContext,
    /// Path relative to the workspace.
    path: String,
    /// First line to return (1-based).
    #[arg(default = 1)]
    start_line: usize,
    /// How many lines to return at most.
    #[arg(default = 2000)]
    max_lines: usize,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.existing_file(&path)?;
    let size = std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0);
    if size > 8 * 1024 * 1024 {
        return Err(ToolError::new(format!(
            "{path:?} is {size} bytes; the limit is 8 MiB: read it with shell tools instead"
        )));
    }
    let bytes =
        std::fs::read(&full).map_err(|e| ToolError::new(format!("cannot read {path:?}: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(format!("{path:?} is not UTF-8 text")))?;
    let total = text.lines().count();
    let start = start_line.max(1);
    let lines: Vec<&str> = text
        .lines()
        .skip(start - 1)
        .take(max_lines.max(1))
        .collect();
    Ok(json!({
        "path": app.workspace.display(&full),
        "start_line": start,
        "lines": lines.len(),
        "total_lines": total,
        "content": lines.join("\n"),
    }))
}

/// Write a text file in the workspace (creating folders as needed).
#[tool(core, destructive, idempotent)]
fn file_write(
    ctx: &ToolContext,
    /// Path relative to the workspace.
    path: String,
    /// The text to write.
    content: String,
    /// Append instead of replacing the file.
    #[arg(default)]
    append: bool,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let full = app.workspace.resolve(&path)?;
    if full.is_dir() {
        return Err(ToolError::new(format!("{path:?} is a directory")));
    }
    if let Ok(meta) = std::fs::symlink_metadata(&full)
        && !meta.is_file()
    {
        return Err(ToolError::new(format!(
            "{path:?} is not a regular file; refused"
        )));
    }
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::new(format!("cannot create folders for {path:?}: {e}")))?;
        // Re-check: a folder created above must still be inside.
        app.workspace.resolve(&path)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&full)
        .map_err(|e| ToolError::new(format!("cannot write {path:?}: {e}")))?;
    file.write_all(content.as_bytes())
        .map_err(|e| ToolError::new(format!("cannot write {path:?}: {e}")))?;
    Ok(
        json!({ "path": app.workspace.display(&full), "bytes_written": content.len(), "appended": append }),
    )
}

/// Run a shell command (`sh -c`) in the workspace, inside an
/// operating-system sandbox: files only in the workspace, no network, no
/// secrets, a time limit and an output cap. The environment holds only
/// PATH, HOME (the workspace), TMPDIR and LANG.
#[tool(core, destructive, open_world)]
async fn shell(
    ctx: &ToolContext,
    /// The command line.
    command: String,
    /// Give up after this many seconds (at most the configured limit).
    timeout_secs: Option<u64>,
) -> Result<ShellOutput, ToolError> {
    let app = app(ctx)?;
    let limit = timeout_secs
        .map_or(app.config.shell_timeout, std::time::Duration::from_secs)
        .min(app.config.shell_timeout);
    crate::shell::run(app, &command, limit).await
}

/// Search persistent memory (full-text and similarity combined); returns
/// the best matches first.
#[tool(core, read_only)]
fn memory_search(
    ctx: &ToolContext,
    /// What to look for.
    query: String,
    /// How many memories to return.
    #[arg(default = 5)]
    limit: usize,
) -> Result<Vec<MemoryHit>, ToolError> {
    let app = app(ctx)?;
    if query.trim().is_empty() {
        return app
            .memory
            .recent(limit.clamp(1, 50))
            .map_err(|e| ToolError::new(e.to_string()));
    }
    app.memory
        .search(&query, limit.clamp(1, 50))
        .map_err(|e| ToolError::new(format!("memory search failed: {e}")))
}

/// Write a fact to persistent memory, to find later with memory_search.
#[tool(core)]
fn memory_write(
    ctx: &ToolContext,
    /// What to remember.
    text: String,
    /// Tags for the memory.
    #[arg(default)]
    tags: Vec<String>,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    if text.trim().is_empty() {
        return Err(ToolError::new("the text is empty; say what to remember"));
    }
    let id = app
        .memory
        .write(&text, &tags)
        .map_err(|e| ToolError::new(format!("memory write failed: {e}")))?;
    Ok(json!({ "id": id, "stored": true }))
}

/// Where a message goes.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Channel {
    /// The assistant's console.
    Stdout,
    /// The outbox file in the data folder.
    File,
    /// An HTTP POST of `{"text": …}` to an allowed URL.
    Webhook,
}

/// Send a message to a channel: the console, the outbox file, or a webhook
/// on the allowlist.
#[tool(core, open_world)]
async fn message(
    ctx: &ToolContext,
    /// The channel.
    channel: Channel,
    /// The message.
    text: String,
    /// The webhook URL (for the webhook channel).
    url: Option<String>,
) -> Result<Value, ToolError> {
    let app = app(ctx)?;
    let text = app.secrets.redact(&text);
    match channel {
        Channel::Stdout => {
            // Under `serve` (stdio), standard output is the protocol.
            if app.config.console_to_stderr {
                eprintln!("[message] {text}");
            } else {
                println!("[message] {text}");
            }
            Ok(json!({"sent": true, "channel": "stdout"}))
        }
        Channel::File => {
            let line = json!({"at": jiff::Timestamp::now().to_string(), "text": text}).to_string();
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&app.outbox)
                .map_err(|e| ToolError::new(format!("cannot open the outbox: {e}")))?;
            writeln!(f, "{line}")
                .map_err(|e| ToolError::new(format!("cannot write the outbox: {e}")))?;
            Ok(json!({"sent": true, "channel": "file", "path": app.outbox.display().to_string()}))
        }
        Channel::Webhook => {
            let url = url.ok_or_else(|| ToolError::new("the webhook channel needs `url`"))?;
            let target = app.allowlist.check(&url)?;
            let response = app
                .http
                .post(target.clone())
                .json(&json!({"text": text}))
                .send()
                .await
                .map_err(|e| {
                    ToolError::new(format!("webhook {}: {}", redact_url(&target), describe(&e)))
                })?;
            let status = response.status();
            if !status.is_success() {
                return Err(ToolError::new(format!("the webhook answered {status}")));
            }
            Ok(json!({"sent": true, "channel": "webhook", "status": status.as_u16()}))
        }
    }
}
