//! The assistant: the OptimClaw tool catalog behind a command line.
//!
//! `cargo run --release --example assistant` prints what eager and lazy
//! loading send to a model, measured with real tokenizers. See `--help`.

use std::collections::HashSet;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use assistant::chat::{self, ChatSettings};
use assistant::{App, AppConfig};
use clap::{Parser, Subcommand};
use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::mcp::{McpClient, McpClientOptions, McpServer, load_servers_file};
use optimclaw::provider::{Dialect, RenderOptions};
use optimclaw::tokens::{Encoding, RequestTokens};
use optimclaw::{DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolOrigin};
use serde_json::{Value, json};

/// `println!` that ends the program quietly when stdout is closed
/// (`assistant report | head`).
macro_rules! out {
    () => {
        out!("")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "assistant",
    about = "The OptimClaw tool catalog, served lazily",
    version
)]
struct Cli {
    /// Base folder for data, skills, secrets and config [default: $OPTIMCLAW_HOME or ~/.optimclaw].
    #[arg(long, global = true)]
    home: Option<PathBuf>,
    /// Workspace folder for file tools and shell [default: HOME/workspace].
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Allow http/web_fetch/webhooks to reach this URL prefix (repeatable; adds to HOME/allowlist.txt).
    #[arg(long = "allow", global = true)]
    allow: Vec<String>,
    /// Let allowlisted host names resolve to private or local addresses.
    #[arg(long = "allow-private", global = true)]
    allow_private: bool,
    /// Add the tools of an MCP tools/list JSON file as deferred tools (repeatable).
    #[arg(long = "manifest", global = true)]
    manifests: Vec<PathBuf>,
    /// Import the tools of the MCP servers in this `mcpServers` JSON file as deferred `server__tool`s.
    #[arg(long = "mcp-config", global = true)]
    mcp_config: Option<PathBuf>,
    /// Load WebAssembly tools from this folder [default: HOME/wasm] (needs `--features wasm`).
    #[arg(long = "wasm-dir", global = true)]
    wasm_dir: Option<PathBuf>,
    /// Let WASM tools whose manifest asks for this environment variable see it (repeatable).
    #[arg(long = "wasm-grant-env", global = true)]
    wasm_grant_env: Vec<String>,
    /// Let WASM tools whose manifest asks for this folder (or one below it) see it (repeatable).
    #[arg(long = "wasm-grant-dir", global = true)]
    wasm_grant_dir: Vec<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// What eager and lazy loading send, in tokens (the default command).
    Report {
        /// The dialect to count [openai, openai-strict, openai-responses, anthropic, gemini, mcp, text].
        #[arg(long, default_value = "openai")]
        provider: String,
        /// Note budget in characters before names are grouped.
        #[arg(long)]
        note_budget: Option<usize>,
    },
    /// Print exactly what a first request would send.
    Prompt {
        /// Every tool in full.
        #[arg(long, conflicts_with = "lazy")]
        eager: bool,
        /// Core tools, tool_info and the note.
        #[arg(long)]
        lazy: bool,
        /// The dialect.
        #[arg(long, default_value = "openai")]
        provider: String,
        /// Use the provider's own deferral (anthropic, openai-responses).
        #[arg(long)]
        native_deferral: bool,
    },
    /// Ask tool_info, as a model would.
    ToolInfo {
        /// A tool name, names separated by commas, or keywords.
        query: String,
        /// How many tools at most.
        #[arg(long, default_value_t = 5)]
        max_results: usize,
    },
    /// Call a tool with JSON arguments.
    Call {
        /// The tool name.
        name: String,
        /// The arguments, as a JSON object.
        #[arg(default_value = "{}")]
        json: String,
    },
    /// Replay the document's example flow through a real session.
    Demo,
    /// Serve the catalog over MCP on standard input/output, or streamable HTTP.
    Serve {
        /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8931) instead of stdio.
        #[arg(long)]
        http: Option<String>,
        /// Lazy loading on for MCP clients (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long, conflicts_with = "eager")]
        lazy: bool,
        /// Every tool listed (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long)]
        eager: bool,
    },
    /// Talk to a model with the catalog: OpenAI-compatible chat completions
    /// (OpenAI, vLLM, llama.cpp, Ollama…) or Anthropic messages.
    Chat {
        /// Answer this one message and exit.
        #[arg(long)]
        once: Option<String>,
        /// Wire format: openai (chat completions) or anthropic (messages).
        #[arg(long, default_value = "openai")]
        format: String,
        /// Base URL, e.g. http://127.0.0.1:11434/v1 [default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, else the provider's].
        #[arg(long)]
        base_url: Option<String>,
        /// Model [default: OPTIMCLAW_MODEL, else gpt-4.1-mini / claude-sonnet-4-5].
        #[arg(long)]
        model: Option<String>,
        /// Model requests per message at most.
        #[arg(long, default_value_t = 12)]
        max_steps: usize,
        /// Anthropic: the provider's own tool search instead of tool_info.
        #[arg(long)]
        native_deferral: bool,
        /// Chat completions: tools in OpenAI's strict mode.
        #[arg(long)]
        strict: bool,
        /// Lazy loading on (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long, conflicts_with = "eager")]
        lazy: bool,
        /// Every tool in full (default: OPTIMCLAW_LAZY_TOOLS).
        #[arg(long)]
        eager: bool,
    },
    /// Search the tools of the given manifests (or the catalog without one).
    Search {
        /// The query (omit with --batch).
        query: Option<String>,
        /// How many tools at most.
        #[arg(long, default_value_t = 10)]
        max_results: usize,
        /// Read `{"id", "query"}` lines on stdin; write `{"id", "results"}` lines.
        #[arg(long)]
        batch: bool,
    },
}

fn manifest_tools(paths: &[PathBuf]) -> Result<Vec<DynamicTool>, String> {
    let mut tools = Vec::new();
    for path in paths {
        tools.extend(load_manifest(path, &ManifestOptions::default()).map_err(|e| e.to_string())?);
    }
    Ok(tools)
}

/// The WebAssembly tools of `dir`, sandboxed but for what `--wasm-grant-*`
/// grants; bad files are reported on stderr and skipped.
#[cfg(feature = "wasm")]
fn wasm_tools(
    dir: &std::path::Path,
    grant_env: &[String],
    grant_dirs: &[PathBuf],
) -> Result<Vec<DynamicTool>, String> {
    use optimclaw::wasm::{WasmGrants, WasmLimits, WasmRuntime};
    let grants = WasmGrants {
        env: grant_env.to_vec(),
        dirs: grant_dirs.to_vec(),
    };
    let runtime = WasmRuntime::new(WasmLimits::default(), grants)?;
    let load = runtime.load_dir(dir);
    for error in &load.errors {
        let hint = if error.message.contains("not granted") {
            "; grant it with --wasm-grant-env NAME or --wasm-grant-dir DIR"
        } else {
            ""
        };
        eprintln!("warning: WASM tool skipped: {error}{hint}");
    }
    Ok(load.tools)
}

#[cfg(not(feature = "wasm"))]
fn wasm_tools(
    dir: &std::path::Path,
    _grant_env: &[String],
    _grant_dirs: &[PathBuf],
) -> Result<Vec<DynamicTool>, String> {
    let manifests = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    if manifests > 0 {
        eprintln!(
            "warning: {manifests} WASM tool manifest(s) in {} ignored: this build has no WebAssembly runtime (build with `--features wasm`)",
            dir.display()
        );
    }
    Ok(Vec::new())
}

fn dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!("unknown provider {name:?}; use one of {}", all.join(", "))
    })
}

fn measure(
    session: &Session,
    dialect: Dialect,
    encoding: Encoding,
) -> Result<RequestTokens, String> {
    let rendered = session
        .render(dialect, RenderOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(RequestTokens::measure(
        &rendered.tools,
        rendered.system.as_deref(),
        encoding,
    ))
}

fn report(registry: &Registry, provider: &str, budget: Option<usize>) -> Result<(), String> {
    let dialect = dialect(provider)?;
    let mut lazy = LazyConfig::lazy();
    if let Some(b) = budget {
        lazy = lazy.with_note_budget(b);
    }
    let eager = Session::with_lazy(
        registry.clone(),
        LazyConfig {
            enabled: false,
            ..lazy.clone()
        },
    );
    let lazy_session = Session::with_lazy(registry.clone(), lazy.clone());
    let core = registry.tools().iter().filter(|t| t.is_core()).count();
    let deferred = registry.len() - core;
    let wasm = registry
        .tools()
        .iter()
        .filter(|t| matches!(t.origin(), ToolOrigin::Dynamic(from) if from.starts_with("wasm ")))
        .count();
    out!(
        "optimclaw assistant: what one request sends ({} dialect)",
        dialect.name()
    );
    let wasm_note = if wasm > 0 {
        format!(", {wasm} of them WebAssembly")
    } else {
        String::new()
    };
    out!(
        "catalog: {} tools ({core} core incl. tool_info, {deferred} deferred{wasm_note})\n",
        registry.len()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "",
        "tools",
        "o200k_base",
        "cl100k_base"
    );
    let mut rows = Vec::new();
    for encoding in Encoding::ALL {
        rows.push((
            measure(&eager, dialect, encoding)?,
            measure(&lazy_session, dialect, encoding)?,
        ));
    }
    let (e0, l0) = &rows[0];
    let (e1, l1) = &rows[1];
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "eager (every tool)",
        e0.tool_count,
        e0.total(),
        e1.total()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "lazy (core + tool_info)",
        l0.tool_count,
        l0.total(),
        l1.total()
    );
    out!(
        "{:<28}{:>8}{:>14}{:>14}",
        "  of which the note",
        "",
        l0.note,
        l1.note
    );
    let pct = |e: &RequestTokens, l: &RequestTokens| {
        100.0 * (1.0 - l.total() as f64 / e.total().max(1) as f64)
    };
    out!(
        "{:<28}{:>8}{:>13.1}%{:>13.1}%",
        "reduction",
        "",
        pct(e0, l0),
        pct(e1, l1)
    );
    if deferred > 0 {
        out!(
            "\nlisting a deferred tool in the note costs {:.1} tokens (o200k_base) instead of {:.0} for its schema",
            l0.note as f64 / deferred as f64,
            (e0.total() as f64 - (l0.total() - l0.note) as f64) / deferred as f64
        );
    }
    out!("the OptimClaw lazy-tools document claims about 13,000 -> 4,000 tokens (70 %)");
    Ok(())
}

/// `--eager` / `--lazy` (clap makes them exclusive), else the registry's
/// own setting (OPTIMCLAW_LAZY_TOOLS).
fn chosen_mode(eager: bool, lazy: bool, registry: &Registry) -> LazyConfig {
    if eager {
        LazyConfig::eager()
    } else if lazy {
        LazyConfig::lazy()
    } else {
        registry.lazy_config().clone()
    }
}

fn print_json(value: &Value) {
    use std::io::Write;
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    // A closed pipe (`| head`) ends the output quietly.
    if writeln!(std::io::stdout(), "{text}").is_err() {
        std::process::exit(0);
    }
}

async fn demo(registry: &Registry, ctx: &ToolContext) -> Result<(), String> {
    let session = Session::with_lazy(registry.clone(), LazyConfig::lazy());
    let show = |step: &str, session: &Session| -> Result<(), String> {
        let prompt = session.prompt();
        let tokens = measure(session, Dialect::OpenAi, Encoding::O200kBase)?;
        out!(
            "== {step}: {} tools, {} tokens (o200k_base, openai dialect)",
            prompt.tools.len(),
            tokens.total()
        );
        out!("   tools: {}", prompt.tool_names().join(", "));
        if let Some(note) = &prompt.note {
            let short: String = note.chars().take(160).collect();
            out!("   note:  {short}…");
        }
        Ok(())
    };
    show("request 1", &session)?;
    out!("\n[scripted model] -> tool_info(query=\"job_create\")");
    let answer = session
        .call("tool_info", json!({"query": "job_create"}), ctx)
        .await
        .map_err(|e| e.to_string())?;
    print_json(&answer);
    out!();
    show("request 2", &session)?;
    out!("\n[scripted model] -> job_create(prompt=\"Summarize today's news\", priority=3)");
    let job = session
        .call(
            "job_create",
            json!({"prompt": "Summarize today's news", "priority": 3}),
            ctx,
        )
        .await
        .map_err(|e| e.to_string())?;
    print_json(&job);
    out!(
        "\n(the model's side is a fixed script; the session, tool_info and job_create ran for real)"
    );
    Ok(())
}

fn search(registry: &Registry, query: Option<String>, k: usize, batch: bool) -> Result<(), String> {
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

/// Connects to every server of an `mcpServers` file. A server that fails
/// to start is reported and left out.
async fn mcp_clients(path: &std::path::Path) -> Result<Vec<Arc<McpClient>>, String> {
    let file = load_servers_file(path)?;
    let mut clients = Vec::new();
    for (name, config) in file.servers {
        match McpClient::connect(&name, config, McpClientOptions::default()).await {
            Ok(client) => clients.push(client),
            Err(e) => eprintln!("warning: {e}; its tools are not available"),
        }
    }
    Ok(clients)
}

/// The registry: linked tools, manifest tools, then the MCP servers' tools
/// as deferred `server__tool`s. A remote tool whose name is taken is left
/// out: it never shadows a local tool or another server's.
fn build_registry(
    lazy: LazyConfig,
    manifest: &[DynamicTool],
    clients: &[Arc<McpClient>],
) -> Result<Registry, String> {
    let mut taken: HashSet<String> = optimclaw::linked_tools()
        .map(|d| d.name.to_owned())
        .collect();
    let mut tools: Vec<DynamicTool> = manifest.to_vec();
    taken.extend(tools.iter().map(|t| t.name().to_owned()));
    for client in clients {
        let (imported, skipped) = client.dynamic_tools();
        for s in skipped {
            eprintln!("warning: MCP server `{}`: skipped {s}", client.name());
        }
        for tool in imported {
            if taken.insert(tool.name().to_owned()) {
                tools.push(tool);
            } else {
                eprintln!(
                    "warning: MCP server `{}`: {} is already taken; skipped",
                    client.name(),
                    tool.name()
                );
            }
        }
    }
    Registry::builder()
        .lazy(lazy)
        .tools(tools)
        .build()
        .map_err(|e| e.to_string())
}

async fn run(cli: Cli) -> Result<(), String> {
    let mut config = AppConfig::new(&cli.home.clone().unwrap_or_else(AppConfig::default_home));
    config.workspace = cli.workspace.clone();
    config.allow = cli.allow.clone();
    config.allow_private_networks = cli.allow_private;
    config.console_to_stderr = matches!(cli.command, Some(Command::Serve { .. }));
    let mut extra = manifest_tools(&cli.manifests)?;
    let home = cli.home.clone().unwrap_or_else(AppConfig::default_home);
    let wasm_dir = cli.wasm_dir.clone().unwrap_or_else(|| home.join("wasm"));
    let (grant_env, grant_dirs) = (cli.wasm_grant_env.clone(), cli.wasm_grant_dir.clone());
    let clients = match &cli.mcp_config {
        Some(path) => mcp_clients(path).await?,
        None => Vec::new(),
    };
    let command = cli.command.unwrap_or(Command::Report {
        provider: "openai".into(),
        note_budget: None,
    });
    if let Command::Search {
        query,
        max_results,
        batch,
    } = command
    {
        let registry = if extra.is_empty() {
            Registry::builder().lazy(LazyConfig::lazy()).build()
        } else {
            Registry::builder()
                .without_linked()
                .lazy(LazyConfig::lazy())
                .tools(extra)
                .build()
        }
        .map_err(|e| e.to_string())?;
        return search(&registry, query, max_results, batch);
    }
    extra.extend(wasm_tools(&wasm_dir, &grant_env, &grant_dirs)?);
    let lazy = LazyConfig::from_env().map_err(|e| e.to_string())?;
    let registry = build_registry(lazy.clone(), &extra, &clients)?;
    let app = App::open(config)?;
    let ctx = app.context();
    match command {
        Command::Report {
            provider,
            note_budget,
        } => report(&registry, &provider, note_budget),
        Command::Prompt {
            eager,
            lazy,
            provider,
            native_deferral,
        } => {
            let mode = chosen_mode(eager, lazy, &registry);
            let session = Session::with_lazy(registry, mode);
            let rendered = session
                .render(dialect(&provider)?, RenderOptions { native_deferral })
                .map_err(|e| e.to_string())?;
            print_json(&json!({"tools": rendered.tools, "system": rendered.system}));
            Ok(())
        }
        Command::ToolInfo { query, max_results } => {
            let answer = registry
                .tool_info(&query, max_results)
                .map_err(|e| e.to_string())?;
            print_json(&serde_json::to_value(answer).unwrap_or_default());
            Ok(())
        }
        Command::Call { name, json } => {
            let args: Value = serde_json::from_str(&json)
                .map_err(|e| format!("the arguments are not valid JSON: {e}"))?;
            let out = registry
                .call(&name, args, &ctx)
                .await
                .map_err(|e| e.to_string())?;
            print_json(&out);
            Ok(())
        }
        Command::Demo => demo(&registry, &ctx).await,
        Command::Serve {
            http,
            lazy: lazy_flag,
            eager,
        } => {
            let mode = chosen_mode(eager, lazy_flag, &registry);
            let ctx = app.start(&registry);
            let server = McpServer::with_lazy(registry, mode, ctx).named("optimclaw-assistant");
            // An imported server's tools changed: rebuild and tell our clients.
            for client in &clients {
                let (client, all, server, lazy, extra) = (
                    client.clone(),
                    clients.clone(),
                    server.clone(),
                    lazy.clone(),
                    extra.clone(),
                );
                tokio::spawn(async move {
                    while client.next_change().await.is_ok() {
                        match build_registry(lazy.clone(), &extra, &all) {
                            Ok(registry) => server.set_registry(registry).await,
                            Err(e) => eprintln!("warning: the refreshed tools are invalid: {e}"),
                        }
                    }
                });
            }
            match http {
                None => server.serve_stdio().await.map_err(|e| e.to_string()),
                Some(addr) => {
                    let listener = tokio::net::TcpListener::bind(&addr)
                        .await
                        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
                    let local = listener.local_addr().map_err(|e| e.to_string())?;
                    eprintln!("serving MCP (streamable HTTP) on http://{local}/mcp; Ctrl-C stops");
                    let shutdown = tokio_util::sync::CancellationToken::new();
                    let stop = shutdown.clone();
                    tokio::spawn(async move {
                        let _ = tokio::signal::ctrl_c().await;
                        stop.cancel();
                    });
                    server
                        .serve_http(listener, shutdown)
                        .await
                        .map_err(|e| e.to_string())
                }
            }
        }
        Command::Chat {
            once,
            format,
            base_url,
            model,
            max_steps,
            native_deferral,
            strict,
            lazy: lazy_flag,
            eager,
        } => {
            let mode = chosen_mode(eager, lazy_flag, &registry);
            let mut settings = ChatSettings::from_env(&format, base_url, model, mode)?;
            settings.max_steps = max_steps;
            settings.native_deferral = native_deferral;
            settings.strict = strict;
            let ctx = app.start(&registry);
            app.jobs
                .set_prompt_runner(settings.prompt_runner(registry.clone(), ctx.clone()));
            let mut agent = settings.agent(registry, ctx)?;
            let (mut out, mut log) = (std::io::stdout(), std::io::stderr());
            if let Some(message) = once {
                return chat::once(&mut agent, &message, &mut out, &mut log).await;
            }
            // Ctrl-C stops the running turn; at the prompt it ends the chat.
            let cancel = agent.cancel_handle();
            let busy = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let watch = Arc::clone(&busy);
            tokio::spawn(async move {
                while tokio::signal::ctrl_c().await.is_ok() {
                    if watch.load(std::sync::atomic::Ordering::SeqCst) {
                        cancel.cancel();
                    } else {
                        std::process::exit(130);
                    }
                }
            });
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let typed = Arc::clone(&busy);
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    typed.store(true, std::sync::atomic::Ordering::SeqCst);
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            chat::interactive(&mut agent, rx, &mut out, &mut log, &busy).await;
            Ok(())
        }
        Command::Search { .. } => unreachable!("handled above"),
    }
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli).await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
