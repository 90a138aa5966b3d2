//! Two linked tools with the same name: building the registry fails and
//! names both source locations.

use optimclaw::{Registry, tool};

mod first {
    use super::tool;
    /// The first definition.
    #[tool(name = "same_name")]
    pub fn one() -> u8 {
        1
    }
}

mod second {
    use super::tool;
    /// The second definition.
    #[tool(name = "same_name")]
    pub fn two() -> u8 {
        2
    }
}

#[test]
fn duplicate_linked_names_name_both_locations() {
    assert_eq!(first::one() + second::two(), 3);
    let err = Registry::from_linked().unwrap_err();
    let text = err.to_string();
    assert_eq!(err.problems().len(), 1, "{text}");
    assert!(text.contains("duplicate tool name `same_name`"), "{text}");
    assert_eq!(
        text.matches("tests/tests/duplicates.rs:").count(),
        2,
        "{text}"
    );
}
