//! One canonical schema per tool, one transform per provider dialect.
//!
//! Every dialect starts from the registry's cleaned schema (no `$schema`,
//! no root `title`, no non-standard number `format`s, `properties` always
//! present on the root object). Then:
//!
//! - [`Dialect::OpenAi`]: `{"type":"function","function":{name, description, parameters}}`.
//! - [`Dialect::OpenAiStrict`]: the same with `strict: true` and a schema
//!   rewritten for structured outputs (see [`strict_schema`]). A tool whose
//!   schema cannot be strict (a free-form map) is sent with `strict: false`.
//! - [`Dialect::Anthropic`]: `{name, description, input_schema}`, optionally
//!   with `defer_loading: true` on deferred tools plus Anthropic's own
//!   tool-search tool ([`RenderOptions::native_deferral`]).
//! - [`Dialect::Gemini`]: a function declaration in the OpenAPI subset
//!   (see [`gemini_schema`]).
//! - [`Dialect::Mcp`]: `{name, description, inputSchema, outputSchema?}`.
//! - [`Dialect::Text`]: a readable rendering for models without native
//!   tool calling, with [`parse_text_call`] for their replies.
//!
//! A tool's *result* goes back in each API's shape too: [`ResultMedia`]
//! picks the images (and for Gemini, PDFs) an API takes with a result,
//! and [`gemini_function_response`] builds Gemini's whole part.
//!
//! Every dialect but MCP gets local `$ref`s resolved first
//! ([`crate::schema::resolve_refs`]). What each provider's API accepts is
//! written down in [`rules`]; a tool that breaks a rule is sent looser or
//! with `strict: false`, and listed in [`Rendered::degraded`], so one tool
//! never fails a request (`describe.rs`, loosening in `fit.rs`).
//!
//! Each transform lives in its own file (`openai.rs`, `strict.rs`,
//! `anthropic.rs`, `gemini.rs`, `mcp.rs`, `text.rs`); this file owns the
//! dialects, what a rendered prompt is, and which transform each dialect
//! takes.

mod anthropic;
mod describe;
mod fit;
mod gemini;
mod mcp;
mod native;
mod openai;
mod results;
pub mod rules;
mod strict;
mod text;

use std::fmt;

use serde_json::{Value, json};

use crate::config::LoadStrategy;
use crate::prompt::Prompt;
use crate::session::Session;
use crate::tool::{CALL_TOOL, TOOL_INFO, Tool};

pub use crate::tool::EXAMPLES_META_KEY;
pub use anthropic::ANTHROPIC_TOOL_SEARCH;
pub use anthropic::tool_references;
pub use describe::{Degraded, Described, Outcome, describe_tool, tool_spec, tool_spec_with};
pub use gemini::gemini_schema;
pub use native::tool_search_output;
pub use results::{MAX_MEDIA_BLOCKS, MAX_MEDIA_BYTES, ResultMedia, gemini_function_response};
pub use strict::{check_strict, strict_schema};
pub use text::{
    MAX_CALL_PROSE, TEXT_CALL_INSTRUCTIONS, TextCall, TextCallError, WrittenCall, parse_text_call,
    read_announced_calls, read_text_calls, render_text, written_json,
};

/// A provider's way of describing tools: pick the one of the endpoint a
/// request goes to, and render a [`Prompt`] or a
/// [`Session`] in it.
///
/// ```
/// use optimclaw::provider::{Dialect, RenderOptions};
/// use optimclaw::{LazyConfig, Registry, Session};
///
/// let registry = Registry::builder().lazy(LazyConfig::lazy()).build()?;
/// let session = Session::new(registry);
/// let rendered = session.render(Dialect::Anthropic, RenderOptions::default());
/// // `rendered.tools` is the request's `tools` array; `rendered.system`
/// // the note to append to the system prompt.
/// assert!(rendered.tools.iter().any(|t| t["name"] == "tool_info"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI chat completions (and compatible servers).
    OpenAi,
    /// OpenAI chat completions with `strict: true` (structured outputs).
    OpenAiStrict,
    /// OpenAI Responses API function tools (flat, strict where possible;
    /// supports native deferral with `defer_loading` and `tool_search`).
    OpenAiResponses,
    /// Anthropic messages.
    Anthropic,
    /// Google Gemini function declarations.
    Gemini,
    /// Model Context Protocol `tools/list` entries.
    Mcp,
    /// Plain text in the system prompt.
    Text,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 7] = [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
        Dialect::Text,
    ];

    /// A short lowercase name (`openai`, `openai-strict`, …).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi => "openai",
            Dialect::OpenAiStrict => "openai-strict",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
            Dialect::Text => "text",
        }
    }

    /// Parses [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tool that cannot be described for a dialect even in its loosest
/// form ([`tool_spec`] fails with it; whole prompts leave the tool out and
/// list it in [`Rendered::degraded`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}` cannot be described for {dialect} at `{path}`: {message}")]
pub struct SchemaError {
    /// The tool.
    pub tool: String,
    /// The dialect.
    pub dialect: Dialect,
    /// JSON pointer of the offending schema node.
    pub path: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// How a prompt is rendered. The default suits most requests; turn on
/// `examples_in_description` when a model keeps calling a tool wrongly and
/// its examples would show how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Use the provider's own deferral instead of `tool_info` (Anthropic:
    /// every deferred tool is sent with `defer_loading: true`, plus its
    /// tool-search tool; OpenAI Responses: deferred tools get
    /// `defer_loading: true` beside a `tool_search` tool). Other dialects
    /// ignore it: OpenAI's chat completions API has no deferred tools.
    pub native_deferral: bool,
    /// Dialects without a field for examples (OpenAI chat, strict and
    /// Responses, Gemini, plain text) get each example call as an
    /// `Example: {…}` line in the tool's description. Off by default: it
    /// costs tokens on every request. Anthropic (`input_examples`) and MCP
    /// (`_meta`) always carry examples in their own field.
    pub examples_in_description: bool,
    /// Anthropic's programmatic tool calling, beside code mode: every tool
    /// sent may also be called from Anthropic's code-execution tool
    /// (`allowed_callers: ["direct", "code_execution_20250825"]`), which is
    /// added to the request. Other dialects ignore it. The model's calls
    /// then arrive with a `caller` naming the code-execution run; the
    /// framework's own tools (`tool_info`, `call_tool`, `run_code`) stay
    /// direct-only.
    pub programmatic: bool,
}

impl RenderOptions {
    /// Sets [`native_deferral`](Self::native_deferral).
    #[must_use]
    pub fn with_native_deferral(mut self, native_deferral: bool) -> Self {
        self.native_deferral = native_deferral;
        self
    }

    /// Sets [`examples_in_description`](Self::examples_in_description).
    #[must_use]
    pub fn with_examples_in_description(mut self, examples_in_description: bool) -> Self {
        self.examples_in_description = examples_in_description;
        self
    }

    /// Sets [`programmatic`](Self::programmatic).
    #[must_use]
    pub fn with_programmatic(mut self, programmatic: bool) -> Self {
        self.programmatic = programmatic;
        self
    }
}

/// A prompt in one dialect: the request's `tools` array and the text for
/// the system prompt. Put both into the request as they are (see
/// [`Dialect`] for an example).
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The dialect.
    pub dialect: Dialect,
    /// The request's tools (empty for [`Dialect::Text`]).
    pub tools: Vec<Value>,
    /// Text for the system prompt: the lazy note, or for
    /// [`Dialect::Text`] the tool descriptions and calling instructions.
    pub system: Option<String>,
    /// Tools sent weaker than their schemas (loosened, `strict: false`) or
    /// left out, because the provider would refuse them as written.
    pub degraded: Vec<Degraded>,
}

impl Prompt<'_> {
    /// Renders this prompt in a dialect.
    pub fn render(&self, dialect: Dialect, options: RenderOptions) -> Rendered {
        let mut rendered = self.render_tools(dialect, options);
        if options.programmatic && dialect == Dialect::Anthropic {
            anthropic::programmatic(&mut rendered.tools);
        }
        rendered
    }

    fn render_tools(&self, dialect: Dialect, options: RenderOptions) -> Rendered {
        if dialect == Dialect::Text {
            return Rendered {
                dialect,
                tools: Vec::new(),
                system: Some(text::render_text_with(
                    &self.tools,
                    self.note.as_deref(),
                    options.examples_in_description,
                )),
                degraded: Vec::new(),
            };
        }
        let mut degraded = Vec::new();
        let native = options.native_deferral
            && matches!(dialect, Dialect::Anthropic | Dialect::OpenAiResponses);
        let mut tools = Vec::with_capacity(self.tools.len() + 1);
        if native {
            // Every tool goes out; deferred ones are marked so the provider
            // loads them through its own search. `tool_info` is not needed.
            for tool in self
                .registry
                .tools()
                .iter()
                .filter(|t| t.name() != TOOL_INFO)
            {
                let Some(mut spec) = push(tool, dialect, options, &mut degraded) else {
                    continue;
                };
                if !tool.is_core() {
                    mark_deferred(&mut spec);
                }
                tools.push(spec);
            }
            tools.push(match dialect {
                Dialect::Anthropic => anthropic::tool_search(),
                _ => json!({"type": "tool_search"}),
            });
            return Rendered {
                dialect,
                tools,
                system: None,
                degraded,
            };
        }
        if self.strategy == LoadStrategy::Native
            && matches!(dialect, Dialect::Anthropic | Dialect::OpenAiResponses)
        {
            return self.render_native(dialect, options);
        }
        for tool in &self.tools {
            tools.extend(push(tool, dialect, options, &mut degraded));
        }
        Rendered {
            dialect,
            tools,
            system: self.note.clone(),
            degraded,
        }
    }

    /// [`LoadStrategy::Native`]: the core tools, then every deferred tool
    /// with `defer_loading: true` (costing nothing until referenced), in a
    /// fixed order; our own search answers the provider's references.
    /// Anthropic keeps `tool_info` as a client tool whose results carry
    /// `tool_reference` blocks; OpenAI Responses gets a client-executed
    /// `tool_search` with `tool_info`'s parameters, and deferred tools
    /// grouped into `namespace` tools by MCP prefix (`github__*`).
    fn render_native(&self, dialect: Dialect, options: RenderOptions) -> Rendered {
        let mut degraded = Vec::new();
        let core = self.tools.iter().filter(|t| {
            t.name() != CALL_TOOL && (dialect == Dialect::Anthropic || t.name() != TOOL_INFO)
        });
        let mut tools = Vec::new();
        for tool in core {
            tools.extend(push(tool, dialect, options, &mut degraded));
        }
        let deferred: Vec<&Tool> = self
            .registry
            .tools()
            .iter()
            .filter(|t| !t.is_core())
            .collect();
        if dialect == Dialect::Anthropic {
            for tool in deferred {
                if let Some(mut spec) = push(tool, dialect, options, &mut degraded) {
                    mark_deferred(&mut spec);
                    tools.push(spec);
                }
            }
        } else {
            tools.extend(native::namespaces(&deferred, options, &mut degraded));
            if let Some(info) = self.registry.get(TOOL_INFO) {
                tools.push(native::client_tool_search(info));
            }
        }
        Rendered {
            dialect,
            tools,
            system: self.note.clone(),
            degraded,
        }
    }
}

/// One tool's spec for a prompt; what had to give goes to `degraded`.
fn push(
    tool: &Tool,
    dialect: Dialect,
    options: RenderOptions,
    degraded: &mut Vec<Degraded>,
) -> Option<Value> {
    let described = describe_tool(tool, dialect, options);
    degraded.extend(described.degraded);
    described.spec
}

impl crate::registry::Registry {
    /// The tools that cannot go to `dialect` as written, and what is sent
    /// instead (loosened, `strict: false`, left out), so a developer sees
    /// it before a model does. Empty when every tool goes as written.
    pub fn degraded(&self, dialect: Dialect) -> Vec<Degraded> {
        self.tools()
            .iter()
            .filter_map(|tool| describe_tool(tool, dialect, RenderOptions::default()).degraded)
            .collect()
    }
}

impl Session {
    /// The next request's tools and system text in a provider dialect.
    pub fn render(&self, dialect: Dialect, options: RenderOptions) -> Rendered {
        self.prompt().render(dialect, options)
    }
}

fn mark_deferred(spec: &mut Value) {
    if let Value::Object(map) = spec {
        map.insert("defer_loading".into(), Value::Bool(true));
    }
}

/// The description followed by one `Example: {…}` line per example.
pub fn description_with_examples(tool: &Tool) -> String {
    let mut text = tool.description().to_owned();
    for example in tool.examples() {
        text.push_str("\nExample: ");
        text.push_str(&example.to_string());
    }
    text
}
