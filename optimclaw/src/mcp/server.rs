//! Serving a registry to MCP clients.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::prompt::TOOL_INFO;
use crate::provider::{Dialect, RenderOptions};
use crate::{LazyConfig, Registry, Session, ToolContext, ToolErrorKind};

/// An MCP server for a registry. Each client connection gets its own
/// [`Session`]: in lazy mode `tools/list` starts with the core tools and
/// `tool_info`; when `tool_info` loads tools the server sends
/// `notifications/tools/list_changed` and the next `tools/list` has them.
#[derive(Clone)]
pub struct McpServer {
    session: Session,
    ctx: ToolContext,
    name: String,
}

impl McpServer {
    /// A server with the registry's own lazy-loading setting.
    pub fn new(registry: Registry, ctx: ToolContext) -> Self {
        let lazy = registry.lazy_config().clone();
        Self::with_lazy(registry, lazy, ctx)
    }

    /// A server with its own lazy-loading setting.
    pub fn with_lazy(registry: Registry, lazy: LazyConfig, ctx: ToolContext) -> Self {
        McpServer {
            session: Session::with_lazy(registry, lazy),
            ctx,
            name: "optimclaw".to_owned(),
        }
    }

    /// Sets the server name clients see.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The same server for a new client connection: fresh loaded state.
    #[must_use]
    pub fn for_new_connection(&self) -> Self {
        McpServer {
            session: Session::with_lazy(
                self.session.registry().clone(),
                self.session.lazy_config().clone(),
            ),
            ctx: self.ctx.clone(),
            name: self.name.clone(),
        }
    }

    /// The connection's session.
    pub fn session(&self) -> &Session {
        &self.session
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

    /// The tools this connection lists now.
    pub fn list(&self) -> Result<Vec<Tool>, McpError> {
        let rendered = self
            .session
            .render(Dialect::Mcp, RenderOptions::default())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
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
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            self.name.clone(),
            env!("CARGO_PKG_VERSION"),
        ));
        if let Some(note) = self.session.prompt().note {
            info = info.with_instructions(note);
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.list()?))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(tool) = self.session.registry().get(&name) else {
            let near = self.session.registry().nearest_names(&name, 3);
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", near.join(", "))
            };
            return Err(McpError::invalid_params(
                format!("unknown tool {name:?}{hint}"),
                None,
            ));
        };
        let has_object_output = tool
            .output_schema()
            .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
        let before = self.session.loaded().len();
        let args = request
            .arguments
            .map_or(Value::Object(serde_json::Map::new()), Value::Object);
        let ctx = self.ctx.clone().with_cancellation(context.ct.clone());
        let result = self.session.call(&name, args, &ctx).await;
        if self.session.lazy_config().enabled && self.session.loaded().len() > before {
            // The client's next tools/list includes what was just loaded.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        let out = match result {
            Ok(value) if has_object_output || (name == TOOL_INFO && value.is_object()) => {
                CallToolResult::structured(value)
            }
            Ok(Value::String(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Ok(value) => CallToolResult::success(vec![ContentBlock::text(value.to_string())]),
            Err(err) if err.kind() == ToolErrorKind::UnknownTool => {
                return Err(McpError::invalid_params(err.to_string(), None));
            }
            Err(err) => {
                let mut result = CallToolResult::error(vec![ContentBlock::text(err.to_string())]);
                if let Some(data) = err.data() {
                    result.content.push(ContentBlock::text(data.to_string()));
                }
                result
            }
        };
        Ok(out.into())
    }
}
