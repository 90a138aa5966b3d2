//! Deferred text and data tools that work offline.

use base64::Engine;
use optimclaw::{ToolError, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::Digest;

use crate::clock::parse_datetime;

/// A hash algorithm.
#[derive(Debug, Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum HashAlgorithm {
    /// SHA-256.
    Sha256,
    /// SHA-512.
    Sha512,
}

/// Hash a text and return the hex digest.
#[tool(deferred, keywords = ["hash", "sha256", "sha512", "digest", "checksum", "fingerprint"], read_only)]
fn hash_text(
    /// The text.
    text: String,
    /// The algorithm.
    #[arg(default = HashAlgorithm::Sha256)]
    algorithm: HashAlgorithm,
) -> String {
    let bytes = match algorithm {
        HashAlgorithm::Sha256 => sha2::Sha256::digest(text.as_bytes()).to_vec(),
        HashAlgorithm::Sha512 => sha2::Sha512::digest(text.as_bytes()).to_vec(),
    };
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Encode text as base64.
#[tool(deferred, keywords = ["encode", "base64"], read_only)]
fn base64_encode(
    /// The text.
    text: String,
) -> String {
    base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
}

/// Decode base64 into text.
#[tool(deferred, keywords = ["decode", "base64"], read_only)]
fn base64_decode(
    /// The base64 data.
    data: String,
) -> Result<String, ToolError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| ToolError::new(format!("not valid base64: {e}")))?;
    String::from_utf8(bytes).map_err(|_| ToolError::new("the decoded bytes are not UTF-8 text"))
}

/// Generate random UUIDs (version 4).
#[tool(deferred, keywords = ["uuid", "guid", "identifier", "random", "id"], read_only)]
fn uuid_new(
    /// How many.
    #[arg(default = 1)]
    count: usize,
) -> Vec<String> {
    (0..count.clamp(1, 100))
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect()
}

/// Replace every match of a regular expression in a text (`$1` refers to groups).
#[tool(deferred, keywords = ["regex", "substitute", "replace", "swap", "rewrite", "sed"],
    examples = [{"text": "2024-05-01", "pattern": "(\\d+)-(\\d+)-(\\d+)", "replacement": "$3.$2.$1"}], read_only)]
fn regex_replace(
    /// The text.
    text: String,
    /// The regular expression.
    pattern: String,
    /// The replacement.
    replacement: String,
) -> Result<String, ToolError> {
    let re =
        regex::Regex::new(&pattern).map_err(|e| ToolError::new(format!("invalid regex: {e}")))?;
    Ok(re.replace_all(&text, replacement.as_str()).into_owned())
}

/// Find every match of a regular expression in a text, with capture groups.
#[tool(deferred, keywords = ["regex", "match", "extract", "capture", "pull out", "occurrences"],
    examples = [{"text": "alice@example.com, bob@example.org", "pattern": "(\\w+)@(\\w+)\\.\\w+"}], read_only)]
fn regex_find(
    /// The text.
    text: String,
    /// The regular expression.
    pattern: String,
) -> Result<Vec<Value>, ToolError> {
    let re =
        regex::Regex::new(&pattern).map_err(|e| ToolError::new(format!("invalid regex: {e}")))?;
    Ok(re
        .captures_iter(&text)
        .take(1000)
        .map(|c| {
            let groups: Vec<Option<&str>> =
                c.iter().skip(1).map(|g| g.map(|m| m.as_str())).collect();
            json!({"match": &c[0], "start": c.get(0).map(|m| m.start()), "groups": groups})
        })
        .collect())
}

/// Count the characters, words and lines of a text.
#[tool(deferred, keywords = ["count", "length", "words", "characters", "lines", "statistics"], read_only)]
fn word_count(
    /// The text.
    text: String,
) -> Value {
    json!({"characters": text.chars().count(), "words": text.split_whitespace().count(), "lines": text.lines().count(), "bytes": text.len()})
}

/// Evaluate arithmetic, e.g. `(3 + 4) * 2 ^ 3` (a power) or `math::sqrt(2)` (a square root).
#[tool(deferred, keywords = ["math", "arithmetic", "calculator", "compute", "evaluate",
    "plus", "minus", "times", "multiply", "divide", "sum", "percent"],
    examples = [{"expression": "(3 + 4) * 2.5"}], read_only)]
fn calculate(
    /// The expression.
    expression: String,
) -> Result<Value, ToolError> {
    let value = evalexpr::eval(&expression)
        .map_err(|e| ToolError::new(format!("cannot evaluate {expression:?}: {e}")))?;
    Ok(match value {
        evalexpr::Value::Int(i) => json!(i),
        evalexpr::Value::Float(f) => json!(f),
        evalexpr::Value::Boolean(b) => json!(b),
        other => json!(other.to_string()),
    })
}

/// Convert CSV text (first row is the header) into a list of JSON objects.
#[tool(deferred, keywords = ["csv", "table", "spreadsheet", "parse", "convert"],
    examples = [{"csv": "name,age\nAda,36\nAlan,41"}, {"csv": "name;age\nAda;36", "delimiter": ";"}], read_only)]
fn csv_to_json(
    /// The CSV text.
    csv: String,
    /// The field separator.
    #[arg(default = String::from(","))]
    delimiter: String,
) -> Result<Vec<Value>, ToolError> {
    let delim = match delimiter.as_bytes() {
        [b] => *b,
        _ => return Err(ToolError::new("the delimiter must be one ASCII character")),
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delim)
        .from_reader(csv.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| ToolError::new(format!("invalid CSV header: {e}")))?
        .clone();
    let mut out = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record =
            record.map_err(|e| ToolError::new(format!("invalid CSV at record {}: {e}", i + 1)))?;
        let obj: serde_json::Map<String, Value> = headers
            .iter()
            .zip(record.iter())
            .map(|(h, v)| (h.to_owned(), json!(v)))
            .collect();
        out.push(Value::Object(obj));
    }
    Ok(out)
}

/// Split a URL into its parts (scheme, host, port, path, query parameters).
#[tool(deferred, keywords = ["url", "link", "parse", "query string", "domain", "host"], read_only)]
fn url_parse(
    /// The URL.
    url: String,
) -> Result<Value, ToolError> {
    let u = url::Url::parse(&url).map_err(|e| ToolError::new(format!("invalid URL: {e}")))?;
    let query: Vec<(String, String)> = u
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    Ok(
        json!({"scheme": u.scheme(), "host": u.host_str(), "port": u.port_or_known_default(), "path": u.path(), "query": query, "fragment": u.fragment()}),
    )
}

/// The time between two dates or date-times, in days, hours and seconds.
#[tool(deferred, keywords = ["date", "difference", "duration", "days between", "since", "until", "ago", "calendar"], read_only)]
fn date_diff(
    /// The start (ISO 8601).
    start: String,
    /// The end (ISO 8601).
    end: String,
) -> Result<Value, ToolError> {
    let a = parse_datetime(&start)?;
    let b = parse_datetime(&end)?;
    let secs = b.timestamp().as_second() - a.timestamp().as_second();
    Ok(json!({"seconds": secs, "hours": secs as f64 / 3600.0, "days": secs as f64 / 86_400.0}))
}

/// Add a duration to a date-time, e.g. `P1DT2H`, `3 days`, `-2h 30m`.
#[tool(deferred, keywords = ["date", "add", "later", "deadline", "future", "calendar"],
    examples = [{"datetime": "2026-01-31T09:00:00Z", "duration": "1 month 2 days"}], read_only)]
fn date_add(
    /// The date or date-time (ISO 8601).
    datetime: String,
    /// The duration (ISO 8601 like `P1DT2H`, or friendly like `3 days 4 hours`).
    duration: String,
) -> Result<String, ToolError> {
    let z = parse_datetime(&datetime)?;
    let span: jiff::Span = duration
        .trim()
        .parse()
        .map_err(|e| ToolError::new(format!("cannot read {duration:?} as a duration: {e}")))?;
    z.checked_add(span)
        .map(|r| r.to_string())
        .map_err(|e| ToolError::new(format!("out of range: {e}")))
}

/// Convert a date-time into another IANA time zone.
#[tool(deferred, keywords = ["timezone", "convert", "time zone", "clock", "utc", "local time", "city"],
    examples = [{"datetime": "2026-03-01T12:00:00Z", "to": "Asia/Tokyo"}], read_only)]
fn timezone_convert(
    /// The date-time (ISO 8601; with an offset or zone, else UTC).
    datetime: String,
    /// The target zone, e.g. "Asia/Tokyo".
    to: String,
) -> Result<String, ToolError> {
    let z = parse_datetime(&datetime)?;
    let tz = jiff::tz::TimeZone::get(to.trim())
        .map_err(|_| ToolError::new(format!("unknown time zone {to:?}")))?;
    Ok(z.with_time_zone(tz).to_string())
}

/// Show the differences between two texts as a unified diff.
#[tool(deferred, keywords = ["diff", "compare", "changes", "changed", "difference", "versions"], read_only)]
fn text_diff(
    /// The original text.
    original: String,
    /// The changed text.
    modified: String,
) -> String {
    diffy::create_patch(&original, &modified).to_string()
}
