//! Errors a model can act on, and errors of registry construction.

use std::fmt;

use serde_json::{Value, json};

/// What went wrong in a tool call. Match on it to decide what to do with
/// an error (retry a [`Timeout`](Self::Timeout), show a
/// [`Failed`](Self::Failed) to the model); its [`as_str`](Self::as_str) is
/// the `kind` of the JSON a model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// No tool has the requested name.
    UnknownTool,
    /// The arguments did not match the tool's schema.
    InvalidArguments,
    /// The tool ran and reported an error of its own.
    Failed,
    /// The tool panicked; the panic was caught.
    Panicked,
    /// The call took longer than its time limit.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The tool is known (e.g. from a manifest) but has no handler here.
    NotCallable,
}

impl ToolErrorKind {
    /// A stable snake_case name, used in JSON error payloads.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "unknown_tool",
            Self::InvalidArguments => "invalid_arguments",
            Self::Failed => "failed",
            Self::Panicked => "panicked",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::NotCallable => "not_callable",
        }
    }
}

/// The error of a tool call. Its `Display` text is written for the model:
/// it says what was wrong and, where it can, what was expected.
///
/// A tool returns `Result<T, E>` with any `E: Display`; return a `ToolError`
/// itself when the model should get a particular [`kind`](Self::kind) or
/// structured [`data`](Self::data) to act on.
///
/// ```
/// use optimclaw::{ToolError, ToolErrorKind};
/// use serde_json::json;
///
/// fn withdraw(balance: u64, amount: u64) -> Result<u64, ToolError> {
///     balance.checked_sub(amount).ok_or_else(|| {
///         ToolError::new(format!("amount {amount} is over the balance"))
///             .with_data(json!({"balance": balance}))
///     })
/// }
/// let err = withdraw(10, 25).unwrap_err();
/// assert_eq!(err.kind(), ToolErrorKind::Failed);
/// assert_eq!(err.to_json()["error"]["data"]["balance"], 10);
/// ```
#[derive(Clone, Debug)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    /// Boxed so a `Result<_, ToolError>` stays small whatever features
    /// make `Value` larger (serde_json's `preserve_order`, which rig turns on).
    data: Option<Box<Value>>,
    /// Set on argument errors made before the tool name is known (by a
    /// linked tool's decoder): where serde stopped, and the arguments, so
    /// the registry can name the tool and list every problem.
    pending: Option<Box<Pending>>,
    /// The error that caused it ([`ToolError::from_error`]).
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

#[derive(Clone, Debug)]
struct Pending {
    path: String,
    args: Value,
}

impl ToolError {
    /// An error reported by a tool itself.
    pub fn new(message: impl fmt::Display) -> Self {
        Self::with_kind(ToolErrorKind::Failed, message)
    }

    /// An error of the given kind.
    pub fn with_kind(kind: ToolErrorKind, message: impl fmt::Display) -> Self {
        ToolError {
            kind,
            message: message.to_string(),
            data: None,
            pending: None,
            source: None,
        }
    }

    /// A tool's failure caused by `err`: its text is the message, and
    /// [`source`](std::error::Error::source) gives `err` back (for logs and
    /// error reports; the model sees the text).
    ///
    /// ```
    /// use optimclaw::ToolError;
    /// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "notes.txt is missing");
    /// let err = ToolError::from_error(io);
    /// assert_eq!(err.to_string(), "notes.txt is missing");
    /// let cause = std::error::Error::source(&err).unwrap();
    /// assert!(cause.downcast_ref::<std::io::Error>().is_some());
    /// ```
    pub fn from_error(err: impl std::error::Error + Send + Sync + 'static) -> Self {
        let mut out = Self::new(&err);
        out.source = Some(std::sync::Arc::new(err));
        out
    }

    /// An argument error whose tool name is filled in by the registry;
    /// `args` are the arguments that failed to decode.
    pub(crate) fn decoding(path: String, detail: impl fmt::Display, args: Value) -> Self {
        let mut err = Self::with_kind(
            ToolErrorKind::InvalidArguments,
            json_terms(&detail.to_string()),
        );
        err.pending = Some(Box::new(Pending { path, args }));
        err
    }

    /// The same error with its message (and the strings of its data)
    /// passed through `filter`.
    pub(crate) fn map_texts(mut self, filter: impl Fn(&str) -> Option<String>) -> Self {
        if let Some(new) = filter(&self.message) {
            self.message = new;
        }
        if let Some(data) = &mut self.data {
            let text = data.to_string();
            if let Some(new) = filter(&text) {
                self.data = Some(Box::new(
                    serde_json::from_str(&new).unwrap_or(Value::String(new)),
                ));
            }
        }
        self
    }

    /// Names the tool in an argument error made by [`decoding`](Self::decoding),
    /// listing every problem the arguments have against `schema` when there
    /// are several (the decoder stops at the first); with one, or none the
    /// schema can see, the decoder's own message stands.
    pub(crate) fn in_tool(self, tool: &str, schema: &Value) -> Self {
        let Some(pending) = self.pending else {
            return self;
        };
        let (problems, more) = crate::schema::argument_problems(&pending.args, schema);
        // One problem: the decoder's own words (they quote the value).
        let mut err = if problems.len() + more <= 1 {
            Self::invalid_arguments(tool, &pending.path, &self.message)
        } else {
            Self::invalid_arguments_all(tool, &problems, more)
        };
        if let Some(data) = self.data {
            err.data = Some(data);
        }
        err
    }

    /// Invalid arguments for `tool`: every problem found (`more` beyond
    /// those listed), in the message and as `data.problems`.
    pub(crate) fn invalid_arguments_all(
        tool: &str,
        problems: &[crate::schema::ArgumentProblem],
        more: usize,
    ) -> Self {
        let mut err = match problems {
            [one] if more == 0 => Self::invalid_arguments(tool, &one.path, &one.message),
            _ => {
                let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
                let rest = if more == 0 {
                    String::new()
                } else {
                    format!("; and {more} more")
                };
                Self::with_kind(
                    ToolErrorKind::InvalidArguments,
                    format!(
                        "invalid arguments for tool `{tool}`, {} problems: {}{rest}",
                        problems.len() + more,
                        listed.join("; ")
                    ),
                )
            }
        };
        let listed: Vec<Value> = problems
            .iter()
            .map(|p| json!({"path": p.path, "message": p.message}))
            .collect();
        err.data = Some(Box::new(json!({ "problems": listed })));
        err
    }

    /// Unknown tool name, listing the nearest known names. With none, the
    /// message names both ways on: search for a tool, or answer without
    /// one (a small model asked a question no tool serves makes a tool up,
    /// `spider({"legs": 8})`, and tries it again when told only to search).
    pub fn unknown_tool(name: &str, nearest: &[&str]) -> Self {
        let shown: String = name.chars().flat_map(char::escape_debug).take(80).collect();
        let mut message = format!("unknown tool \"{shown}\"");
        if nearest.is_empty() {
            message.push_str(
                "; call tool_info with keywords to find the tool you need, or answer in words if no tool is needed",
            );
        } else {
            message.push_str("; did you mean ");
            message.push_str(&nearest.join(", "));
            message.push('?');
        }
        Self::with_kind(ToolErrorKind::UnknownTool, message)
    }

    /// Invalid arguments for `tool`, at JSON `path` (empty for the root).
    pub fn invalid_arguments(tool: &str, path: &str, detail: impl fmt::Display) -> Self {
        let at = if path.is_empty() || path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        Self::with_kind(
            ToolErrorKind::InvalidArguments,
            format!("invalid arguments for tool `{tool}`{at}: {detail}"),
        )
    }

    /// Attaches structured data (e.g. the tool's schema) for the model.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(Box::new(data));
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The text for the model.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Structured data attached to the error, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_deref()
    }

    /// The error as the JSON a model sees as the tool's result.
    pub fn to_json(&self) -> Value {
        let mut err = json!({ "kind": self.kind.as_str(), "message": self.message });
        if let Some(data) = &self.data {
            err["data"] = Value::clone(data);
        }
        json!({ "error": err })
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<std::convert::Infallible> for ToolError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(err: std::io::Error) -> Self {
        Self::from_error(err)
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(err: serde_json::Error) -> Self {
        Self::from_error(err)
    }
}

/// Why a [`Registry`](crate::Registry) could not be built: every problem
/// found, not just the first. Print it (each problem names the tool and
/// where it was defined) and fix the tools; it is never worth retrying.
#[derive(Clone, Debug)]
pub struct RegistryError {
    problems: Vec<String>,
    /// The embedder's error, when embedding the tools failed.
    source: Option<EmbedError>,
}

impl RegistryError {
    pub(crate) fn new(problems: Vec<String>) -> Self {
        RegistryError {
            problems,
            source: None,
        }
    }

    pub(crate) fn embedding(err: EmbedError) -> Self {
        RegistryError {
            problems: vec![format!(
                "vector search: the deferred tools could not be embedded: {err}"
            )],
            source: Some(err),
        }
    }

    /// One line per problem.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool registry has {} problem{}:",
            self.problems.len(),
            if self.problems.len() == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RegistryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The causes of `err` (its [`source`](std::error::Error::source) chain,
/// not `err` itself), each as `": cause"`: what to append to a message
/// that describes `err` in its own words. For an HTTP client's error, whose
/// own text names the URL (and so a key in its query), that is the way to
/// tell what failed without leaking it.
///
/// ```
/// let io = std::io::Error::other("connection reset");
/// let err = optimclaw::ToolError::from_error(io);
/// assert_eq!(optimclaw::error_causes(&err), ": connection reset");
/// ```
pub fn error_causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = String::new();
    let mut cause = err.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

/// A decoder's message in JSON's words: the model never wrote Rust, so
/// "expected usize" becomes "expected an integer ≥ 0" and "a sequence" an
/// array.
fn json_terms(message: &str) -> String {
    // Longest names first, so `u8` does not cut `u128`.
    const WORDS: &[(&str, &str)] = &[
        ("expected usize", "expected an integer ≥ 0"),
        ("expected u128", "expected an integer ≥ 0"),
        ("expected u64", "expected an integer ≥ 0"),
        ("expected u32", "expected an integer from 0 to 4294967295"),
        ("expected u16", "expected an integer from 0 to 65535"),
        ("expected u8", "expected an integer from 0 to 255"),
        ("expected isize", "expected an integer"),
        ("expected i128", "expected an integer"),
        ("expected i64", "expected an integer"),
        (
            "expected i32",
            "expected an integer from -2147483648 to 2147483647",
        ),
        ("expected i16", "expected an integer from -32768 to 32767"),
        ("expected i8", "expected an integer from -128 to 127"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a borrowed string", "expected a string"),
        ("expected a character", "expected a string of one character"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
        ("expected unit", "expected null"),
        ("invalid type: sequence", "invalid type: array"),
        ("invalid type: map", "invalid type: object"),
        ("invalid type: floating point", "invalid type: number"),
        ("invalid type: integer", "invalid type: number"),
        ("invalid type: unit value", "invalid type: null"),
        ("invalid value: integer", "invalid value: number"),
        ("invalid value: floating point", "invalid value: number"),
    ];
    let mut out = message.to_owned();
    for (rust, json) in WORDS {
        out = out.replace(rust, json);
    }
    // `expected struct Due` (a nested argument type): an object.
    if let Some(at) = out.find("expected struct ") {
        let end = out[at + 16..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(out.len(), |e| at + 16 + e);
        out.replace_range(at..end, "expected an object");
    }
    out
}

#[cfg(test)]
mod json_terms_tests {
    use super::json_terms;

    #[test]
    fn rust_type_names_become_json_terms() {
        assert_eq!(
            json_terms("invalid type: string \"x\", expected usize"),
            "invalid type: string \"x\", expected an integer ≥ 0"
        );
        assert_eq!(
            json_terms("invalid value: integer `300`, expected u8"),
            "invalid value: number `300`, expected an integer from 0 to 255"
        );
        assert_eq!(
            json_terms("invalid type: map, expected a sequence"),
            "invalid type: object, expected an array"
        );
        assert_eq!(
            json_terms("invalid type: string \"soon\", expected struct Due"),
            "invalid type: string \"soon\", expected an object"
        );
        assert_eq!(
            json_terms("invalid type: floating point `1.5`, expected i64"),
            "invalid type: number `1.5`, expected an integer"
        );
        assert_eq!(json_terms("missing field `text`"), "missing field `text`");
    }
}

/// Why embedding failed: return it from `optimclaw::embed::Embedder::embed`
/// with a message that says what to do (a missing file, an endpoint that refused). At
/// build it fails the registry; for a query `tool_info` falls back to
/// keywords and reports it.
///
/// Its text is complete on its own; [`source`](std::error::Error::source)
/// gives the cause when there is one (an I/O or HTTP error).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct EmbedError {
    message: String,
    #[source]
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl EmbedError {
    /// An error with a message saying what went wrong and what to do.
    pub fn new(message: impl Into<String>) -> Self {
        EmbedError {
            message: message.into(),
            source: None,
        }
    }

    /// An error with a message and the error that caused it (the message
    /// should include the cause's text: it is what users and models see).
    pub fn with_source(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        EmbedError {
            message: message.into(),
            source: Some(std::sync::Arc::new(source)),
        }
    }
}
