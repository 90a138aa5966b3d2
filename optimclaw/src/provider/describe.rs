//! One tool in one dialect, inside what the provider accepts: the
//! dialect's transform, then its rules (`rules.rs`); a tool that breaks a
//! rule is sent looser (`fit.rs`) or, for OpenAI's strict mode, with
//! `strict: false`, and says so in a [`Degraded`]. A tool is left out of a
//! request only when not even its loosest form passes, so one tool never
//! fails a request.

use std::fmt;

use serde_json::{Value, json};

use super::rules::{Violation, anthropic_key, violations};
use super::strict::strict_schema;
use super::{Dialect, RenderOptions, SchemaError, anthropic, fit, gemini, mcp, openai};
use crate::schema::{drop_closed_objects, preview, resolve_refs};
use crate::tool::{CALL_TOOL, Tool};

/// What happened to a tool that could not go to a provider as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Sent, with what the provider cannot express moved into words (the
    /// schema takes every argument it took before, and possibly more).
    Loosened,
    /// Sent to OpenAI with `strict: false`: strict mode cannot express it.
    NotStrict,
    /// Left out of the request: not even its loosest form is accepted.
    LeftOut,
}

/// A tool sent in a weaker form than its schema, or left out, for one
/// dialect, and why. [`Rendered::degraded`](super::Rendered::degraded),
/// [`Registry::degraded`](crate::Registry::degraded) and the testing
/// checks report these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Degraded {
    /// The tool.
    pub tool: String,
    /// The dialect.
    pub dialect: Dialect,
    /// What was done.
    pub outcome: Outcome,
    /// Why, one entry per problem (`JSON pointer: what`).
    pub reasons: Vec<String>,
}

impl fmt::Display for Degraded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.outcome {
            Outcome::Loosened => "sent loosened",
            Outcome::NotStrict => "sent with strict: false",
            Outcome::LeftOut => "left out",
        };
        write!(
            f,
            "tool `{}` {what} for {}: {}",
            self.tool,
            self.dialect,
            self.reasons.join("; ")
        )
    }
}

/// A tool rendered for one dialect: its spec (`None` when left out) and
/// what had to give.
#[derive(Clone, Debug, PartialEq)]
pub struct Described {
    /// The spec to send.
    pub spec: Option<Value>,
    /// Set when the spec is weaker than the schema, or missing.
    pub degraded: Option<Degraded>,
}

/// Renders `tool` for `dialect` within the provider's rules.
pub fn describe_tool(tool: &Tool, dialect: Dialect, options: RenderOptions) -> Described {
    let mut reasons: Vec<String> = Vec::new();
    let mut outcome = None;
    let note = |reasons: &mut Vec<String>, notes: Vec<(String, String)>| {
        reasons.extend(notes.into_iter().map(|(p, m)| at(&p, &m)));
    };
    let mut spec = match dialect {
        Dialect::OpenAi => {
            let (params, notes) = model_schema(tool);
            note(&mut reasons, notes);
            openai::chat_spec(tool, params, None)
        }
        Dialect::OpenAiStrict | Dialect::OpenAiResponses => {
            let strict = strict_schema(tool.input_schema()).map_err(|(p, m)| vec![at(&p, &m)]);
            let strict = strict.and_then(|s| {
                let v = violations(Dialect::OpenAiStrict, Some(&s), true);
                if v.is_empty() { Ok(s) } else { Err(listed(&v)) }
            });
            let (params, strict) = match strict {
                Ok(s) => (s, true),
                Err(why) => {
                    reasons.extend(why);
                    outcome = Some(Outcome::NotStrict);
                    let (params, notes) = model_schema(tool);
                    note(&mut reasons, notes);
                    (params, false)
                }
            };
            if dialect == Dialect::OpenAiStrict {
                openai::chat_spec(tool, params, Some(strict))
            } else {
                openai::responses_spec(tool, params, strict)
            }
        }
        Dialect::Anthropic => {
            let (mut params, mut notes) = model_schema(tool);
            fit::lift_root_composition(&mut params, &mut notes);
            fit::open_bad_names(&mut params, anthropic_key, true, &mut notes);
            note(&mut reasons, notes);
            anthropic::spec(tool, params)
        }
        Dialect::Gemini => {
            let (spec, notes) = gemini::spec(tool);
            note(&mut reasons, notes);
            spec
        }
        Dialect::Mcp => mcp::spec(tool),
        Dialect::Text => crate::prompt::canonical_spec(tool),
    };
    if !reasons.is_empty() && outcome.is_none() {
        outcome = Some(Outcome::Loosened);
    }
    if tool.name() == CALL_TOOL && outcome == Some(Outcome::NotStrict) {
        // The bridge's `arguments` is open by design: the named tool's own
        // schema is enforced at dispatch. Nothing to report.
        outcome = None;
    }
    let strict = spec_strict(&spec);
    let broken = violations(dialect, parameters(&spec, dialect), strict);
    if !broken.is_empty() {
        // The loosest form: any object, the schema in words.
        reasons.extend(listed(&broken));
        outcome = Some(Outcome::Loosened);
        spec = loosest(tool, dialect, spec);
        if !violations(dialect, parameters(&spec, dialect), false).is_empty() {
            return Described {
                spec: None,
                degraded: Some(Degraded {
                    tool: tool.name().to_owned(),
                    dialect,
                    outcome: Outcome::LeftOut,
                    reasons,
                }),
            };
        }
    }
    if options.examples_in_description
        && !tool.examples().is_empty()
        && !matches!(dialect, Dialect::Anthropic | Dialect::Mcp | Dialect::Text)
    {
        let described = super::description_with_examples(tool);
        match spec.get_mut("function") {
            Some(function) => function["description"] = Value::String(described),
            None => spec["description"] = Value::String(described),
        }
    }
    Described {
        spec: Some(spec),
        degraded: outcome.map(|outcome| Degraded {
            tool: tool.name().to_owned(),
            dialect,
            outcome,
            reasons,
        }),
    }
}

/// One tool in a dialect (not [`Dialect::Text`], which renders whole
/// prompts; for it this returns the canonical spec), within the provider's
/// rules (see [`describe_tool`]). Fails only for a tool left out. Use it
/// when you assemble a request's tools yourself; [`Prompt::render`](crate::prompt::Prompt)
/// does it for a whole prompt.
pub fn tool_spec(tool: &Tool, dialect: Dialect) -> Result<Value, SchemaError> {
    tool_spec_with(tool, dialect, RenderOptions::default())
}

/// [`tool_spec`] with render options (examples in the description).
pub fn tool_spec_with(
    tool: &Tool,
    dialect: Dialect,
    options: RenderOptions,
) -> Result<Value, SchemaError> {
    let described = describe_tool(tool, dialect, options);
    described.spec.ok_or_else(|| SchemaError {
        tool: tool.name().to_owned(),
        dialect,
        path: String::new(),
        message: described
            .degraded
            .map(|d| d.reasons.join("; "))
            .unwrap_or_default(),
    })
}

/// The argument schema as models read it: local `$ref`s resolved, without
/// `additionalProperties: false` (dispatch enforces closed objects), every
/// array with `items`.
pub(super) fn model_schema(tool: &Tool) -> (Value, Vec<(String, String)>) {
    let resolved = resolve_refs(tool.input_schema());
    let mut s = resolved.schema;
    drop_closed_objects(&mut s);
    fit::add_missing_items(&mut s);
    (s, resolved.notes)
}

fn at(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_owned()
    } else {
        format!("{path}: {message}")
    }
}

fn listed(v: &[Violation]) -> Vec<String> {
    v.iter().map(ToString::to_string).collect()
}

fn spec_strict(spec: &Value) -> bool {
    spec.get("function")
        .unwrap_or(spec)
        .get("strict")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Where a dialect's spec keeps the parameters.
fn parameters(spec: &Value, dialect: Dialect) -> Option<&Value> {
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => spec.get("function")?.get("parameters"),
        Dialect::OpenAiResponses | Dialect::Gemini => spec.get("parameters"),
        Dialect::Anthropic => spec.get("input_schema"),
        Dialect::Mcp | Dialect::Text => None,
    }
}

/// Any object, with the schema in the description: what every dialect
/// takes, and looser than any schema.
fn loosest(tool: &Tool, dialect: Dialect, spec: Value) -> Value {
    let description = format!(
        "{} (Arguments: a JSON object matching this JSON Schema: {})",
        tool.description(),
        preview(tool.input_schema(), 4_000)
    );
    let any = json!({"type": "object", "properties": {}});
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => {
            let mut spec = openai::chat_spec(
                tool,
                any,
                Some(false).filter(|_| dialect == Dialect::OpenAiStrict),
            );
            spec["function"]["description"] = Value::String(description);
            spec
        }
        Dialect::OpenAiResponses => {
            let mut spec = openai::responses_spec(tool, any, false);
            spec["description"] = Value::String(description);
            spec
        }
        Dialect::Anthropic => {
            let mut spec = anthropic::spec(tool, any);
            spec["description"] = Value::String(description);
            spec
        }
        Dialect::Gemini => json!({"name": tool.name(), "description": description}),
        Dialect::Mcp | Dialect::Text => spec,
    }
}
