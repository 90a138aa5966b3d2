//! What preload attaches to a user's message: the one tool that stands out;
//! a close pair of strong matches together, when both schemas are short;
//! nothing when the best does not stand out otherwise; never a schema
//! longer than the message may carry; never a tool twice.

use optimclaw::preload::PreloadOptions;
use optimclaw::{DynamicTool, LazyConfig, Registry, Session};
use serde_json::{Value, json};

fn tool(name: &str, description: &str, parameters: Value) -> DynamicTool {
    DynamicTool::new(name, description, parameters)
        .handler(|_ctx, args: Value| async move { Ok(args) })
}

fn text_parameter() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string", "description": "The text."}}, "additionalProperties": false})
}

/// A schema of `count` string parameters (`p0`, `p1`, …): long, with no
/// word a message could match.
fn string_parameters(count: usize) -> Value {
    let properties: serde_json::Map<String, Value> = (0..count)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    json!({"type": "object", "properties": properties})
}

/// A catalog where "the area of a circle" matches two twins equally;
/// `twin_parameters` is the schema of `area_of_circle`.
fn catalog(twin_parameters: Value) -> Registry {
    let plain = |name: &str, description: &str| tool(name, description, text_parameter());
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            plain("circle_area", "Calculate the area of a circle."),
            tool(
                "area_of_circle",
                "Calculate the area of a circle.",
                twin_parameters,
            ),
            plain("square_area", "Calculate the area of a square."),
            plain("weather_now", "The current weather of a city."),
            plain("base64_encode", "Encode text as base64."),
            plain("file_move", "Move or rename a file."),
            plain("job_cancel", "Cancel a background job."),
        ])
        .build()
        .unwrap()
}

fn attached(registry: &Registry, message: &str, options: &PreloadOptions) -> Vec<String> {
    Session::new(registry.clone())
        .preload(message, options)
        .map(|p| p.tools)
        .unwrap_or_default()
}

const CLOSE: &str = "What is the area of a circle with radius 3?";

#[test]
fn one_tool_that_stands_out_goes_alone() {
    let registry = catalog(text_parameter());
    let got = attached(
        &registry,
        "Encode the word hello as base64.",
        &PreloadOptions::default(),
    );
    assert_eq!(got, ["base64_encode"]);
}

#[test]
fn a_close_pair_of_short_schemas_goes_together() {
    let registry = catalog(text_parameter());
    let mut got = attached(&registry, CLOSE, &PreloadOptions::default());
    got.sort();
    assert_eq!(got, ["area_of_circle", "circle_area"]);
    // Room for one only: a coin flip between the two is not attached.
    let one = PreloadOptions::default().with_max_tools(1);
    assert!(attached(&registry, CLOSE, &one).is_empty());
}

#[test]
fn a_close_pair_with_a_long_schema_is_not_attached() {
    // Many parameters make `area_of_circle`'s schema longer than a close
    // pair may carry; the words that match stay the same.
    let long = string_parameters(60);
    assert!(long.to_string().len() > PreloadOptions::default().close_max_chars);
    let registry = catalog(long);
    assert!(
        attached(&registry, CLOSE, &PreloadOptions::default()).is_empty(),
        "a wrong long schema costs more than a search"
    );
}

#[test]
fn a_tool_already_attached_is_not_attached_again() {
    let registry = catalog(text_parameter());
    let session = Session::new(registry);
    let options = PreloadOptions::default();
    let first = session.preload(CLOSE, &options).unwrap().tools;
    assert_eq!(first.len(), 2);
    assert!(session.preload(CLOSE, &options).is_none());
}

#[test]
fn a_schema_longer_than_a_message_may_carry_is_left_out() {
    // `base64_encode` stands out for this message, and its schema (about
    // 2,800 characters) is longer than the default cap, shorter than the
    // old one (6,000).
    let long = string_parameters(120);
    let options = PreloadOptions::default();
    assert!(long.to_string().len() > options.max_chars);
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            tool("base64_encode", "Encode text as base64.", long),
            tool(
                "weather_now",
                "The current weather of a city.",
                text_parameter(),
            ),
            tool("file_move", "Move or rename a file.", text_parameter()),
        ])
        .build()
        .unwrap();
    let message = "Encode the word hello as base64.";
    assert!(
        attached(&registry, message, &options).is_empty(),
        "a long schema is left to tool_info"
    );
    // A user who would rather pay for it raises the cap.
    let roomy = options.clone().with_max_chars(20_000);
    assert_eq!(attached(&registry, message, &roomy), ["base64_encode"]);
}

#[test]
fn a_lone_tool_listed_in_the_request_is_named_in_one_line_without_its_schema() {
    let registry = catalog(text_parameter());
    let session = Session::new(registry);
    let message = "Encode the word hello as base64.";
    let inline = Session::new(session.registry().clone())
        .preload(message, &PreloadOptions::default())
        .unwrap();
    assert!(inline.text.contains("\"parameters\""), "{}", inline.text);
    let listed = PreloadOptions::default().with_listed_in_tools(true);
    let named = session.preload(message, &listed).unwrap();
    assert_eq!(named.tools, ["base64_encode"]);
    assert_eq!(
        named.text, "\n\n(The tool for this: base64_encode.)",
        "one line naming the tool, set apart from the user's words"
    );
    // Recorded as attached like any attachment: not attached twice.
    assert_eq!(session.attached(), ["base64_encode"]);
    assert!(session.preload(message, &listed).is_none());
    // A close pair goes in `tools` unnamed: named together, the small
    // model took the wrong one of the two.
    let pair = Session::new(session.registry().clone())
        .preload(CLOSE, &listed)
        .unwrap();
    assert_eq!(pair.tools.len(), 2, "{:?}", pair.tools);
    assert_eq!(pair.text, "", "a close pair is not named");
}

#[tokio::test]
async fn a_made_up_name_is_pointed_at_the_attached_tool_its_arguments_fit() {
    let required = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false});
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            tool("base64_encode", "Encode text as base64.", required),
            tool(
                "weather_now",
                "The current weather of a city.",
                text_parameter(),
            ),
        ])
        .build()
        .unwrap();
    let session = Session::new(registry);
    let attached = session
        .preload(
            "Encode the word hello as base64.",
            &PreloadOptions::default(),
        )
        .map(|p| p.tools);
    assert_eq!(attached.as_deref(), Some(&["base64_encode".to_owned()][..]));
    let ctx = optimclaw::ToolContext::new();
    // Named after its argument, with the attached tool's fields.
    let err = session
        .call("zebra", json!({"text": "hello"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.message().contains("did you mean base64_encode?"),
        "{}",
        err.message()
    );
    // Before the tools a name's words match (`city` is in weather_now's
    // description); a name spelled like a tool still gets that tool.
    let err = session
        .call("city_text", json!({"text": "hello"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.message().ends_with("did you mean base64_encode?"),
        "{}",
        err.message()
    );
    let err = session
        .call("weather_now2", json!({"text": "hello"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.message().ends_with("did you mean weather_now?"),
        "{}",
        err.message()
    );
    // Fields no attached tool takes: search, or answer without a tool.
    let err = session
        .call("zebra", json!({"legs": 8}), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.message().contains("call tool_info with keywords")
            && err
                .message()
                .contains("or answer in words if no tool is needed"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn a_core_tool_sent_a_field_an_attached_tool_needs_points_at_that_tool() {
    let closed = |properties: Value, required: Value| json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false});
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            tool(
                "time",
                "Get the current date and time in a time zone.",
                closed(json!({"timezone": {"type": "string"}}), json!([])),
            )
            .kind(optimclaw::ToolKind::Core),
            tool(
                "timezone_convert",
                "Convert a date-time into another time zone.",
                closed(
                    json!({"datetime": {"type": "string"}, "to": {"type": "string"}}),
                    json!(["datetime", "to"]),
                ),
            ),
        ])
        .build()
        .unwrap();
    let session = Session::new(registry);
    let ctx = optimclaw::ToolContext::new();
    let lenient = optimclaw::CallOptions::default().with_lenient(true);
    let time = async |args: Value| session.call_with("time", args, &ctx, lenient).await;
    let args = json!({"datetime": "2025-07-04T18:00:00Z", "timezone": "Europe/Paris"});
    // Nothing attached yet: the unknown field is noise, dropped.
    let now = time(args.clone()).await.unwrap();
    assert_eq!(now, json!({"timezone": "Europe/Paris"}));
    let attached = session
        .preload(
            "Convert 2025-07-04T18:00:00Z to another time zone.",
            &PreloadOptions::default(),
        )
        .map(|p| p.tools);
    assert_eq!(
        attached.as_deref(),
        Some(&["timezone_convert".to_owned()][..])
    );
    // With the tool that needs it attached, the field is not dropped: the
    // model is pointed at that tool.
    let err = time(args).await.unwrap_err();
    assert_eq!(err.kind(), optimclaw::ToolErrorKind::InvalidArguments);
    assert!(
        err.message().contains(
            "`time` does not take `datetime`; the tool for this is likely `timezone_convert` (it needs datetime, to): call `timezone_convert`, or call `time` without `datetime`"
        ),
        "{}",
        err.message()
    );
    // A field no attached tool needs is still noise ...
    let now = time(json!({"timezone": "UTC", "max_chars": 20000, "text": "a zone"}))
        .await
        .unwrap();
    assert_eq!(now, json!({"timezone": "UTC"}));
    // ... unless it holds the message's own text, beside the tool attached
    // to that message.
    let err = time(json!({"text": "2025-07-04T18:00:00Z", "timezone": "UTC"}))
        .await
        .unwrap_err();
    assert!(
        err.message().contains(
            "`time` does not take `text`; the tool for this is likely `timezone_convert`"
        ),
        "{}",
        err.message()
    );
    // A message that attached nothing points nowhere.
    assert!(
        session
            .preload("What time is it?", &PreloadOptions::default())
            .is_none()
    );
    let now = time(json!({"text": "time is it", "timezone": "UTC"}))
        .await
        .unwrap();
    assert_eq!(now, json!({"timezone": "UTC"}));
}
