//! The assistant: the OptimClaw tool catalog behind a command line.
//!
//! `cargo run --release --example assistant` prints what eager and lazy
//! loading send to a model, measured with real tokenizers. See `--help`.
//! This file is the table of contents: one call per command into
//! `assistant::cli`; the arguments are in `args.rs`.

use assistant::chat::ChatSettings;
use assistant::cli::serve::ServeOptions;
use assistant::cli::{self, chosen_mode, print_json, tools};
use assistant::{App, AppConfig};
use clap::Parser;
use optimclaw::{LazyConfig, LoadStrategy, Registry};
use optimclaw_agent::{CacheTtl, Compaction, PromptCache};
use optimclaw_mcp::HttpLimits;
use serde_json::Value;

mod args;

use args::{Cli, Command};

async fn run(cli: Cli) -> Result<(), String> {
    let home = cli.home.clone().unwrap_or_else(AppConfig::default_home);
    let mut config = AppConfig::new(&home);
    config.workspace = cli.workspace.clone();
    config.allow = cli.allow.clone();
    config.allow_private_networks = cli.allow_private;
    config.shell_network = cli.shell_network;
    config.unsandboxed_shell = cli.unsandboxed_shell;
    config.console_to_stderr = matches!(cli.command, Some(Command::Serve { .. }));
    let mut extra = tools::manifest_tools(&cli.manifests)?;
    let wasm_dir = cli.wasm_dir.clone().unwrap_or_else(|| home.join("wasm"));
    let semantic = tools::SearchStages {
        semantic: tools::semantic_search(
            cli.embed_url.as_deref(),
            cli.embed_model.as_deref(),
            &home,
        )?,
        rerank: tools::reranker(
            cli.rerank_url.as_deref(),
            cli.rerank_chat_url.as_deref(),
            cli.rerank_model.as_deref(),
        )?,
    };
    let clients = match &cli.mcp_config {
        Some(path) => tools::mcp_clients(path).await?,
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
        let builder = Registry::builder().lazy(LazyConfig::lazy());
        let builder = if extra.is_empty() {
            builder
        } else {
            builder.without_linked().tools(extra)
        };
        let builder = semantic.apply(builder);
        let registry = builder.build().map_err(|e| e.to_string())?;
        return cli::search::search(&registry, query, max_results, batch);
    }
    extra.extend(tools::wasm_tools(
        &wasm_dir,
        &cli.wasm_grant_env,
        &cli.wasm_grant_dir,
    )?);
    let lazy = LazyConfig::from_env()
        .map_err(|e| e.to_string())?
        .with_code_mode(cli.code_mode);
    let registry = tools::build_registry(lazy.clone(), &extra, &clients, &semantic)?;
    let app = App::open(config)?;
    let ctx = app.context();
    match command {
        Command::Report {
            provider,
            note_budget,
        } => {
            cli::report::report(&registry, &provider, note_budget)?;
            cli::report::search(
                &registry,
                cli.embed_url.as_deref(),
                cli.embed_model.as_deref(),
            );
            cli::report::sandbox(&app);
            Ok(())
        }
        Command::Prompt {
            eager,
            lazy,
            provider,
            native_deferral,
        } => cli::report::prompt(registry, eager, lazy, &provider, native_deferral),
        Command::ToolInfo { query, max_results } => {
            cli::report::tool_info(&registry, &query, max_results)
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
        Command::Demo => cli::demo::demo(&registry, &ctx).await,
        Command::Serve {
            http,
            lazy: lazy_flag,
            eager,
            max_sessions,
            max_sessions_per_key,
            max_calls_per_key,
            allowed_hosts,
            allowed_origins,
            session_idle,
            stateless,
            max_calls,
            list_changed,
            token_file,
        } => {
            let base = if stateless {
                HttpLimits::stateless()
            } else {
                HttpLimits::default()
            };
            let limits = base
                .with_max_sessions(max_sessions)
                .with_max_sessions_per_key(max_sessions_per_key)
                .with_max_calls_per_key(max_calls_per_key)
                .with_allowed_hosts(allowed_hosts)
                .with_allowed_origins(allowed_origins)
                .with_session_idle(std::time::Duration::from_secs(session_idle));
            let mode = chosen_mode(eager, lazy_flag, &registry);
            let ctx = app.start(&registry);
            let options = ServeOptions {
                http,
                mode,
                lazy,
                extra,
                clients,
                semantic,
                limits,
                max_calls,
                list_changed,
                token_file,
            };
            cli::serve::serve(registry, ctx, options).await
        }
        Command::Chat {
            once,
            format,
            base_url,
            model,
            max_steps,
            max_searches,
            native_deferral,
            strict,
            strategy,
            lazy: lazy_flag,
            eager,
            preload: _,
            no_preload,
            cache,
            cache_ttl,
            prompt_cache_key,
            stream,
            compact_at,
            compact_to,
            text_tools,
            list_loaded,
            max_tokens,
            first_call,
            call_reading,
            extra_body,
        } => {
            let compaction = match (compact_at, compact_to) {
                (Some(0), _) => {
                    return Err("--compact-at must be a number of tokens above 0".into());
                }
                (Some(at), Some(to)) if to > at => {
                    return Err(format!(
                        "--compact-to ({to}) must not be above --compact-at ({at}): a compaction keeps less than what starts it"
                    ));
                }
                (Some(at), to) => Some(Compaction::new(at, to.unwrap_or(at / 3))),
                (None, _) => None,
            };
            let mode = chosen_mode(eager, lazy_flag, &registry);
            let strategy = strategy
                .map(|name| {
                    LoadStrategy::from_name(&name).ok_or_else(|| {
                        format!("unknown strategy {name:?}; use append, bridge or native")
                    })
                })
                .transpose()?;
            let mut settings = ChatSettings::from_env(&format, base_url, model, mode)?;
            if let Some(strategy) = strategy {
                settings.lazy = settings.lazy.with_strategy(strategy);
            }
            settings.max_steps = max_steps;
            settings.max_searches = max_searches;
            settings.native_deferral = native_deferral;
            settings.strict = strict;
            settings.preload = !no_preload;
            settings.cache = PromptCache::from_name(&cache).ok_or_else(|| {
                format!("unknown --cache {cache:?}; use breakpoints, automatic or off")
            })?;
            settings.cache_ttl = CacheTtl::from_name(&cache_ttl)
                .ok_or_else(|| format!("unknown --cache-ttl {cache_ttl:?}; use 5m or 1h"))?;
            settings.prompt_cache_key = prompt_cache_key;
            settings.stream = stream;
            settings.compaction = compaction;
            settings.text_tools = text_tools;
            settings.list_loaded = list_loaded;
            settings.model.max_tokens = max_tokens;
            settings.first_call = first_call;
            settings.call_reading = call_reading;
            if let Some(extra) = extra_body {
                let fields = match serde_json::from_str::<serde_json::Value>(&extra) {
                    Ok(serde_json::Value::Object(fields)) => fields,
                    _ => {
                        return Err(format!(
                            "--extra-body {extra:?} is not a JSON object; give one, like '{{\"timings_per_token\": true}}'"
                        ));
                    }
                };
                settings.model.extra_body.extend(fields);
            }
            cli::chat::run(&app, registry, settings, once).await
        }
        Command::Search { .. } => unreachable!("handled above"),
    }
}

#[tokio::main]
async fn main() {
    // RUST_LOG (e.g. `optimclaw=info`) turns on the spans of tool calls and
    // model requests, written to standard error as they close.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .init();
    }
    let cli = Cli::parse();
    if let Err(e) = run(cli).await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
