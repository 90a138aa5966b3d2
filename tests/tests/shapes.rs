//! The pass-suite: one tool per supported shape. For each, the generated
//! schema is compared with a committed snapshot and a call goes through the
//! registry by name. Run with `--features linkme` for the other backend.

use std::collections::HashMap;
use std::fmt;

use optimclaw::{Registry, ToolContext, ToolError, ToolErrorKind, ToolKind, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Report the server's health.
#[tool(core)]
fn no_args() -> &'static str {
    "ok"
}

/// Return the text it is given.
#[tool(keywords = ["repeat", "say"])]
fn one_arg(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// Greet someone, by title when one is given.
#[tool]
fn optional_arg(
    /// The person's name.
    name: String,
    /// A title such as "Dr"; omitted when absent.
    title: Option<String>,
) -> String {
    match title {
        Some(t) => format!("Hello, {t} {name}"),
        None => format!("Hello, {name}"),
    }
}

/// Create a background job.
#[tool(deferred, keywords = ["background", "schedule", "task"])]
fn with_defaults(
    /// What the job should do.
    prompt: String,
    /// 1 is most urgent, 10 least.
    #[arg(default = 5)]
    priority: u8,
    /// Give up after this many seconds.
    #[arg(default = 300)]
    timeout_secs: u64,
    /// Labels for the job.
    #[arg(default)]
    labels: Vec<String>,
) -> Value {
    json!({ "prompt": prompt, "priority": priority, "timeout_secs": timeout_secs, "labels": labels })
}

/// Join words with a separator.
#[tool]
fn vec_arg(
    /// The words to join.
    words: Vec<String>,
    /// Put between words.
    #[arg(default = String::from(" "))]
    separator: String,
) -> String {
    words.join(&separator)
}

/// Sum the values of a map.
#[tool]
fn map_arg(
    /// Named amounts.
    amounts: HashMap<String, i64>,
) -> i64 {
    amounts.values().sum()
}

/// A point on a plane.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Point {
    /// Horizontal position.
    x: f64,
    /// Vertical position.
    y: f64,
}

/// A segment between two points.
#[derive(Deserialize, JsonSchema)]
struct Segment {
    /// Where it starts.
    from: Point,
    /// Where it ends.
    to: Point,
}

/// Measure the length of a segment.
#[tool]
fn nested_struct(
    /// The segment to measure.
    segment: Segment,
) -> f64 {
    let (dx, dy) = (segment.to.x - segment.from.x, segment.to.y - segment.from.y);
    (dx * dx + dy * dy).sqrt()
}

/// A colour without data.
#[derive(Deserialize, JsonSchema, Debug)]
#[serde(rename_all = "snake_case")]
enum Colour {
    /// Like blood.
    Red,
    /// Like grass.
    Green,
    /// Like the sky.
    Blue,
}

/// Name the hex code of a colour.
#[tool]
fn unit_enum(
    /// The colour.
    colour: Colour,
) -> &'static str {
    match colour {
        Colour::Red => "#ff0000",
        Colour::Green => "#00ff00",
        Colour::Blue => "#0000ff",
    }
}

/// A shape with its measures.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A rectangle.
    Rectangle {
        /// Its width.
        width: f64,
        /// Its height.
        height: f64,
    },
}

/// Compute the area of a shape.
#[tool]
fn data_enum(
    /// The shape.
    shape: Shape,
) -> f64 {
    match shape {
        Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
        Shape::Rectangle { width, height } => width * height,
    }
}

/// Contact details, named in camelCase on the wire.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Contact {
    /// Given name.
    first_name: String,
    /// Family name.
    last_name: String,
    /// Where to write.
    #[serde(rename = "email")]
    mail_address: Option<String>,
}

/// Format a contact as one line.
#[tool]
fn serde_renames(
    /// Who.
    contact: Contact,
) -> String {
    match contact.mail_address {
        Some(mail) => format!("{} {} <{mail}>", contact.first_name, contact.last_name),
        None => format!("{} {}", contact.first_name, contact.last_name),
    }
}

/// Describe numbers and a flag.
#[tool]
fn scalars(
    /// A small unsigned integer.
    small: u8,
    /// A signed integer.
    signed: i32,
    /// A float.
    ratio: f64,
    /// A flag.
    flag: bool,
) -> Value {
    json!([small, signed, ratio, flag])
}

/// Why a division failed.
#[derive(Debug)]
enum DivError {
    ByZero,
}

impl fmt::Display for DivError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DivError::ByZero => f.write_str("cannot divide by zero; pass a non-zero divisor"),
        }
    }
}

/// Divide two integers.
#[tool]
fn custom_error(
    /// The dividend.
    a: i64,
    /// The divisor (not zero).
    b: i64,
) -> Result<i64, DivError> {
    if b == 0 {
        return Err(DivError::ByZero);
    }
    Ok(a / b)
}

/// A `std::error::Error` of the tool's own.
#[derive(Debug)]
struct BadNumber(std::num::ParseIntError);

impl fmt::Display for BadNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a whole number: {}", self.0)
    }
}

impl std::error::Error for BadNumber {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// Parse a whole number.
#[tool]
fn std_error(
    /// The text.
    text: String,
) -> Result<i64, BadNumber> {
    text.trim().parse().map_err(BadNumber)
}

/// An error type that converts into `ToolError`.
struct NotFound(String);

impl From<NotFound> for ToolError {
    fn from(e: NotFound) -> Self {
        ToolError::new(format!("no entry named \"{}\"", e.0))
    }
}

/// Look up an entry.
#[tool]
fn into_tool_error(
    /// The entry's name.
    key: String,
) -> Result<u32, NotFound> {
    if key == "answer" {
        Ok(42)
    } else {
        Err(NotFound(key))
    }
}

/// Wait a little, then answer.
#[tool]
async fn async_await(
    /// Milliseconds to wait.
    millis: u64,
) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    format!("waited {millis} ms")
}

/// A counter shared by tools.
struct Counter(std::sync::atomic::AtomicU64);

/// Increment the shared counter.
#[tool(core)]
async fn with_context(
    ctx: &ToolContext,
    /// How much to add.
    #[arg(default = 1)]
    by: u64,
) -> Result<u64, ToolError> {
    let counter = ctx.require::<Counter>()?;
    Ok(counter.0.fetch_add(by, std::sync::atomic::Ordering::SeqCst) + by)
}

/// The result of a search.
#[derive(Serialize, JsonSchema)]
struct SearchResult {
    /// Matching lines.
    hits: Vec<String>,
    /// How many lines were searched.
    scanned: usize,
}

/// Find lines containing a word.
#[tool]
fn output_schema(
    /// Text to search, one entry per line.
    text: String,
    /// The word to find.
    word: String,
) -> SearchResult {
    let hits: Vec<String> = text
        .lines()
        .filter(|l| l.contains(&word))
        .map(str::to_owned)
        .collect();
    SearchResult {
        hits,
        scanned: text.lines().count(),
    }
}

/// Check that a file name has no path separator.
#[tool]
fn io_result(
    /// A file name.
    file_name: String,
) -> std::io::Result<bool> {
    if file_name.contains('/') {
        return Err(std::io::Error::other("a file name cannot contain `/`"));
    }
    Ok(true)
}

/// Send an event; returns nothing.
#[tool]
fn unit_return(
    /// The event's type.
    r#type: String,
    /// The payload.
    #[arg(rename = "data")]
    payload: Value,
) {
    let _ = (r#type, payload);
}

#[tool(
    name = "renamed-tool",
    description = "A tool whose name and description are set in the attribute."
)]
fn attribute_overrides() -> u8 {
    7
}

/// Schedule a reminder.
#[tool(
    deferred,
    keywords = ["remind", "alarm"],
    examples = [
        {"text": "Stand-up meeting", "minutes": 15},
        {text: "Call the dentist", "minutes": 90, "channel": "email", "tags": ["health"]},
    ]
)]
fn with_examples(
    /// What to be reminded of.
    text: String,
    /// In how many minutes.
    minutes: u32,
    /// Where the reminder goes.
    channel: Option<String>,
    /// Labels.
    #[arg(default)]
    tags: Vec<String>,
) -> String {
    format!(
        "{text} in {minutes} min via {} {tags:?}",
        channel.unwrap_or_else(|| "chat".into())
    )
}

/// Paging shared by several queries, flattened into them.
#[derive(Deserialize, JsonSchema)]
struct Paging {
    /// Results per page.
    limit: Option<u32>,
    /// Where to start.
    cursor: Option<String>,
}

/// A query with flattened paging.
#[derive(Deserialize, JsonSchema)]
struct PagedQuery {
    /// What to look for.
    text: String,
    #[serde(flatten)]
    paging: Paging,
}

/// Search with paging.
#[tool]
fn flattened(
    /// The query.
    query: PagedQuery,
) -> String {
    format!(
        "{} limit={:?} cursor={:?}",
        query.text, query.paging.limit, query.paging.cursor
    )
}

/// Change a reminder; a field left out stays, a null clears it.
#[tool]
fn double_option(
    /// Minutes before the event; null clears the reminder.
    minutes: Option<Option<u32>>,
) -> String {
    format!("{minutes:?}")
}

/// A user by number or by name.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum UserRef {
    /// The user's number.
    Id(u64),
    /// The user's name.
    Name(String),
}

/// A position as a pair.
#[tool]
fn tuples_and_untagged(
    /// Who.
    user: UserRef,
    /// Row and column.
    cell: (u32, u32),
    /// Distinct labels.
    labels: std::collections::BTreeSet<String>,
) -> String {
    let who = match user {
        UserRef::Id(n) => n.to_string(),
        UserRef::Name(s) => s,
    };
    format!("{who} {cell:?} {labels:?}")
}

const SHAPES: &[&str] = &[
    "no_args",
    "one_arg",
    "optional_arg",
    "with_defaults",
    "vec_arg",
    "map_arg",
    "nested_struct",
    "unit_enum",
    "data_enum",
    "serde_renames",
    "scalars",
    "custom_error",
    "into_tool_error",
    "async_await",
    "with_context",
    "output_schema",
    "io_result",
    "unit_return",
    "renamed-tool",
    "with_examples",
    "flattened",
    "double_option",
    "tuples_and_untagged",
];

/// `value` with its object keys sorted, as the snapshots store them: the
/// wrappers built here and by the dialects follow insertion order when a
/// crate in the build turns on serde_json's `preserve_order` (rig-core does).
fn sorted(mut value: Value) -> Value {
    optimclaw::schema::sort_keys(&mut value);
    value
}

fn registry() -> Registry {
    Registry::from_linked().expect("the pass-suite tools are valid")
}

#[test]
fn every_shape_matches_its_schema_snapshot() {
    let registry = registry();
    for name in SHAPES {
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} is registered"));
        let view = json!({
            "name": tool.name(),
            "description": tool.description(),
            "kind": format!("{:?}", tool.kind()),
            "keywords": tool.keywords(),
            "input_schema": tool.input_schema(),
            "output_schema": tool.output_schema(),
        });
        insta::assert_json_snapshot!(*name, sorted(view));
    }
}

#[test]
fn no_schema_has_meta_noise() {
    for tool in registry().tools() {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        assert!(
            schema.get("properties").is_some_and(Value::is_object),
            "{}",
            tool.name()
        );
        assert!(schema.get("$schema").is_none(), "{}", tool.name());
        assert!(schema.get("title").is_none(), "{}", tool.name());
        assert!(
            !schema.to_string().contains("\"format\":\"uint"),
            "{}",
            tool.name()
        );
    }
}

#[test]
fn kinds_and_keywords_come_from_the_attribute() {
    let registry = registry();
    assert_eq!(registry.get("no_args").unwrap().kind(), ToolKind::Core);
    assert_eq!(registry.get("one_arg").unwrap().kind(), ToolKind::Deferred);
    assert_eq!(
        registry.get("with_defaults").unwrap().kind(),
        ToolKind::Deferred
    );
    assert_eq!(
        registry.get("with_defaults").unwrap().keywords(),
        ["background", "schedule", "task"]
    );
    assert!(registry.get("attribute_overrides").is_none());
}

#[test]
fn tool_functions_stay_plain_functions() {
    assert_eq!(one_arg("hi".into()), "hi");
    assert_eq!(custom_error(6, 3).unwrap(), 2);
    assert_eq!(attribute_overrides(), 7);
}

async fn call(name: &str, args: Value) -> Result<Value, ToolError> {
    let ctx = ToolContext::new().with(Counter(std::sync::atomic::AtomicU64::new(0)));
    registry().call(name, args, &ctx).await
}

#[tokio::test]
async fn every_shape_dispatches() {
    let cases: Vec<(&str, Value, Value)> = vec![
        ("no_args", json!({}), json!("ok")),
        ("no_args", Value::Null, json!("ok")),
        ("one_arg", json!({"text": "hi"}), json!("hi")),
        ("optional_arg", json!({"name": "Ada"}), json!("Hello, Ada")),
        (
            "optional_arg",
            json!({"name": "Ada", "title": "Dr"}),
            json!("Hello, Dr Ada"),
        ),
        (
            "with_defaults",
            json!({"prompt": "news", "priority": 3}),
            json!({"prompt": "news", "priority": 3, "timeout_secs": 300, "labels": []}),
        ),
        ("vec_arg", json!({"words": ["a", "b"]}), json!("a b")),
        (
            "vec_arg",
            json!({"words": ["a", "b"], "separator": "-"}),
            json!("a-b"),
        ),
        ("map_arg", json!({"amounts": {"x": 2, "y": 40}}), json!(42)),
        (
            "nested_struct",
            json!({"segment": {"from": {"x": 0, "y": 0}, "to": {"x": 3, "y": 4}}}),
            json!(5.0),
        ),
        ("unit_enum", json!({"colour": "green"}), json!("#00ff00")),
        (
            "data_enum",
            json!({"shape": {"kind": "rectangle", "width": 2, "height": 3}}),
            json!(6.0),
        ),
        (
            "serde_renames",
            json!({"contact": {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.org"}}),
            json!("Ada Lovelace <ada@example.org>"),
        ),
        (
            "scalars",
            json!({"small": 255, "signed": -7, "ratio": 0.5, "flag": true}),
            json!([255, -7, 0.5, true]),
        ),
        ("custom_error", json!({"a": 7, "b": 2}), json!(3)),
        ("into_tool_error", json!({"key": "answer"}), json!(42)),
        ("async_await", json!({"millis": 1}), json!("waited 1 ms")),
        ("with_context", json!({"by": 5}), json!(5)),
        ("with_context", json!({}), json!(1)),
        (
            "output_schema",
            json!({"text": "a cat\na dog\ncatalog", "word": "cat"}),
            json!({"hits": ["a cat", "catalog"], "scanned": 3}),
        ),
        ("io_result", json!({"file_name": "notes.txt"}), json!(true)),
        (
            "unit_return",
            json!({"type": "ping", "data": {"n": 1}}),
            Value::Null,
        ),
        ("renamed-tool", json!({}), json!(7)),
        (
            "with_examples",
            json!({"text": "Stand-up meeting", "minutes": 15}),
            json!("Stand-up meeting in 15 min via chat []"),
        ),
        (
            "flattened",
            json!({"query": {"text": "rust", "limit": 5}}),
            json!("rust limit=Some(5) cursor=None"),
        ),
        (
            "double_option",
            json!({"minutes": 10}),
            json!("Some(Some(10))"),
        ),
        ("double_option", json!({}), json!("None")),
        // A null argument means absent (what strict-mode models send for a
        // field they leave out), so the inner `None` is not reachable.
        ("double_option", json!({"minutes": null}), json!("None")),
        (
            "tuples_and_untagged",
            json!({"user": 7, "cell": [1, 2], "labels": ["b", "a"]}),
            json!("7 (1, 2) {\"a\", \"b\"}"),
        ),
        (
            "tuples_and_untagged",
            json!({"user": "ada", "cell": [0, 0], "labels": []}),
            json!("ada (0, 0) {}"),
        ),
    ];
    for (name, args, expected) in cases {
        let got = call(name, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{name}({args}) failed: {e}"));
        assert_eq!(got, expected, "{name}({args})");
    }
}

#[tokio::test]
async fn tool_errors_reach_the_model() {
    let err = call("custom_error", json!({"a": 1, "b": 0}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Failed);
    assert_eq!(
        err.to_string(),
        "cannot divide by zero; pass a non-zero divisor"
    );

    let err = call("into_tool_error", json!({"key": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "no entry named \"nope\"");

    let err = call("io_result", json!({"file_name": "a/b"}))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "a file name cannot contain `/`");
    // A std error is kept as the source, for logs; a Display-only one has none.
    let cause = std::error::Error::source(&err).expect("the io::Error is the source");
    assert!(
        cause.downcast_ref::<std::io::Error>().is_some(),
        "{cause:?}"
    );
    let err = call("custom_error", json!({"a": 1, "b": 0}))
        .await
        .unwrap_err();
    assert!(std::error::Error::source(&err).is_none());
    // A tool's own std error: its text for the model, itself (and its own
    // cause) as the source.
    let err = call("std_error", json!({"text": "x1"})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "not a whole number: invalid digit found in string"
    );
    let cause = std::error::Error::source(&err).unwrap();
    assert!(cause.downcast_ref::<BadNumber>().is_some());
    assert!(cause.source().is_some());

    let err = registry()
        .call("with_context", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Counter"), "{err}");
}

#[tokio::test]
async fn invalid_arguments_name_the_field_and_the_expectation() {
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "scalars",
            json!({"small": 256, "signed": 1, "ratio": 1.0, "flag": true}),
            "invalid arguments for tool `scalars` at `small`: invalid value: number `256`, expected an integer from 0 to 255",
        ),
        (
            "one_arg",
            json!({}),
            "invalid arguments for tool `one_arg`: missing field `text`",
        ),
        (
            "one_arg",
            json!({"text": "a", "txt": "b"}),
            "invalid arguments for tool `one_arg` at `txt`: unknown field `txt`, expected `text`",
        ),
        (
            "one_arg",
            json!(["a"]),
            "invalid arguments for tool `one_arg`: expected a JSON object of named arguments, got an array",
        ),
        (
            "nested_struct",
            json!({"segment": {"from": {"x": 0, "y": 0}, "to": {"x": "far", "y": 4}}}),
            "invalid arguments for tool `nested_struct` at `segment.to.x`: invalid type: string \"far\", expected a number",
        ),
        (
            "unit_enum",
            json!({"colour": "purple"}),
            "invalid arguments for tool `unit_enum` at `colour`: unknown variant `purple`, expected one of `red`, `green`, `blue`",
        ),
        (
            "one_arg",
            json!({"text": null}),
            "invalid arguments for tool `one_arg` at `text`: invalid type: null, expected a string",
        ),
    ];
    for (name, args, expected) in cases {
        let err = call(name, args).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArguments);
        assert_eq!(err.to_string(), expected);
    }
}

#[tokio::test]
async fn null_for_an_optional_argument_means_absent() {
    let got = call(
        "with_defaults",
        json!({"prompt": "p", "priority": null, "labels": null}),
    )
    .await
    .unwrap();
    assert_eq!(got["priority"], 5);
    assert_eq!(got["labels"], json!([]));
    let got = call("optional_arg", json!({"name": "Ada", "title": null}))
        .await
        .unwrap();
    assert_eq!(got, json!("Hello, Ada"));
}

#[test]
fn the_selected_backend_holds_the_tools() {
    let names: Vec<&str> = optimclaw::linked_tools().map(|d| d.name).collect();
    assert!(names.contains(&"no_args"));
    #[cfg(feature = "linkme")]
    assert!(
        optimclaw::__private::TOOLS
            .iter()
            .any(|d| d.name == "no_args")
    );
}

/// Every shape in every dialect: one committed snapshot per shape, and the
/// whole set written to `target/provider-specs.json` for the providers' own
/// SDKs to validate (`tests/sdk/validate_specs.py`, run by `.ci/run`).
#[test]
fn every_shape_in_every_dialect() {
    use optimclaw::provider::{Dialect, check_strict, tool_spec};
    let registry = registry();
    let mut dump = serde_json::Map::new();
    for dialect in Dialect::ALL {
        if dialect == Dialect::Text {
            continue;
        }
        let specs: Vec<Value> = SHAPES
            .iter()
            .map(|name| tool_spec(registry.get(name).unwrap(), dialect).unwrap())
            .collect();
        dump.insert(dialect.name().to_owned(), Value::Array(specs));
    }
    for (i, name) in SHAPES.iter().enumerate() {
        let mut view = serde_json::Map::new();
        for (dialect, specs) in &dump {
            view.insert(dialect.clone(), specs[i].clone());
        }
        let tool = registry.get(name).unwrap();
        let text = optimclaw::provider::render_text(&[tool], None);
        view.insert("text".into(), Value::String(text));
        insta::assert_json_snapshot!(format!("dialects__{name}"), sorted(Value::Object(view)));
    }
    // Strict specs keep every strict invariant; only free-form maps, a
    // value of any shape (`serde_json::Value`, which strict mode cannot
    // type) and tuples (`prefixItems`) fall back to `strict: false`.
    for spec in dump["openai-strict"].as_array().unwrap() {
        let function = &spec["function"];
        if function["strict"] == true {
            check_strict(&function["parameters"])
                .unwrap_or_else(|e| panic!("{}: {e:?}", function["name"]));
        } else {
            assert!(
                ["map_arg", "unit_return", "tuples_and_untagged"]
                    .contains(&function["name"].as_str().unwrap()),
                "only maps, any-valued parameters and tuples cannot be strict: {}",
                function["name"]
            );
        }
    }
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("provider-specs.json"),
        serde_json::to_string_pretty(&Value::Object(dump)).unwrap(),
    )
    .unwrap();
}

#[test]
fn every_dialect_drops_meta_noise() {
    use optimclaw::provider::{Dialect, tool_spec};
    let registry = registry();
    for dialect in Dialect::ALL {
        for name in SHAPES {
            let text = tool_spec(registry.get(name).unwrap(), dialect)
                .unwrap()
                .to_string();
            assert!(!text.contains("$schema"), "{dialect} {name}");
            assert!(
                !text.contains("\"format\":\"uint") && !text.contains("\"format\":\"int"),
                "{dialect} {name}"
            );
            assert!(!text.contains("\"format\":\"double\""), "{dialect} {name}");
        }
    }
    // Gemini refuses an object parameter list without properties ("should
    // be non-empty for OBJECT type"): a tool without arguments sends none.
    let no_args = tool_spec(registry.get("no_args").unwrap(), Dialect::Gemini).unwrap();
    assert_eq!(
        no_args,
        json!({"name": "no_args", "description": no_args["description"]})
    );
}

#[tokio::test]
async fn strict_nulls_mean_absent_at_every_depth() {
    // What a strict-mode model sends when it leaves optional fields out.
    let got = call(
        "serde_renames",
        json!({"contact": {"firstName": "Ada", "lastName": "Lovelace", "email": null}}),
    )
    .await
    .unwrap();
    assert_eq!(got, json!("Ada Lovelace"));
    let got = call(
        "with_defaults",
        json!({"prompt": "p", "priority": null, "timeout_secs": null, "labels": null}),
    )
    .await
    .unwrap();
    assert_eq!(
        got,
        json!({"prompt": "p", "priority": 5, "timeout_secs": 300, "labels": []})
    );
}

#[test]
fn the_pass_suite_is_valid_for_every_provider() {
    optimclaw::testing::assert_tools_valid();
}
