//! Serving a registry to MCP clients.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::Value;

use optimclaw::Registry;
use optimclaw::Session;
use optimclaw::ToolContext;
use optimclaw::ToolScope;
use optimclaw::config::{LazyConfig, LoadStrategy};
use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::{CALL_TOOL, CallOptions, TOOL_INFO};

use super::report::{LevelSetting, Reporter};

mod result;

use result::{call_result, unknown_tool};

/// Tool calls that run at once by default, over every connection.
const DEFAULT_MAX_CALLS: usize = 256;

/// What every connection of a server shares.
struct Shared {
    registry: RwLock<Registry>,
    generation: AtomicU64,
    lazy: LazyConfig,
    ctx: ToolContext,
    name: String,
    /// Connected clients, told when the registry changes.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// Told each time the registry changes; watched by HTTP sessions'
    /// `GET` streams, which tell their clients.
    changes: tokio::sync::watch::Sender<()>,
    /// Tool calls running now, over every connection.
    calls: Arc<tokio::sync::Semaphore>,
    max_calls: usize,
    /// `tools/list` grows per connection as `tool_info` loads tools (the
    /// opt-in mode); otherwise one fixed list for everyone.
    per_connection: bool,
    /// The registry may be replaced while serving
    /// ([`McpServer::announce_list_changes`]).
    registry_changes: bool,
    /// Served over stateless HTTP, where no notification can reach a
    /// client: `listChanged` is never announced.
    stateless: AtomicBool,
}

/// One client connection's state.
struct Connection {
    session: RwLock<Session>,
    generation: AtomicU64,
    /// The lowest log level the client is sent (`logging/setLevel`).
    log_level: LevelSetting,
}

/// An MCP server for a registry.
///
/// `tools/list` is one fixed list, the same for every connection and every
/// request, in a deterministic order (MCP 2026-07-28: it must not vary per
/// connection or as a side effect of other requests). Eager: every tool. Lazy:
/// the core tools, `tool_info` and the bridge `call_tool(name, arguments)`;
/// every deferred tool can also be called by its own name through
/// `tools/call`. [`per_connection_lists`](Self::per_connection_lists) opts in
/// to the older behaviour of lists that grow as `tool_info` loads tools.
/// [`set_registry`](Self::set_registry) swaps the registry under running
/// connections (e.g. when an imported MCP server's tools changed) and tells
/// clients with `notifications/tools/list_changed`; a server that will do
/// so says it at `initialize` ([`announce_list_changes`](Self::announce_list_changes)).
///
/// Use it to give MCP hosts (Claude Desktop, IDEs, other agents) the
/// program's tools; over HTTP every request needs a key.
///
/// ```no_run
/// use optimclaw_mcp::{HttpAuth, McpServer};
/// use optimclaw::{Registry, ToolContext};
/// use tokio_util::sync::CancellationToken;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = McpServer::new(Registry::from_linked()?, ToolContext::new());
/// let auth = HttpAuth::from_env().ok_or("set OPTIMCLAW_MCP_TOKEN")??;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8931").await?;
/// server.serve_http(listener, CancellationToken::new(), auth).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    conn: Arc<Connection>,
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

impl McpServer {
    /// A server with the registry's own lazy-loading setting.
    pub fn new(registry: Registry, ctx: ToolContext) -> Self {
        let lazy = registry.lazy_config().clone();
        Self::with_lazy(registry, lazy, ctx)
    }

    /// A server with its own lazy-loading setting.
    pub fn with_lazy(registry: Registry, lazy: LazyConfig, ctx: ToolContext) -> Self {
        let session = Session::with_lazy(registry.clone(), lazy.clone());
        McpServer {
            shared: Arc::new(Shared {
                registry: RwLock::new(registry),
                generation: AtomicU64::new(0),
                lazy,
                ctx,
                name: "optimclaw".to_owned(),
                peers: Mutex::new(Vec::new()),
                changes: tokio::sync::watch::Sender::new(()),
                calls: Arc::new(tokio::sync::Semaphore::new(DEFAULT_MAX_CALLS)),
                max_calls: DEFAULT_MAX_CALLS,
                per_connection: false,
                registry_changes: false,
                stateless: AtomicBool::new(false),
            }),
            conn: Arc::new(Connection {
                session: RwLock::new(session),
                generation: AtomicU64::new(0),
                log_level: LevelSetting::default(),
            }),
        }
    }

    /// Sets the server name clients see (before serving).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.name = name.into();
        }
        self
    }

    /// Opts in to lists that grow per connection: in lazy mode `tools/list`
    /// starts with the core tools and `tool_info`, and each `tool_info`
    /// adds what it found and sends `notifications/tools/list_changed`.
    /// Valid only for clients on protocol versions with sessions (before
    /// 2026-07-28) that follow `list_changed`: MCP 2026-07-28 says
    /// `tools/list` must not vary per connection or as a side effect of
    /// other requests, and many clients ignore the notification. The
    /// default is one fixed list (see [`McpServer`]). A growing list is
    /// [`LoadStrategy::Append`], so this sets that strategy whatever the
    /// lazy setting named. Set before serving.
    #[must_use]
    pub fn per_connection_lists(mut self) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.per_connection = true;
            shared.lazy = shared.lazy.clone().with_strategy(LoadStrategy::Append);
            let registry = read(&shared.registry).clone();
            self.conn = Arc::new(Connection {
                session: RwLock::new(Session::with_lazy(registry, shared.lazy.clone())),
                generation: AtomicU64::new(shared.generation.load(Ordering::SeqCst)),
                log_level: LevelSetting::default(),
            });
        }
        self
    }

    /// Announces `tools.listChanged` at `initialize`: the registry will
    /// be replaced while serving ([`set_registry`](Self::set_registry),
    /// e.g. when imported MCP servers change), and clients should follow
    /// the notification. Without it (and without
    /// [`per_connection_lists`](Self::per_connection_lists)) the list is
    /// fixed and `listChanged` is `false`; over stateless HTTP it is always
    /// `false`, since no notification can reach a client there. Set
    /// before serving.
    #[must_use]
    pub fn announce_list_changes(mut self) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.registry_changes = true;
        }
        self
    }

    /// Whether `initialize` announces `tools.listChanged` (see
    /// [`announce_list_changes`](Self::announce_list_changes)).
    pub fn lists_can_change(&self) -> bool {
        (self.shared.per_connection || self.shared.registry_changes)
            && !self.shared.stateless.load(Ordering::SeqCst)
    }

    /// Tool calls that may run at once over every connection (default
    /// 256); a call over the limit gets an error result saying so at once,
    /// so no queue of waiting calls grows. Set before serving.
    #[must_use]
    pub fn max_in_flight_calls(mut self, max: usize) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.max_calls = max.max(1);
            shared.calls = Arc::new(tokio::sync::Semaphore::new(shared.max_calls));
        }
        self
    }

    /// The same server for a new client connection: fresh loaded state.
    #[must_use]
    pub fn for_new_connection(&self) -> Self {
        let registry = read(&self.shared.registry).clone();
        McpServer {
            shared: Arc::clone(&self.shared),
            conn: Arc::new(Connection {
                session: RwLock::new(Session::with_lazy(registry, self.shared.lazy.clone())),
                generation: AtomicU64::new(self.shared.generation.load(Ordering::SeqCst)),
                log_level: LevelSetting::default(),
            }),
        }
    }

    /// Replaces the registry for every connection, keeping what each had
    /// loaded (where the tool still exists), and sends
    /// `notifications/tools/list_changed` to connected clients.
    pub async fn set_registry(&self, registry: Registry) {
        *self
            .shared
            .registry
            .write()
            .unwrap_or_else(PoisonError::into_inner) = registry;
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        self.shared.changes.send_replace(());
        let peers: Vec<Peer<RoleServer>> = {
            let mut peers = self
                .shared
                .peers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            peers.retain(|p| !p.is_transport_closed());
            peers.clone()
        };
        for peer in peers {
            let _ = peer.notify_tool_list_changed().await;
        }
    }

    /// Marked changed each time [`set_registry`](Self::set_registry) runs.
    pub(super) fn registry_changes(&self) -> tokio::sync::watch::Receiver<()> {
        self.shared.changes.subscribe()
    }

    /// Whether both serve one connection (one loaded state).
    #[cfg(test)]
    pub(super) fn same_connection(&self, other: &McpServer) -> bool {
        Arc::ptr_eq(&self.conn, &other.conn)
    }

    /// Marks the server as served over stateless HTTP (no `listChanged`).
    pub(super) fn mark_stateless(&self) {
        self.shared.stateless.store(true, Ordering::SeqCst);
    }

    /// The connection's session (brought up to date with the registry).
    pub fn session(&self) -> Session {
        let current = self.shared.generation.load(Ordering::SeqCst);
        if self.conn.generation.load(Ordering::SeqCst) != current {
            let registry = read(&self.shared.registry).clone();
            let mut session = self
                .conn
                .session
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let fresh = Session::with_lazy(registry, self.shared.lazy.clone());
            fresh.load(session.loaded());
            *session = fresh;
            self.conn.generation.store(current, Ordering::SeqCst);
        }
        read(&self.conn.session).clone()
    }

    /// Serves one client on standard input and output until it leaves.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| std::io::Error::other(format!("MCP initialisation failed: {e}")))?;
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| std::io::Error::other(format!("the MCP server stopped: {e}")))
    }

    /// The scope of the request's access key (every tool over stdio).
    fn scope_of(context: &RequestContext<RoleServer>) -> ToolScope {
        context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ToolScope>())
            .cloned()
            .unwrap_or_default()
    }

    /// The server's instructions (the lazy note) as a caller with `scope`
    /// sees them.
    fn instructions(&self, scope: ToolScope) -> Option<String> {
        self.session().scoped(scope).prompt().note
    }

    /// The tools this connection lists now: the fixed list, or under
    /// [`per_connection_lists`](Self::per_connection_lists) what this
    /// connection has loaded.
    pub fn list(&self) -> Result<Vec<Tool>, McpError> {
        self.list_scoped(ToolScope::all())
    }

    /// [`list`](Self::list) for a caller with `scope`: only its tools.
    fn list_scoped(&self, scope: ToolScope) -> Result<Vec<Tool>, McpError> {
        let session = self.session().scoped(scope);
        let rendered = if self.shared.per_connection {
            session.render(Dialect::Mcp, RenderOptions::default())
        } else {
            let fixed = session
                .lazy_config()
                .clone()
                .with_strategy(LoadStrategy::Bridge);
            session
                .registry()
                .scoped(session.scope())
                .prompt::<&str>(&fixed, &[])
                .render(Dialect::Mcp, RenderOptions::default())
        };
        rendered
            .tools
            .into_iter()
            .map(|spec| {
                serde_json::from_value::<Tool>(spec)
                    .map_err(|e| McpError::internal_error(e.to_string(), None))
            })
            .collect()
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // MCP logging (see the report module)
    fn get_info(&self) -> ServerConfig {
        // Tools may log (`ToolContext::log`): clients may set the level.
        let capabilities = if self.lists_can_change() {
            ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .build()
        };
        let mut info = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            self.shared.name.clone(),
            env!("CARGO_PKG_VERSION"),
        ));
        if let Some(note) = self.session().prompt().note {
            info = info.with_instructions(note);
        }
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        result.instructions = self.instructions(Self::scope_of(&context));
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        let mut result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        result.instructions = self.instructions(Self::scope_of(&context));
        Ok(result)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut peers = self
            .shared
            .peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // Closed connections leave here, or every session ever opened
        // would stay reachable (and in memory) through its peer.
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    #[allow(deprecated)] // MCP logging (see the report module)
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.conn.log_level.set(&request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut result =
            ListToolsResult::with_all_items(self.list_scoped(Self::scope_of(&context))?);
        if !self.shared.per_connection {
            // The same list for every caller until the registry changes
            // (which clients hear through `list_changed`).
            result.ttl_ms = Some(60_000);
            result.cache_scope = Some(rmcp::model::CacheScope::Public);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Ok(_running) = Arc::clone(&self.shared.calls).try_acquire_owned() else {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "the server is running its limit of {} tool calls at once; retry `{name}` shortly",
                self.shared.max_calls
            ))])
            .into());
        };
        let session = self.session().scoped(Self::scope_of(&context));
        let registry = session.registry();
        let target = if name == CALL_TOOL {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        } else {
            name.clone()
        };
        let Some(tool) = registry
            .get(&target)
            .filter(|t| session.scope().allows(t.name()))
            .or_else(|| (name == CALL_TOOL).then(|| registry.bridge_tool()))
        else {
            let near = registry.scoped(session.scope()).nearest_names(&name, 3);
            return Err(unknown_tool(&name, &near));
        };
        let has_object_output = tool
            .output_schema()
            .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
        let before = session.loaded().len();
        let args = request
            .arguments
            .map_or(Value::Object(serde_json::Map::new()), Value::Object);
        let reporter = Reporter {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            level: self.conn.log_level.clone(),
            logger: target.clone(),
        };
        let ctx = self
            .shared
            .ctx
            .clone()
            .with_cancellation(context.ct.clone())
            .with_call_id(context.id.to_string())
            .with_reporter(Arc::new(reporter));
        let result = session
            .call_output(&name, args, &ctx, CallOptions::default())
            .await;
        if self.shared.per_connection
            && session.lazy_config().enabled
            && session.loaded().len() > before
        {
            // The client's next tools/list includes what was just loaded.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        let out = call_result(result, has_object_output, name == TOOL_INFO)?;
        Ok(out.into())
    }
}
