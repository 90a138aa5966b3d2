//! Dynamic tools from a JSON file in the shape of an MCP `tools/list`
//! result: `{"tools": [{"name", "description", "inputSchema"}]}`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::descriptor::ToolKind;
use crate::schema::check_instance;
pub use crate::tool::{ASKS_META_KEY, asks_in_entry, examples_in_entry};
use crate::tool::{DynamicTool, is_valid_tool_name};

/// How manifest tools are imported. Use a manifest to describe tools a
/// program can call but does not define in Rust (another service's API),
/// so that they are listed and found like the others.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ManifestOptions {
    /// Replace characters outside `[A-Za-z0-9_-]` with `_` and cut names to
    /// 64 characters, instead of rejecting such names.
    pub sanitize_names: bool,
    /// Core or deferred (the default).
    pub kind: ToolKind,
    /// Descriptions longer than this many characters are cut (a manifest
    /// is not trusted to fill the prompt).
    pub max_description_chars: usize,
}

impl ManifestOptions {
    /// Sets [`sanitize_names`](Self::sanitize_names).
    #[must_use]
    pub fn with_sanitize_names(mut self, sanitize_names: bool) -> Self {
        self.sanitize_names = sanitize_names;
        self
    }

    /// Sets [`kind`](Self::kind).
    #[must_use]
    pub fn with_kind(mut self, kind: ToolKind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets [`max_description_chars`](Self::max_description_chars).
    #[must_use]
    pub fn with_max_description_chars(mut self, max_description_chars: usize) -> Self {
        self.max_description_chars = max_description_chars;
        self
    }
}

impl Default for ManifestOptions {
    fn default() -> Self {
        ManifestOptions {
            sanitize_names: false,
            kind: ToolKind::Deferred,
            max_description_chars: 2_048,
        }
    }
}

/// Why a manifest could not be imported; the text names the file, the
/// tool and the field, for the user to fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The file could not be read.
    #[error("cannot read manifest {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("manifest {origin} is not valid JSON: {source}")]
    Json {
        /// Where the text came from.
        origin: String,
        /// The parser's error (with line and column).
        source: serde_json::Error,
    },
    /// The JSON is not a valid manifest; every problem is listed.
    #[error("manifest {origin} has {} problem(s):{}", problems.len(), bullets(problems))]
    Invalid {
        /// Where the text came from.
        origin: String,
        /// One line per problem.
        problems: Vec<String>,
    },
}

/// `\n  - problem` for each problem.
fn bullets(problems: &[String]) -> String {
    problems.iter().map(|p| format!("\n  - {p}")).collect()
}

/// Makes a name legal: characters outside `[A-Za-z0-9_-]` become `_`, and
/// the result is cut to 64 characters.
pub fn sanitize_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub fn cap_description(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Reads a manifest file. Tools have no handler: they can be searched and
/// loaded, and answer a call with a "not callable here" error until one is
/// attached. Use it to measure or test lazy loading on another program's
/// catalog (an MCP server's saved `tools/list`) without running it.
pub fn load_manifest(
    path: &Path,
    options: &ManifestOptions,
) -> Result<Vec<DynamicTool>, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_manifest(&text, &format!("manifest {}", path.display()), options)
}

/// Parses a manifest; `origin` names it in errors and in each tool's origin.
pub fn parse_manifest(
    text: &str,
    origin: &str,
    options: &ManifestOptions,
) -> Result<Vec<DynamicTool>, ManifestError> {
    let value: Value = serde_json::from_str(text).map_err(|source| ManifestError::Json {
        origin: origin.to_owned(),
        source,
    })?;
    let invalid = |problems| ManifestError::Invalid {
        origin: origin.to_owned(),
        problems,
    };
    let Some(list) = value.get("tools").and_then(Value::as_array) else {
        return Err(invalid(vec![
            "expected an object with a \"tools\" array, as an MCP tools/list result".to_owned(),
        ]));
    };
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    let mut tools = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let Some(entry) = entry.as_object() else {
            problems.push(format!("tools[{i}] is not an object"));
            continue;
        };
        let Some(raw_name) = entry.get("name").and_then(Value::as_str) else {
            problems.push(format!("tools[{i}] has no \"name\" string"));
            continue;
        };
        let shown: String = raw_name
            .chars()
            .take(80)
            .flat_map(char::escape_debug)
            .collect();
        let name = if is_valid_tool_name(raw_name) {
            raw_name.to_owned()
        } else if options.sanitize_names && !sanitize_name(raw_name).trim_matches('_').is_empty() {
            sanitize_name(raw_name)
        } else {
            problems.push(format!(
                "tools[{i}]: invalid tool name \"{shown}\"{}: names must match ^[a-zA-Z0-9_-]{{1,64}}$",
                if raw_name.chars().count() > 80 { "…" } else { "" }
            ));
            continue;
        };
        if !seen.insert(name.clone()) {
            problems.push(format!("tools[{i}]: duplicate tool name \"{name}\""));
            continue;
        }
        let schema = match entry.get("inputSchema") {
            None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
            Some(s @ Value::Object(map))
                if map
                    .get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|t| t == "object") =>
            {
                let mut s = s.clone();
                if let Value::Object(m) = &mut s {
                    m.entry("type").or_insert_with(|| json!("object"));
                    m.entry("properties")
                        .or_insert_with(|| Value::Object(Map::new()));
                }
                s
            }
            Some(_) => {
                problems.push(format!(
                    "tools[{i}] (\"{name}\"): \"inputSchema\" must be an object schema"
                ));
                continue;
            }
        };
        let examples = examples_in_entry(entry);
        for (n, example) in examples.iter().enumerate() {
            if let Err((path, message)) = check_instance(example, &schema) {
                problems.push(format!(
                    "tools[{i}] (\"{name}\"): example {} is not a valid call{}: {message}",
                    n + 1,
                    if path.is_empty() {
                        String::new()
                    } else {
                        format!(" at `{path}`")
                    }
                ));
            }
        }
        let description = entry
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut tool = DynamicTool::new(
            name,
            cap_description(description.trim(), options.max_description_chars),
            schema,
        )
        .kind(options.kind)
        .origin(origin);
        if let Some(out) = entry.get("outputSchema").filter(|o| o.is_object()) {
            tool = tool.output_schema(out.clone());
        }
        tools.push(tool.examples(examples).asks(asks_in_entry(entry)));
    }
    if problems.is_empty() {
        Ok(tools)
    } else {
        Err(invalid(problems))
    }
}
