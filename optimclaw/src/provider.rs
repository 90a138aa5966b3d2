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

use std::fmt;

use serde_json::{Map, Value, json};

use crate::prompt::{Prompt, TOOL_INFO};
use crate::registry::Tool;

/// A provider's way of describing tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// A schema a dialect cannot express.
#[derive(Clone, Debug, PartialEq, Eq)]
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

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` cannot be described for {} at `{}`: {}",
            self.tool, self.dialect, self.path, self.message
        )
    }
}

impl std::error::Error for SchemaError {}

/// How a prompt is rendered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Use the provider's own deferral instead of `tool_info` (Anthropic:
    /// every deferred tool is sent with `defer_loading: true`, plus its
    /// tool-search tool; OpenAI Responses: deferred tools get
    /// `defer_loading: true` beside a `tool_search` tool). Other dialects
    /// ignore it: OpenAI's chat completions API has no deferred tools.
    pub native_deferral: bool,
}

/// Anthropic's server-side tool-search tool (regex variant).
pub const ANTHROPIC_TOOL_SEARCH: &str = "tool_search_tool_regex_20251119";

/// A prompt in one dialect: the request's `tools` array and the text for
/// the system prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The dialect.
    pub dialect: Dialect,
    /// The request's tools (empty for [`Dialect::Text`]).
    pub tools: Vec<Value>,
    /// Text for the system prompt: the lazy note, or for
    /// [`Dialect::Text`] the tool descriptions and calling instructions.
    pub system: Option<String>,
}

impl Prompt<'_> {
    /// Renders this prompt in a dialect.
    pub fn render(
        &self,
        dialect: Dialect,
        options: RenderOptions,
    ) -> Result<Rendered, SchemaError> {
        if dialect == Dialect::Text {
            return Ok(Rendered {
                dialect,
                tools: Vec::new(),
                system: Some(render_text(&self.tools, self.note.as_deref())),
            });
        }
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
                let mut spec = tool_spec(tool, dialect)?;
                if !tool.is_core() {
                    mark_deferred(&mut spec);
                }
                tools.push(spec);
            }
            tools.push(match dialect {
                Dialect::Anthropic => {
                    json!({"type": ANTHROPIC_TOOL_SEARCH, "name": "tool_search_tool_regex"})
                }
                _ => json!({"type": "tool_search"}),
            });
            return Ok(Rendered {
                dialect,
                tools,
                system: None,
            });
        }
        for tool in &self.tools {
            tools.push(tool_spec(tool, dialect)?);
        }
        Ok(Rendered {
            dialect,
            tools,
            system: self.note.clone(),
        })
    }
}

fn mark_deferred(spec: &mut Value) {
    if let Value::Object(map) = spec {
        map.insert("defer_loading".into(), Value::Bool(true));
    }
}

/// One tool in a dialect (not [`Dialect::Text`], which renders whole
/// prompts; for it this returns the canonical spec).
pub fn tool_spec(tool: &Tool, dialect: Dialect) -> Result<Value, SchemaError> {
    let err = |path: String, message: String| SchemaError {
        tool: tool.name().to_owned(),
        dialect,
        path,
        message,
    };
    let schema = tool.input_schema();
    // What models read: no `additionalProperties: false` (dispatch enforces it).
    let for_model = || {
        let mut s = schema.clone();
        crate::schema::drop_closed_objects(&mut s);
        s
    };
    Ok(match dialect {
        Dialect::OpenAi => json!({
            "type": "function",
            "function": {"name": tool.name(), "description": tool.description(), "parameters": for_model()},
        }),
        Dialect::OpenAiStrict => match strict_schema(schema) {
            Ok(strict) => json!({
                "type": "function",
                "function": {"name": tool.name(), "description": tool.description(), "parameters": strict, "strict": true},
            }),
            Err(_) => json!({
                "type": "function",
                "function": {"name": tool.name(), "description": tool.description(), "parameters": for_model(), "strict": false},
            }),
        },
        Dialect::OpenAiResponses => match strict_schema(schema) {
            Ok(strict) => json!({
                "type": "function", "name": tool.name(), "description": tool.description(),
                "parameters": strict, "strict": true,
            }),
            Err(_) => json!({
                "type": "function", "name": tool.name(), "description": tool.description(),
                "parameters": for_model(), "strict": false,
            }),
        },
        Dialect::Anthropic => json!({
            "name": tool.name(), "description": tool.description(), "input_schema": for_model(),
        }),
        Dialect::Gemini => {
            let parameters = gemini_schema(schema).map_err(|(p, m)| err(p, m))?;
            json!({"name": tool.name(), "description": tool.description(), "parameters": parameters})
        }
        Dialect::Mcp => {
            let mut spec = json!({"name": tool.name(), "description": tool.description(), "inputSchema": schema});
            // MCP requires an object schema for structured output.
            if let Some(out) = tool.output_schema()
                && out.get("type").and_then(Value::as_str) == Some("object")
            {
                spec["outputSchema"] = out.clone();
            }
            spec
        }
        Dialect::Text => crate::prompt::canonical_spec(tool),
    })
}

// ---------------------------------------------------------------- strict

/// Keywords OpenAI's strict mode does not accept; their values are kept as
/// text in the description so the model still sees them.
const STRICT_UNSUPPORTED: &[&str] = &[
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "examples",
    "contentEncoding",
    "contentMediaType",
    "deprecated",
    "readOnly",
    "writeOnly",
    "title",
];

/// Rewrites a schema for OpenAI's strict mode: every object closed with
/// `additionalProperties: false` and every property listed in `required`,
/// properties that were optional made nullable (dispatch treats their
/// `null` as absent), `oneOf` turned into `anyOf`, and unsupported keywords
/// moved into the description. Fails (with the JSON pointer) on maps, whose
/// keys strict mode cannot express.
pub fn strict_schema(schema: &Value) -> Result<Value, (String, String)> {
    let mut out = schema.clone();
    strict_node(&mut out, "")?;
    Ok(out)
}

fn strict_node(node: &mut Value, path: &str) -> Result<(), (String, String)> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    move_to_description(map, STRICT_UNSUPPORTED);
    let is_object =
        map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if is_object {
        match map.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return Err((
                    path.to_owned(),
                    "a map with free-form keys cannot be strict; use a struct or a list of key/value pairs".to_owned(),
                ));
            }
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut all = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                strict_node(prop, &format!("{path}/properties/{name}"))?;
                if !required.contains(name) {
                    make_nullable(prop);
                }
                all.push(Value::String(name.clone()));
            }
        }
        map.insert("required".into(), Value::Array(all));
    }
    for key in ["items", "not"] {
        if let Some(child) = map.get_mut(key) {
            strict_node(child, &format!("{path}/{key}"))?;
        }
    }
    for key in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            for (i, child) in list.iter_mut().enumerate() {
                strict_node(child, &format!("{path}/{key}/{i}"))?;
            }
        }
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        for (name, child) in defs.iter_mut() {
            strict_node(child, &format!("{path}/$defs/{name}"))?;
        }
    }
    Ok(())
}

/// Lets a schema also accept `null`.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    let accepts_null = |map: &Map<String, Value>| match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    if accepts_null(map) {
        return;
    }
    let simple = map.contains_key("type")
        && !map.contains_key("$ref")
        && !map.contains_key("anyOf")
        && !map.contains_key("allOf");
    if simple {
        let t = map.remove("type").unwrap_or(Value::Null);
        let mut types = match t {
            Value::Array(ts) => ts,
            other => vec![other],
        };
        types.push(json!("null"));
        map.insert("type".into(), Value::Array(types));
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return;
    }
    if let Some(Value::Array(options)) = map.get_mut("anyOf") {
        if !options
            .iter()
            .any(|o| o.get("type") == Some(&json!("null")))
        {
            options.push(json!({"type": "null"}));
        }
        return;
    }
    // `$ref`, `allOf`, `enum`/`const` without type: wrap.
    let description = map.remove("description");
    let inner = Value::Object(std::mem::take(map));
    map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    if let Some(d) = description {
        map.insert("description".into(), d);
    }
}

/// Removes `keys` from a schema node and appends them to its description
/// (`… (default: 5; minimum: 0)`), so the model still learns them.
fn move_to_description(map: &mut Map<String, Value>, keys: &[&str]) {
    let mut notes = Vec::new();
    for key in keys {
        if let Some(v) = map.remove(*key) {
            if *key == "title" {
                continue;
            }
            notes.push(format!("{key}: {v}"));
        }
    }
    if notes.is_empty() {
        return;
    }
    let note = notes.join("; ");
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(description));
}

/// Checks the invariants of a strict schema; returns the JSON pointer and
/// the problem of the first violation.
pub fn check_strict(schema: &Value) -> Result<(), (String, String)> {
    fn walk(node: &Value, path: &str) -> Result<(), (String, String)> {
        let Value::Object(map) = node else {
            return Ok(());
        };
        if map.contains_key("oneOf") {
            return Err((path.into(), "`oneOf` is not allowed; use `anyOf`".into()));
        }
        for key in STRICT_UNSUPPORTED {
            if *key != "title" && map.contains_key(*key) {
                return Err((
                    path.into(),
                    format!("`{key}` is not supported in strict mode"),
                ));
            }
        }
        let is_object = map.get("type").and_then(Value::as_str) == Some("object")
            || map.contains_key("properties");
        if is_object {
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Err((
                    path.into(),
                    "objects need additionalProperties: false".into(),
                ));
            }
            let props = map.get("properties").and_then(Value::as_object);
            let required = map.get("required").and_then(Value::as_array);
            for name in props.into_iter().flat_map(|p| p.keys()) {
                if !required.is_some_and(|r| r.iter().any(|v| v == name)) {
                    return Err((
                        path.into(),
                        format!("property `{name}` is not in `required`"),
                    ));
                }
            }
        }
        for (key, child) in map {
            match child {
                Value::Object(o) if key == "properties" || key == "$defs" => {
                    for (k, c) in o {
                        walk(c, &format!("{path}/{key}/{k}"))?;
                    }
                }
                Value::Object(_) if key == "items" || key == "not" => {
                    walk(child, &format!("{path}/{key}"))?
                }
                Value::Array(list) if key == "anyOf" || key == "allOf" || key == "prefixItems" => {
                    for (i, c) in list.iter().enumerate() {
                        walk(c, &format!("{path}/{key}/{i}"))?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err((String::new(), "the root must be an object".into()));
    }
    walk(schema, "")
}

// ---------------------------------------------------------------- gemini

/// Keywords of Gemini's `Schema` (the OpenAPI 3.0 subset).
const GEMINI_KEYS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
    "title",
];

/// Formats Gemini accepts on strings.
const GEMINI_STRING_FORMATS: &[&str] = &["enum", "date-time"];

/// Rewrites a schema into Gemini's OpenAPI subset: `$ref`s inlined (a
/// recursive type is an error: Gemini cannot express it), `oneOf` → `anyOf`,
/// `const` → one-value `enum`, type lists with `null` → `nullable`, and
/// other keywords (`additionalProperties`, `$defs`, …) removed, with the
/// meaningful ones moved into the description.
pub fn gemini_schema(schema: &Value) -> Result<Value, (String, String)> {
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    let mut stack = Vec::new();
    gemini_node(schema, &defs, "", &mut stack)
}

fn gemini_node(
    node: &Value,
    defs: &Value,
    path: &str,
    stack: &mut Vec<String>,
) -> Result<Value, (String, String)> {
    let Value::Object(src) = node else {
        // `true` / `{}`-like schemas: any value. Gemini needs a type; a
        // string is the closest it can take.
        return Ok(json!({"type": "string"}));
    };
    if let Some(reference) = src.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        if stack.contains(&name) {
            return Err((
                path.to_owned(),
                format!(
                    "the type `{name}` is recursive and Gemini schemas cannot refer to themselves; bound the nesting with a non-recursive type"
                ),
            ));
        }
        let Some(target) = defs.get(&name) else {
            return Err((
                path.to_owned(),
                format!("`$ref` to unknown definition `{reference}`"),
            ));
        };
        stack.push(name);
        let mut inlined = gemini_node(target, defs, path, stack)?;
        stack.pop();
        if let (Some(d), Value::Object(m)) = (src.get("description"), &mut inlined) {
            m.insert("description".into(), d.clone());
        }
        return Ok(inlined);
    }
    let mut map = src.clone();
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(c) = map.remove("const") {
        map.insert("enum".into(), json!([c]));
        if !map.contains_key("type") {
            let t = match &c {
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                Value::Number(_) => "number",
                _ => "string",
            };
            map.insert("type".into(), json!(t));
        }
    }
    // `type: [T, "null"]` → `type: T, nullable: true`.
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if non_null.len() < types.len() {
            map.insert("nullable".into(), Value::Bool(true));
        }
        match non_null.as_slice() {
            [one] => {
                map.insert("type".into(), (*one).clone());
            }
            _ => {
                map.remove("type");
                map.insert(
                    "anyOf".into(),
                    Value::Array(non_null.iter().map(|t| json!({"type": t})).collect()),
                );
            }
        }
    }
    if map.get("type") == Some(&json!("null")) {
        map.insert("type".into(), json!("string"));
        map.insert("nullable".into(), Value::Bool(true));
    }
    // Gemini's enums are string enums.
    if let Some(Value::Array(values)) = map.get("enum").cloned() {
        if values.iter().all(Value::is_string) {
            map.insert("type".into(), json!("string"));
        } else {
            map.remove("enum");
            let note: Vec<String> = values.iter().map(Value::to_string).collect();
            push_note(&mut map, &format!("one of: {}", note.join(", ")));
        }
    }
    if map.get("type") == Some(&json!("string"))
        && let Some(f) = map.get("format").and_then(Value::as_str)
        && !GEMINI_STRING_FORMATS.contains(&f)
    {
        let f = f.to_owned();
        map.remove("format");
        push_note(&mut map, &format!("format: {f}"));
    }
    let mut out = Map::new();
    let mut dropped = Vec::new();
    for (key, value) in map {
        match key.as_str() {
            "properties" => {
                let mut props = Map::new();
                for (name, child) in value.as_object().into_iter().flatten() {
                    props.insert(
                        name.clone(),
                        gemini_node(child, defs, &format!("{path}/properties/{name}"), stack)?,
                    );
                }
                out.insert(key, Value::Object(props));
            }
            "items" => {
                out.insert(
                    key,
                    gemini_node(&value, defs, &format!("{path}/items"), stack)?,
                );
            }
            "anyOf" => {
                let mut list = Vec::new();
                for (i, child) in value.as_array().into_iter().flatten().enumerate() {
                    let child = gemini_node(child, defs, &format!("{path}/anyOf/{i}"), stack)?;
                    if child.get("type") == Some(&json!("string"))
                        && child.get("nullable") == Some(&Value::Bool(true))
                        && child.as_object().is_some_and(|m| m.len() == 2)
                    {
                        out.insert("nullable".into(), Value::Bool(true));
                        continue;
                    }
                    list.push(child);
                }
                if list.len() == 1 {
                    if let Value::Object(only) = list.remove(0) {
                        for (k, v) in only {
                            out.entry(k).or_insert(v);
                        }
                    }
                } else {
                    out.insert(key, Value::Array(list));
                }
            }
            k if GEMINI_KEYS.contains(&k) => {
                out.insert(key, value);
            }
            "$defs" | "additionalProperties" | "$schema" | "$id" | "$comment" => {}
            _ => dropped.push(format!("{key}: {value}")),
        }
    }
    if !dropped.is_empty() {
        push_note(&mut out, &dropped.join("; "));
    }
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        out.insert(
            "type".into(),
            json!(if out.contains_key("properties") {
                "object"
            } else {
                "string"
            }),
        );
    }
    Ok(Value::Object(out))
}

fn push_note(map: &mut Map<String, Value>, note: &str) {
    let description = match map.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} ({note})"),
        _ => format!("({note})"),
    };
    map.insert("description".into(), Value::String(description));
}

// ---------------------------------------------------------------- text

/// How a text-only model is told to call a tool.
pub const TEXT_CALL_INSTRUCTIONS: &str = "To call a tool, reply with exactly one fenced JSON block and nothing else:\n```json\n{\"tool\": \"<name>\", \"arguments\": {<arguments>}}\n```";

/// Renders tools and the lazy note as compact, readable text.
pub fn render_text(tools: &[&Tool], note: Option<&str>) -> String {
    let mut out = String::from("# Tools\n");
    out.push_str(TEXT_CALL_INSTRUCTIONS);
    out.push('\n');
    for tool in tools {
        out.push_str(&format!("\n## {}\n{}\n", tool.name(), tool.description()));
        let schema = tool.input_schema();
        let props = schema.get("properties").and_then(Value::as_object);
        match props {
            Some(props) if !props.is_empty() => {
                out.push_str("Arguments:\n");
                for (name, prop) in props {
                    let required = crate::schema::is_required(schema, name);
                    out.push_str(&format!("- {name} ({}", type_label(prop, schema)));
                    out.push_str(if required { ", required" } else { ", optional" });
                    if let Some(d) = prop.get("default") {
                        out.push_str(&format!(", default {d}"));
                    }
                    out.push(')');
                    if let Some(d) = prop.get("description").and_then(Value::as_str) {
                        out.push_str(": ");
                        out.push_str(&d.replace('\n', " "));
                    }
                    out.push('\n');
                }
            }
            _ => out.push_str("Arguments: none\n"),
        }
    }
    if let Some(note) = note {
        out.push('\n');
        out.push_str(note);
        out.push('\n');
    }
    out
}

fn one_of(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("one of {}", shown.join(", "))
}

fn type_label(prop: &Value, root: &Value) -> String {
    if let Some(r) = prop.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        if let Some(target) = root.pointer(&format!("/$defs/{name}")) {
            if let Some(values) = target.get("enum").and_then(Value::as_array) {
                return one_of(values);
            }
            return format!("object {name}: {}", compact(target));
        }
    }
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        return one_of(values);
    }
    match prop.get("type") {
        Some(Value::String(t)) if t == "array" => match prop.get("items") {
            Some(items) => format!("array of {}", type_label(items, root)),
            None => "array".to_owned(),
        },
        Some(Value::String(t)) if t == "object" && prop.get("properties").is_some() => {
            format!("object: {}", compact(prop))
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if prop.get("anyOf").is_some() || prop.get("oneOf").is_some() => {
            format!("schema {}", compact(prop))
        }
        _ => "any".to_owned(),
    }
}

fn compact(schema: &Value) -> String {
    let s = schema.to_string();
    if s.chars().count() <= 400 {
        return s;
    }
    let mut cut: String = s.chars().take(400).collect();
    cut.push('…');
    cut
}

/// A tool call parsed from a text model's reply.
#[derive(Clone, Debug, PartialEq)]
pub struct TextCall {
    /// The tool name.
    pub tool: String,
    /// The arguments object.
    pub arguments: Value,
}

/// Why a reply that tries to call a tool could not be read; the text says
/// what to fix, for sending back to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextCallError(pub String);

impl fmt::Display for TextCallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TextCallError {}

/// Reads a text model's reply: `Ok(None)` for a plain answer,
/// `Ok(Some(call))` for one fenced JSON object `{"tool", "arguments"}`, and
/// an error saying what to fix for anything in between (several calls,
/// broken JSON, a missing `tool`, arguments that are not an object).
pub fn parse_text_call(reply: &str) -> Result<Option<TextCall>, TextCallError> {
    let blocks = fenced_blocks(reply);
    let candidates: Vec<&str> = if blocks.is_empty() {
        let trimmed = reply.trim();
        if trimmed.starts_with('{') && trimmed.contains("\"tool\"") {
            vec![trimmed]
        } else {
            return Ok(None);
        }
    } else {
        blocks
            .into_iter()
            .filter(|(lang, body)| {
                lang.eq_ignore_ascii_case("json") || body.trim_start().starts_with('{')
            })
            .map(|(_, body)| body)
            .collect()
    };
    match candidates.len() {
        0 => return Ok(None),
        1 => {}
        n => {
            return Err(TextCallError(format!(
                "the reply has {n} JSON blocks; call one tool per reply with exactly one fenced JSON block"
            )));
        }
    }
    let value: Value = serde_json::from_str(candidates[0].trim()).map_err(|e| {
        TextCallError(format!(
            "the tool call is not valid JSON ({e}); send {{\"tool\": \"<name>\", \"arguments\": {{…}}}}"
        ))
    })?;
    let Value::Object(mut obj) = value else {
        return Err(TextCallError(
            "the tool call must be a JSON object {\"tool\": …, \"arguments\": …}".into(),
        ));
    };
    let tool = match obj.remove("tool") {
        Some(Value::String(t)) if !t.trim().is_empty() => t.trim().to_owned(),
        Some(_) => {
            return Err(TextCallError(
                "\"tool\" must be a non-empty string naming the tool".into(),
            ));
        }
        None => {
            return Err(TextCallError(
                "the tool call has no \"tool\" field naming the tool".into(),
            ));
        }
    };
    let arguments = match obj.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(a @ Value::Object(_)) => a,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(a @ Value::Object(_)) => a,
            _ => return Err(TextCallError("\"arguments\" must be a JSON object".into())),
        },
        Some(_) => return Err(TextCallError("\"arguments\" must be a JSON object".into())),
    };
    if let Some(extra) = obj.keys().next() {
        return Err(TextCallError(format!(
            "unexpected field \"{extra}\" in the tool call; only \"tool\" and \"arguments\" are read"
        )));
    }
    Ok(Some(TextCall { tool, arguments }))
}

/// `(language, body)` of each fenced code block. An unterminated block is
/// read to the end of the reply.
fn fenced_blocks(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let (lang, body_start) = match after.find('\n') {
            Some(nl) => (after[..nl].trim(), nl + 1),
            None => (after.trim(), after.len()),
        };
        let body_all = &after[body_start..];
        match body_all.find("```") {
            Some(end) => {
                out.push((lang, &body_all[..end]));
                rest = &body_all[end + 3..];
            }
            None => {
                out.push((lang, body_all));
                break;
            }
        }
    }
    out
}
