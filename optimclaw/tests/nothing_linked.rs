//! A program whose own tools are not linked (a library crate the binary
//! never names) gets an error that names the fix, not a registry that
//! silently holds only `tool_info`.

use optimclaw::Registry;

#[test]
fn from_linked_without_any_tool_of_the_program_names_the_fix() {
    let err = Registry::from_linked().expect_err("only tool_info is linked here");
    let text = err.to_string();
    assert!(
        text.contains("no #[tool] of this program is linked"),
        "{text}"
    );
    assert!(text.contains("use your_tools_crate as _;"), "{text}");
    // On purpose, without linked tools of one's own: the builder.
    let registry = Registry::builder().build().unwrap();
    assert_eq!(registry.len(), 1);
    assert!(registry.get("tool_info").is_some());
}
