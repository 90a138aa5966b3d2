//! Doc comments become descriptions the way rustdoc reads them: the lines
//! of a paragraph join with a space, paragraphs stay apart, list items and
//! code keep their lines, for the tool and for each parameter.

use optimclaw::{Registry, tool};

/// Create a routine: a cron schedule that creates
/// a background job each time it fires.
///
/// Schedules use five fields:
/// - minute and hour,
/// - day of month, month and day of week.
///
/// ```text
/// 0 9 * * 1
/// ```
#[tool]
fn wrapped_docs(
    /// The schedule, in cron syntax, evaluated
    /// in the server's time zone.
    ///
    /// Five fields.
    schedule: String,
) -> String {
    schedule
}

#[test]
fn tool_and_parameter_docs_are_unwrapped() {
    let registry = Registry::from_linked().unwrap();
    let tool = registry.get("wrapped_docs").unwrap();
    assert_eq!(
        tool.description(),
        "Create a routine: a cron schedule that creates a background job each time it fires.\n\n\
         Schedules use five fields:\n- minute and hour,\n- day of month, month and day of week.\n\n\
         ```text\n0 9 * * 1\n```"
    );
    assert_eq!(
        tool.input_schema()["properties"]["schedule"]["description"],
        "The schedule, in cron syntax, evaluated in the server's time zone.\n\nFive fields."
    );
}

#[test]
fn no_linked_description_has_a_hard_wrap() {
    // A single newline between two words is a hard wrap a model would see.
    let registry = Registry::from_linked().unwrap();
    for tool in registry.tools() {
        for line_pair in tool.description().split("\n\n") {
            for (a, b) in line_pair.lines().zip(line_pair.lines().skip(1)) {
                let block = |l: &str| {
                    let l = l.trim_start();
                    l.starts_with("- ") || l.starts_with('#') || l.starts_with("```")
                };
                assert!(
                    block(b) || block(a) || a.starts_with("```") || line_pair.starts_with("```"),
                    "tool `{}` has a hard wrap: {a:?} / {b:?}",
                    tool.name()
                );
            }
        }
    }
}
