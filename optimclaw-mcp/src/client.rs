//! Importing MCP servers' tools as deferred tools named `server__tool`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ContentBlock, Tool};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tracing::Instrument;

use optimclaw::manifest::cap_description;
use optimclaw::manifest::{asks_in_entry, examples_in_entry};
use optimclaw::schema::check_instance;
use optimclaw::{Content, ToolContext, ToolError, ToolErrorKind, ToolOutput};
use optimclaw::{DynamicTool, is_valid_tool_name};

use super::servers::ServerConfig;

/// Limits of an imported server. The defaults suit most servers; lower
/// `call_timeout` for servers that should answer at once, raise it for
/// long-running ones.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct McpClientOptions {
    /// Time limit of one call (a hung server fails the call, not the program).
    pub call_timeout: Duration,
    /// Time limit for starting the server and listing its tools.
    pub connect_timeout: Duration,
    /// Descriptions longer than this are cut: a server is not trusted to
    /// fill the prompt.
    pub max_description_chars: usize,
}

impl McpClientOptions {
    /// Sets [`call_timeout`](Self::call_timeout).
    #[must_use]
    pub fn with_call_timeout(mut self, call_timeout: Duration) -> Self {
        self.call_timeout = call_timeout;
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    #[must_use]
    pub fn with_connect_timeout(mut self, connect_timeout: Duration) -> Self {
        self.connect_timeout = connect_timeout;
        self
    }

    /// Sets [`max_description_chars`](Self::max_description_chars).
    #[must_use]
    pub fn with_max_description_chars(mut self, max_description_chars: usize) -> Self {
        self.max_description_chars = max_description_chars;
        self
    }
}

impl Default for McpClientOptions {
    fn default() -> Self {
        McpClientOptions {
            call_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            max_description_chars: 1_024,
        }
    }
}

/// Counts `notifications/tools/list_changed` and wakes whoever waits.
#[derive(Clone, Default)]
struct Watcher {
    changes: Arc<AtomicU64>,
    notify: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changes.fetch_add(1, Ordering::SeqCst);
        self.notify.notify_waiters();
    }
}

type Connection = RunningService<RoleClient, Watcher>;

/// A connection to one MCP server, restarted on the next call after it
/// exits or hangs. Use it to give a model another server's tools: they join
/// a registry as deferred tools named `server__tool`, found through
/// `tool_info` like the program's own.
///
/// ```no_run
/// use optimclaw_mcp::{McpClient, McpClientOptions, ServerConfig};
/// use optimclaw::Registry;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let config = ServerConfig {
///     command: Some("uvx".into()),
///     args: vec!["mcp-server-time".into()],
///     ..ServerConfig::default()
/// };
/// let time = McpClient::connect("time", config, McpClientOptions::default()).await?;
/// let (tools, skipped) = time.dynamic_tools();
/// for reason in skipped {
///     eprintln!("not imported: {reason}");
/// }
/// let registry = Registry::builder().tools(tools).build()?;
/// # Ok(()) }
/// ```
pub struct McpClient {
    name: String,
    config: ServerConfig,
    options: McpClientOptions,
    watcher: Watcher,
    conn: Mutex<Option<Connection>>,
    tools: std::sync::Mutex<Vec<Tool>>,
    seen_changes: AtomicU64,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

fn client_error(server: &str, message: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!("MCP server `{server}`: {message}"))
}

impl McpClient {
    /// Starts (or reaches) a server and lists its tools.
    pub async fn connect(
        name: &str,
        config: ServerConfig,
        options: McpClientOptions,
    ) -> Result<Arc<Self>, ToolError> {
        let valid = (1..=32).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && !name.contains("__");
        if !valid {
            return Err(ToolError::new(format!(
                "MCP server name {name:?} must use letters, digits, `_` and `-` (1 to 32 characters, no `__`)"
            )));
        }
        let client = Arc::new(McpClient {
            name: name.to_owned(),
            config,
            options,
            watcher: Watcher::default(),
            conn: Mutex::new(None),
            tools: std::sync::Mutex::new(Vec::new()),
            seen_changes: AtomicU64::new(0),
        });
        client.refresh().await?;
        Ok(client)
    }

    /// The server's name (the prefix of its tools).
    pub fn name(&self) -> &str {
        &self.name
    }

    async fn start(&self) -> Result<Connection, ToolError> {
        let start = async {
            if let Some(command) = &self.config.command {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(&self.config.args)
                    .envs(&self.config.env)
                    .kill_on_drop(true);
                let transport = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map(|(t, _)| t)
                    .map_err(|e| {
                        client_error(&self.name, format!("cannot start {command:?}: {e}"))
                    })?;
                self.watcher
                    .clone()
                    .serve(transport)
                    .await
                    .map_err(|e| client_error(&self.name, format!("initialisation failed: {e}")))
            } else if let Some(url) = &self.config.url {
                // reqwest is built without a TLS provider of its own and
                // panics without one: ring is ours, unless the program
                // installed another first.
                let _ = rustls::crypto::ring::default_provider().install_default();
                let (bearer, headers) = self
                    .config
                    .http_headers()
                    .map_err(|e| client_error(&self.name, e))?;
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(headers);
                if let Some(token) = bearer {
                    config = config.auth_header(token);
                }
                let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
                self.watcher.clone().serve(transport).await.map_err(|e| {
                        let text = e.to_string();
                        if text.contains("Auth required") || text.contains("401") {
                            client_error(
                                &self.name,
                                "the server refused the access key (HTTP 401): give its token in the entry's headers, e.g. \"headers\": {\"Authorization\": \"Bearer ${TOKEN_VARIABLE}\"}",
                            )
                        } else {
                            client_error(&self.name, format!("initialisation over HTTP failed: {text}"))
                        }
                    })
            } else {
                Err(client_error(
                    &self.name,
                    "the config has neither `command` nor `url`",
                ))
            }
        };
        tokio::time::timeout(self.options.connect_timeout, start)
            .await
            .map_err(|_| {
                client_error(
                    &self.name,
                    format!(
                        "did not start within {} s",
                        self.options.connect_timeout.as_secs()
                    ),
                )
            })?
    }

    /// Lists the server's tools again (after `list_changed`, or a restart).
    pub async fn refresh(&self) -> Result<(), ToolError> {
        let mut guard = self.conn.lock().await;
        if guard.as_ref().is_none_or(|c| c.is_closed()) {
            *guard = Some(self.start().await?);
        }
        let conn = guard.as_ref().expect("connected above");
        let listed =
            tokio::time::timeout(self.options.connect_timeout, conn.peer().list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(e)) => {
                *guard = None;
                return Err(client_error(&self.name, format!("tools/list failed: {e}")));
            }
            Err(_) => {
                *guard = None;
                return Err(client_error(&self.name, "tools/list timed out"));
            }
        };
        *self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = tools;
        self.seen_changes.store(
            self.watcher.changes.load(Ordering::SeqCst),
            Ordering::SeqCst,
        );
        Ok(())
    }

    /// Waits until the server announces a changed tool list, refreshes the
    /// list and returns the new tools (see [`dynamic_tools`](Self::dynamic_tools)).
    /// Call it in a loop to keep an imported tool set current.
    pub async fn next_change(
        self: &Arc<Self>,
    ) -> Result<(Vec<DynamicTool>, Vec<String>), ToolError> {
        while !self.tools_changed() {
            let notified = self.watcher.notify.notified();
            if self.tools_changed() {
                break;
            }
            notified.await;
        }
        self.refresh().await?;
        Ok(self.dynamic_tools())
    }

    /// Whether the server announced a changed tool list since the last refresh.
    pub fn tools_changed(&self) -> bool {
        self.watcher.changes.load(Ordering::SeqCst) != self.seen_changes.load(Ordering::SeqCst)
    }

    /// The server's tools as deferred dynamic tools named `server__tool`.
    /// Tools whose combined name breaks the name rule are left out and
    /// returned in the second list with the reason.
    pub fn dynamic_tools(self: &Arc<Self>) -> (Vec<DynamicTool>, Vec<String>) {
        let tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for tool in tools {
            let full = format!("{}__{}", self.name, tool.name);
            if !is_valid_tool_name(&full) {
                skipped.push(format!("{full:?}: not a valid tool name"));
                continue;
            }
            let schema = Value::Object((*tool.input_schema).clone());
            let schema_copy = schema.clone();
            let description = tool.description.as_deref().unwrap_or_default();
            let remote = tool.name.to_string();
            let client = Arc::clone(self);
            let mut dynamic = DynamicTool::new(
                &full,
                cap_description(description, self.options.max_description_chars),
                schema,
            )
            .origin(format!("MCP server `{}`", self.name))
            .handler(move |ctx: ToolContext, args: Value| {
                let client = Arc::clone(&client);
                let remote = remote.clone();
                async move {
                    // Images, audio and resources the server returned go
                    // on to callers that take them.
                    match client.call_output(&remote, args).await? {
                        (_, Some(rich)) => Ok(rich.deliver(&ctx)),
                        (value, None) => Ok(value),
                    }
                }
            });
            if let Some(out_schema) = tool.output_schema {
                dynamic = dynamic.output_schema(Value::Object((*out_schema).clone()));
            }
            // Examples a server sends in `_meta` are kept when they are valid
            // calls of the tool's schema (an invalid one would only mislead).
            let meta = tool
                .meta
                .as_ref()
                .and_then(|m| serde_json::to_value(m).ok());
            if let Some(meta) = meta {
                let entry = serde_json::Map::from_iter([("_meta".to_owned(), meta)]);
                let examples = examples_in_entry(&entry)
                    .into_iter()
                    .filter(|e| check_instance(e, &schema_copy).is_ok());
                dynamic = dynamic.examples(examples).asks(asks_in_entry(&entry));
            }
            out.push(dynamic);
        }
        (out, skipped)
    }

    /// Calls a tool of the server by its own name. A server that exited or
    /// hung fails the call within the time limit and is restarted on the
    /// next call.
    pub async fn call(&self, tool: &str, args: Value) -> Result<Value, ToolError> {
        self.call_output(tool, args).await.map(|(value, _)| value)
    }

    /// [`call`](Self::call), with the result's blocks of content when it
    /// has any that are not text (images, audio, resources): what an
    /// imported tool hands on as its [`ToolOutput`].
    pub async fn call_output(
        &self,
        tool: &str,
        args: Value,
    ) -> Result<(Value, Option<ToolOutput>), ToolError> {
        // The MCP semantic conventions' client span: `tools/call {tool}`.
        let span = tracing::info_span!(
            target: "optimclaw::mcp",
            "tools/call",
            otel.name = format!("tools/call {tool}"),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            mcp.method.name = "tools/call",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = tool,
            mcp.server.name = self.name.as_str(),
            error.type = tracing::field::Empty,
        );
        let result = self
            .call_uninstrumented(tool, args)
            .instrument(span.clone())
            .await;
        if let Err(err) = &result {
            optimclaw::telemetry::record_error(&span, err.kind().as_str());
        }
        result
    }

    async fn call_uninstrumented(
        &self,
        tool: &str,
        args: Value,
    ) -> Result<(Value, Option<ToolOutput>), ToolError> {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(ToolError::with_kind(
                    ToolErrorKind::InvalidArguments,
                    format!("arguments must be a JSON object, not {other}"),
                ));
            }
        };
        let peer = {
            let mut guard = self.conn.lock().await;
            if guard.as_ref().is_none_or(|c| c.is_closed()) {
                *guard = Some(self.start().await?);
            }
            guard.as_ref().expect("connected above").peer().clone()
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = arguments;
        let result = match tokio::time::timeout(self.options.call_timeout, peer.call_tool(params))
            .await
        {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => {
                self.drop_connection().await;
                return Err(client_error(
                    &self.name,
                    format!(
                        "the call of `{tool}` failed: {e}; the server will be restarted on the next call"
                    ),
                ));
            }
            Err(_) => {
                self.drop_connection().await;
                return Err(ToolError::with_kind(
                    ToolErrorKind::Timeout,
                    format!(
                        "MCP server `{}` did not answer `{tool}` within {} s; it will be restarted on the next call",
                        self.name,
                        self.options.call_timeout.as_secs()
                    ),
                ));
            }
        };
        let text: Vec<String> = result
            .content
            .iter()
            .filter_map(|c| match c {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect();
        if result.is_error == Some(true) {
            return Err(ToolError::new(format!(
                "`{}__{tool}` reported: {}",
                self.name,
                text.join("\n")
            )));
        }
        let rich = rich_output(&result.content, result.structured_content.as_ref());
        let value = match result.structured_content {
            Some(structured) => structured,
            None if text.len() == 1 => serde_json::from_str::<Value>(&text[0])
                .ok()
                .filter(|v| v.is_object() || v.is_array())
                .unwrap_or_else(|| json!(text[0])),
            None => json!({ "content": serde_json::to_value(&result.content).unwrap_or_default() }),
        };
        Ok((value, rich))
    }

    async fn drop_connection(&self) {
        if let Some(conn) = self.conn.lock().await.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), conn.cancel()).await;
        }
    }
}

/// The result as blocks of content, when any block is not text (a text
/// result stays the JSON value it always was).
fn rich_output(content: &[ContentBlock], structured: Option<&Value>) -> Option<ToolOutput> {
    if content.iter().all(|c| matches!(c, ContentBlock::Text(_))) {
        return None;
    }
    let mut output = ToolOutput::new();
    output.content = content
        .iter()
        .filter_map(|c| {
            serde_json::to_value(c)
                .ok()
                .and_then(|v| serde_json::from_value::<Content>(v).ok())
        })
        .collect();
    output.structured = structured.cloned();
    Some(output)
}
