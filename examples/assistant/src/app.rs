//! The assistant's shared state and where it lives on disk.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use optimclaw::{Registry, ToolContext};

use crate::jobs::JobRunner;
use crate::memory::{MemoryStore, NgramEmbedder};
use crate::net::{Allowlist, client};
use crate::secrets::SecretStore;
use crate::workspace::Workspace;

/// Where the assistant keeps things and what it may reach.
#[derive(Clone, Debug)]
pub struct AppConfig {
    /// The base folder (`~/.optimclaw` by default).
    pub home: PathBuf,
    /// The workspace for file tools and `shell` (default `HOME/workspace`).
    pub workspace: Option<PathBuf>,
    /// Extra allowlist entries, besides `HOME/allowlist.txt`.
    pub allow: Vec<String>,
    /// `shell` time limit.
    pub shell_timeout: Duration,
    /// `shell` output cap in bytes.
    pub shell_output_cap: usize,
    /// Let `shell` commands open network sockets (off: the sandbox
    /// refuses every socket but local UNIX ones).
    pub shell_network: bool,
    /// Run `shell` commands without the operating-system sandbox (only in
    /// their own process group). For kernels without Landlock, by the
    /// user's explicit choice.
    pub unsandboxed_shell: bool,
    /// HTTP time limit.
    pub http_timeout: Duration,
    /// HTTP response cap in bytes.
    pub http_body_cap: usize,
    /// Let host names resolve to private, loopback and link-local
    /// addresses (off: only public addresses, or addresses listed literally).
    pub allow_private_networks: bool,
    /// `message` to `stdout` writes to standard error instead (under
    /// `serve`, standard output carries the MCP protocol).
    pub console_to_stderr: bool,
}

impl AppConfig {
    /// Defaults under `home`.
    pub fn new(home: &Path) -> Self {
        AppConfig {
            home: home.to_owned(),
            workspace: None,
            allow: Vec::new(),
            shell_timeout: Duration::from_secs(30),
            shell_output_cap: 64 * 1024,
            shell_network: false,
            unsandboxed_shell: false,
            http_timeout: Duration::from_secs(30),
            http_body_cap: 2 * 1024 * 1024,
            allow_private_networks: false,
            console_to_stderr: false,
        }
    }

    /// `$OPTIMCLAW_HOME`, else `~/.optimclaw`.
    pub fn default_home() -> PathBuf {
        if let Some(home) = std::env::var_os("OPTIMCLAW_HOME") {
            return PathBuf::from(home);
        }
        std::env::home_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join(".optimclaw")
    }

    /// The data folder (SQLite database, outbox).
    pub fn data_dir(&self) -> PathBuf {
        self.home.join("data")
    }
}

/// Everything tools share; in the [`ToolContext`] as `App`.
#[derive(Clone, Debug)]
pub struct App {
    /// The configuration it was opened with.
    pub config: AppConfig,
    /// The workspace.
    pub workspace: Workspace,
    /// Reachable endpoints.
    pub allowlist: Allowlist,
    /// HTTP client honouring the allowlist on redirects.
    pub http: reqwest::Client,
    /// HTTP client that follows no redirect, for requests carrying
    /// secrets (a redirect must not take them to another host).
    pub http_direct: reqwest::Client,
    /// Memory.
    pub memory: MemoryStore,
    /// Jobs and routines.
    pub jobs: JobRunner,
    /// Secrets.
    pub secrets: Arc<SecretStore>,
    /// Skills folder.
    pub skills_dir: PathBuf,
    /// MCP server entries (`mcpServers` shape).
    pub extensions_file: PathBuf,
    /// Where `message` writes the `file` channel.
    pub outbox: PathBuf,
}

impl App {
    /// Opens (and on first run creates) everything under `config.home`.
    pub fn open(config: AppConfig) -> Result<Self, String> {
        let home = &config.home;
        let io = |what: &str, e: std::io::Error| format!("{what} in {}: {e}", home.display());
        std::fs::create_dir_all(config.data_dir())
            .map_err(|e| io("cannot create the data folder", e))?;
        let skills_dir = home.join("skills");
        std::fs::create_dir_all(&skills_dir)
            .map_err(|e| io("cannot create the skills folder", e))?;
        let workspace_dir = config
            .workspace
            .clone()
            .unwrap_or_else(|| home.join("workspace"));
        let workspace =
            Workspace::new(&workspace_dir).map_err(|e| io("cannot open the workspace", e))?;
        let allow_file = home.join("allowlist.txt");
        if !allow_file.exists() {
            let _ = std::fs::write(
                &allow_file,
                "# One URL prefix per line: what http, web_fetch and message webhooks may reach.\n# e.g. https://api.github.com\n",
            );
        }
        let file_entries = std::fs::read_to_string(&allow_file).unwrap_or_default();
        let allowlist = Allowlist::new(
            file_entries
                .lines()
                .map(str::to_owned)
                .chain(config.allow.iter().cloned()),
        )?;
        let http = client(
            &allowlist,
            config.http_timeout,
            config.allow_private_networks,
            true,
        );
        let http_direct = client(
            &allowlist,
            config.http_timeout,
            config.allow_private_networks,
            false,
        );
        let db = rusqlite::Connection::open(config.data_dir().join("assistant.db"))
            .map_err(|e| format!("cannot open the database: {e}"))?;
        db.busy_timeout(Duration::from_secs(5))
            .map_err(|e| e.to_string())?;
        let db = Arc::new(Mutex::new(db));
        let memory = MemoryStore::open(db.clone(), Arc::new(NgramEmbedder::default()))
            .map_err(|e| format!("memory: {e}"))?;
        let jobs = JobRunner::open(db).map_err(|e| format!("jobs: {e}"))?;
        Ok(App {
            secrets: Arc::new(SecretStore::new(&home.join("secrets.json"))),
            extensions_file: home.join("mcp.json"),
            outbox: config.data_dir().join("outbox.jsonl"),
            skills_dir,
            workspace,
            allowlist,
            http,
            http_direct,
            memory,
            jobs,
            config,
        })
    }

    /// A context with this app in it.
    /// Every tool's output passes through the secret store's redaction.
    pub fn context(&self) -> ToolContext {
        let secrets = Arc::clone(&self.secrets);
        ToolContext::new()
            .with(self.clone())
            .with_output_filter(Arc::new(move |text: &str| secrets.filter(text)))
    }

    /// Starts the job workers and the routine scheduler (needs a Tokio
    /// runtime); returns the context tools should be called with.
    pub fn start(&self, registry: &Registry) -> ToolContext {
        let ctx = self.context();
        self.jobs.start(registry.clone(), ctx.clone(), 2);
        self.jobs.start_scheduler(Duration::from_secs(30));
        ctx
    }
}
