//! What a tool is once it leaves its definition: [`Tool`] (a registered
//! tool with its schemas materialised), [`DynamicTool`] (one added at run
//! time), [`ToolHandler`] (what runs a dynamic tool's calls), where a tool
//! comes from, and the rule every tool name follows.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::descriptor::{CallFn, SourceLocation, ToolDescriptor, ToolHints, ToolKind};
use crate::error::ToolError;
use crate::schema;

mod dynamic;

pub use dynamic::{DynamicTool, ToolHandler};

/// The `_meta` key under which MCP `tools/list` entries (and manifests)
/// carry a tool's example calls: MCP's tool has no field of its own for them.
pub const EXAMPLES_META_KEY: &str = "io.optimclaw/examples";

/// `_meta` key under which a tool's example requests travel ([`Tool::asks`]).
pub const ASKS_META_KEY: &str = "io.optimclaw/asks";

/// A manifest or MCP entry's example requests: its `asks` array, or
/// `_meta["io.optimclaw/asks"]`; strings only.
pub fn asks_in_entry(entry: &serde_json::Map<String, Value>) -> Vec<String> {
    entry
        .get("asks")
        .or_else(|| entry.get("_meta").and_then(|m| m.get(ASKS_META_KEY)))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// The example calls written in a `tools/list` entry: its `examples` array,
/// else `_meta["io.optimclaw/examples"]`. Entries that are not objects are
/// left out.
pub fn examples_in_entry(entry: &serde_json::Map<String, Value>) -> Vec<Value> {
    entry
        .get("examples")
        .or_else(|| entry.get("_meta").and_then(|m| m.get(EXAMPLES_META_KEY)))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.is_object())
        .cloned()
        .collect()
}

/// The name of the discovery tool (reserved: it is never deferred, never
/// searched, and the lazy note points at it).
pub const TOOL_INFO: &str = "tool_info";

/// The name of the bridge tool of [`LoadStrategy::Bridge`]: calls any tool
/// by name (reserved like [`TOOL_INFO`]; sent only in bridge prompts).
///
/// [`LoadStrategy::Bridge`]: crate::config::LoadStrategy::Bridge
pub const CALL_TOOL: &str = "call_tool";

/// The name of code mode's tool (reserved when code mode is on): runs a
/// JavaScript program that calls tools (the `code` module).
pub const RUN_CODE: &str = "run_code";

/// Whether `name` is one of the framework's own tools (`tool_info`,
/// `call_tool`): never searched, never listed as deferred.
pub fn is_framework_tool(name: &str) -> bool {
    name == TOOL_INFO || name == CALL_TOOL
}

/// The provider rule for tool names: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What runs a tool's calls.
#[derive(Clone)]
pub(crate) enum Handler {
    /// The call shim `#[tool]` generated.
    Linked(CallFn),
    /// A handler given at run time.
    Dynamic(Arc<dyn ToolHandler>),
    /// None: the tool is known (from a manifest) but not callable here.
    None,
}

/// Where a registered tool comes from: read it to tell the program's own
/// tools from imported ones (to show provenance, or to trust them
/// differently).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolOrigin {
    /// A `#[tool]` function.
    Linked(SourceLocation),
    /// Added at run time; the text says from where (e.g. `manifest tools.json`).
    Dynamic(String),
}

impl fmt::Display for ToolOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolOrigin::Linked(loc) => write!(f, "{loc}"),
            ToolOrigin::Dynamic(from) => f.write_str(from),
        }
    }
}

/// One tool in a [`Registry`](crate::Registry), with its schemas
/// materialised. Get one with [`Registry::get`](crate::Registry::get) to read
/// its name, schemas or kind; call it through the registry or a session.
pub struct Tool {
    name: String,
    description: String,
    kind: ToolKind,
    keywords: Vec<String>,
    asks: Vec<String>,
    input_schema: Value,
    output_schema: Option<Value>,
    examples: Vec<Value>,
    title: Option<String>,
    hints: ToolHints,
    /// The input schema's `$schema` as given (dropped from the schema
    /// models see; given back to MCP clients).
    schema_dialect: Option<String>,
    /// Decodes arguments without a call (linked tools), for checking examples.
    check_arguments: Option<fn(Value) -> Result<(), ToolError>>,
    handler: Handler,
    origin: ToolOrigin,
}

impl Tool {
    fn new(parts: DynamicTool, origin: ToolOrigin) -> Self {
        let DynamicTool {
            name,
            description,
            kind,
            keywords,
            asks,
            mut input_schema,
            output_schema,
            mut examples,
            title,
            hints,
            handler,
            origin: _,
        } = parts;
        let schema_dialect = input_schema
            .get("$schema")
            .and_then(Value::as_str)
            .map(str::to_owned);
        schema::clean_root(&mut input_schema);
        schema::sort_keys(&mut input_schema);
        let output_schema = output_schema.map(|mut s| {
            schema::clean_root(&mut s);
            schema::sort_keys(&mut s);
            s
        });
        examples.iter_mut().for_each(schema::sort_keys);
        Tool {
            name,
            description,
            kind,
            keywords,
            asks,
            input_schema,
            output_schema,
            examples,
            title,
            hints,
            schema_dialect,
            check_arguments: None,
            handler,
            origin,
        }
    }

    pub(crate) fn from_descriptor(d: &'static ToolDescriptor) -> Self {
        let parts = DynamicTool {
            name: d.name.to_owned(),
            description: d.description.to_owned(),
            kind: d.kind,
            keywords: d.keywords.iter().map(|k| (*k).to_owned()).collect(),
            asks: d.asks.iter().map(|a| (*a).to_owned()).collect(),
            input_schema: (d.input_schema)(),
            output_schema: (d.output_schema)(),
            // Written by the macro from JSON it parsed: always valid JSON.
            examples: d
                .examples
                .iter()
                .filter_map(|text| serde_json::from_str(text).ok())
                .collect(),
            title: d.title.map(str::to_owned),
            hints: d.hints,
            handler: Handler::Linked(d.call),
            origin: String::new(),
        };
        let mut tool = Tool::new(parts, ToolOrigin::Linked(d.location));
        tool.check_arguments = Some(d.check_arguments);
        tool
    }

    pub(crate) fn from_dynamic(d: DynamicTool) -> Self {
        let origin = ToolOrigin::Dynamic(d.origin.clone());
        Tool::new(d, origin)
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The JSON Schema dialect the input schema declared (`$schema`), when
    /// it declared one: kept out of what models are sent, given back to
    /// MCP clients.
    pub fn schema_dialect(&self) -> Option<&str> {
        self.schema_dialect.as_deref()
    }
    /// The description sent to the model.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Core or deferred.
    pub fn kind(&self) -> ToolKind {
        self.kind
    }
    /// Whether the tool is always sent.
    pub fn is_core(&self) -> bool {
        self.kind == ToolKind::Core
    }
    /// Search keywords.
    pub fn keywords(&self) -> &[String] {
        &self.keywords
    }

    /// Example user requests the tool answers (`#[tool(asks = […])]`,
    /// [`DynamicTool::asks`], a manifest's `asks`): searched by `tool_info`.
    pub fn asks(&self) -> &[String] {
        &self.asks
    }
    /// The canonical JSON schema of the arguments.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
    /// The canonical JSON schema of the result, if known.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }
    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// Behaviour hints (MCP annotations).
    pub fn hints(&self) -> ToolHints {
        self.hints
    }

    /// Example calls (argument objects), checked when the registry was built.
    pub fn examples(&self) -> &[Value] {
        &self.examples
    }

    /// Checks the examples: each must be a valid call. Linked tools decode
    /// each into their argument type; dynamic tools check it against their
    /// input schema. The error names the example and the JSON path at fault.
    pub(crate) fn check_examples(&self) -> Result<(), String> {
        for (i, example) in self.examples.iter().enumerate() {
            let outcome = match self.check_arguments {
                Some(check) => check(example.clone()).map_err(|e| e.to_string()),
                None => schema::check_instance(example, &self.input_schema).map_err(
                    |(path, message)| {
                        if path.is_empty() {
                            message
                        } else {
                            format!("at `{path}`: {message}")
                        }
                    },
                ),
            };
            if let Err(why) = outcome {
                return Err(format!(
                    "tool `{}` ({}): example {} {} is not a valid call: {why}",
                    self.name,
                    self.origin,
                    i + 1,
                    crate::schema::preview(example, 200)
                ));
            }
        }
        Ok(())
    }

    /// Where the tool comes from.
    pub fn origin(&self) -> &ToolOrigin {
        &self.origin
    }
    /// Whether calls can run here (a manifest tool without handler cannot).
    pub fn is_callable(&self) -> bool {
        !matches!(self.handler, Handler::None)
    }

    /// Whether the tool is a `#[tool]` function (its arguments are checked
    /// by decoding them into its argument type).
    pub(crate) fn is_linked(&self) -> bool {
        matches!(self.handler, Handler::Linked(_))
    }

    /// What runs the tool's calls.
    pub(crate) fn handler(&self) -> &Handler {
        &self.handler
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}
