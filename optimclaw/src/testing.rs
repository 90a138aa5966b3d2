//! One-line checks for a program's own test suite: problems that can only
//! be seen once every tool is linked (duplicate names across modules and
//! crates, schemas a provider would reject).
//!
//! ```
//! #[cfg(test)]
//! mod tests {
//!     #[test]
//!     fn tools_are_valid() {
//!         optimclaw::testing::assert_tools_valid();
//!     }
//! }
//! ```

// The example above is the test users copy into their crates.
#![allow(clippy::test_attr_in_doctest)]

use crate::{Registry, RegistryError};

/// Checks every linked tool; returns every problem found.
///
/// Builds the registry (names, duplicates, object schemas) and checks
/// each argument schema: every property has a schema object, and `required`
/// names only listed properties.
pub fn check_tools() -> Result<Registry, RegistryError> {
    let registry = Registry::from_linked()?;
    let mut problems = Vec::new();
    for tool in registry.tools() {
        let schema = tool.input_schema();
        let props = schema.get("properties").and_then(|p| p.as_object());
        if let Some(props) = props {
            for (name, prop) in props {
                if !prop.is_object() {
                    problems.push(format!(
                        "tool `{}` ({}): parameter `{name}` has no schema object",
                        tool.name(),
                        tool.origin()
                    ));
                }
            }
        }
        if let Some(required) = schema.get("required").and_then(|r| r.as_array()) {
            for r in required {
                let listed = r
                    .as_str()
                    .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)));
                if !listed {
                    problems.push(format!(
                        "tool `{}` ({}): `required` names {r}, which is not a property",
                        tool.name(),
                        tool.origin()
                    ));
                }
            }
        }
        if tool.description().trim().is_empty() {
            problems.push(format!(
                "tool `{}` ({}): empty description",
                tool.name(),
                tool.origin()
            ));
        }
    }
    if problems.is_empty() {
        Ok(registry)
    } else {
        Err(RegistryError::new(problems))
    }
}

/// Panics with every problem of the linked tools, one per line.
///
/// # Panics
/// When any tool is invalid; the message lists all of them.
#[track_caller]
pub fn assert_tools_valid() {
    if let Err(err) = check_tools() {
        panic!("{err}");
    }
}
