//! Tools for [rig](https://docs.rs/rig-core) agents, and rig tools in a
//! registry (rig-core 0.44).
//!
//! A rig agent is built with a fixed list of tools. [`tools`] gives it the
//! session's lazy set as that fixed list: the core tools, `tool_info`, and
//! the bridge `call_tool(name, arguments)` through which every deferred
//! tool is reached once `tool_info` has shown it — the same array on every
//! request, so the provider's prompt cache holds (the bridge strategy; see
//! [`LoadStrategy`]). [`preamble`] is the note naming
//! the deferred tools, for the agent's preamble. An eager session gives
//! every tool in full. Calls go through the [`Session`], so arguments are
//! checked, `tool_info` loads, scopes and tracing hold as for any call.
//!
//! The other way, [`from_rig`] and [`from_rig_tool`] turn rig tools (its
//! runtime-defined `DynamicTool`, or any typed `rig::tool::Tool`) into
//! deferred [`DynamicTool`]s of a registry.
//!
//! ```
//! use optimclaw::{LazyConfig, Registry, Session, ToolContext};
//! let registry = Registry::builder().lazy(LazyConfig::lazy()).build().unwrap();
//! let session = Session::new(registry);
//! let tools = optimclaw_rig::tools(&session, &ToolContext::new());
//! let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
//! assert!(names.contains(&"tool_info".to_owned()));
//! // rig_agent::AgentBuilder::new(model)
//! //     .preamble(optimclaw_rig::preamble(&session).unwrap_or_default())
//! //     .dynamic_tools(tools)
//! //     .build();
//! ```
#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::sync::Arc;

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool as RigTool, ErasedTool, ToolExecutionError, ToolOutput};
use serde_json::{Value, json};

use optimclaw::Session;
use optimclaw::ToolContext;
use optimclaw::ToolKind;
use optimclaw::config::LoadStrategy;
use optimclaw::{DynamicTool, is_valid_tool_name};
use optimclaw::{ToolError, ToolErrorKind};

/// A tool result as rig output: text as text, anything else as JSON.
fn output(value: Value) -> ToolOutput {
    match value {
        Value::String(text) => ToolOutput::text(text),
        other => ToolOutput::json(other),
    }
}

/// A tool error as a rig error of the matching kind, its message (written
/// for the model) kept.
fn rig_error(err: &ToolError) -> ToolExecutionError {
    let text = err.to_string();
    let mapped = match err.kind() {
        ToolErrorKind::InvalidArguments => ToolExecutionError::invalid_args(text.clone()),
        ToolErrorKind::UnknownTool | ToolErrorKind::NotCallable => {
            ToolExecutionError::not_found(text.clone())
        }
        ToolErrorKind::Timeout => ToolExecutionError::timeout(text.clone()),
        ToolErrorKind::Cancelled => ToolExecutionError::cancelled(text.clone()),
        // `Failed`, `Panicked`, and kinds added later.
        _ => ToolExecutionError::other(text.clone()),
    };
    // The model reads the whole message (nearest names, the schema hint).
    mapped.with_model_feedback(text)
}

/// The rig tools of `session`: see the [module docs](self). Each call runs
/// through the session with `ctx`.
pub fn tools(session: &Session, ctx: &ToolContext) -> Vec<RigTool> {
    let lazy = session.lazy_config();
    let fixed = if lazy.enabled {
        lazy.clone().with_strategy(LoadStrategy::Bridge)
    } else {
        lazy.clone()
    };
    let prompt = session
        .registry()
        .scoped(session.scope())
        .prompt::<&str>(&fixed, &[]);
    prompt
        .tools
        .iter()
        .filter_map(|tool| {
            let name = ToolName::try_from(tool.name()).ok()?;
            let (session, ctx) = (session.clone(), ctx.clone());
            let called = Arc::<str>::from(tool.name());
            Some(RigTool::new(
                name,
                tool.description(),
                tool.input_schema().clone(),
                move |args: Value| {
                    let (session, ctx, called) = (session.clone(), ctx.clone(), called.clone());
                    Box::pin(async move {
                        session
                            .call(&called, args, &ctx)
                            .await
                            .map(output)
                            .map_err(|e| rig_error(&e))
                    })
                },
            ))
        })
        .collect()
}

/// The note for the agent's preamble: which deferred tools exist and how
/// to reach them (`None` for an eager session or no deferred tool).
pub fn preamble(session: &Session) -> Option<String> {
    session.prompt().note
}

/// A rig output as a JSON value: JSON as is, text as a string (or the JSON
/// it holds), anything else as rig renders it.
fn value_of(out: &ToolOutput) -> Value {
    if let Some(value) = out.as_json() {
        return value.clone();
    }
    match out.as_text() {
        Some(text) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(|v| v.is_object() || v.is_array())
            .unwrap_or_else(|| json!(text)),
        None => json!(out.render()),
    }
}

fn check_name(name: &str) -> Result<(), ToolError> {
    if is_valid_tool_name(name) {
        Ok(())
    } else {
        Err(ToolError::new(format!(
            "the rig tool {name:?} cannot join a registry: names must match ^[a-zA-Z0-9_-]{{1,64}}$"
        )))
    }
}

fn our_error(err: &ToolExecutionError) -> ToolError {
    ToolError::new(err.model_feedback().unwrap_or(err.message()))
}

/// A rig runtime-defined tool as a deferred tool of a registry.
pub fn from_rig(tool: RigTool) -> Result<DynamicTool, ToolError> {
    let definition = tool.definition();
    check_name(&definition.name)?;
    let tool = Arc::new(tool);
    Ok(DynamicTool::new(
        definition.name.to_string(),
        definition.description,
        definition.parameters,
    )
    .kind(ToolKind::Deferred)
    .origin("rig tool")
    .handler(move |_ctx, args: Value| {
        let tool = Arc::clone(&tool);
        async move {
            tool.execute(args)
                .await
                .map(|out| value_of(&out))
                .map_err(|e| our_error(&e))
        }
    }))
}

/// A typed rig tool (anything implementing `rig::tool::Tool`, or rig's
/// `ErasedTool`) as a deferred tool of a registry.
pub fn from_rig_tool<T: ErasedTool + 'static>(tool: T) -> Result<DynamicTool, ToolError> {
    let name = tool.name();
    check_name(&name)?;
    let (description, parameters) = (tool.description(), tool.parameters());
    let tool = Arc::new(tool);
    Ok(DynamicTool::new(name, description, parameters)
        .kind(ToolKind::Deferred)
        .origin("rig tool")
        .handler(move |_ctx, args: Value| {
            let tool = Arc::clone(&tool);
            async move {
                let mut context = rig_core::tool::ToolContext::new();
                tool.execute(args.to_string(), &mut context)
                    .await
                    .into_result()
                    .map(|out| value_of(&out))
                    .map_err(|e| our_error(&e))
            }
        }))
}
