//! An example the macro cannot check (a value of a user enum) is checked
//! when the registry is built: the build and `assert_tools_valid` fail,
//! naming the tool, the example and the JSON path at fault. In a binary of
//! its own: this invalid tool would fail every other test's registry.

use optimclaw::{Registry, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// How loud.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Volume {
    /// Quiet.
    Low,
    /// Loud.
    High,
}

/// Play a sound.
#[tool(examples = [{"sound": "bell", "volume": "high"}, {"sound": "bell", "volume": "medium"}])]
fn play(
    /// Which sound.
    sound: String,
    /// How loud.
    volume: Volume,
) -> String {
    let loud = matches!(volume, Volume::High);
    format!("{sound} {loud}")
}

#[test]
fn the_registry_refuses_an_invalid_example() {
    let err = Registry::from_linked().unwrap_err().to_string();
    assert!(
        err.contains("tool `play` (")
            && err.contains(
                "example 2 {\"sound\":\"bell\",\"volume\":\"medium\"} is not a valid call"
            ),
        "{err}"
    );
    assert!(err.contains("volume"), "the JSON path is named: {err}");
    assert!(
        !err.contains("example 1"),
        "the first example is valid: {err}"
    );
}

#[test]
fn assert_tools_valid_names_the_example() {
    let panic = std::panic::catch_unwind(optimclaw::testing::assert_tools_valid).unwrap_err();
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    assert!(message.contains("example 2"), "{message}");
}
