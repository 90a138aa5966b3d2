//! Checks for a program's own test suite: problems that can only be seen
//! once every tool is linked (duplicate names across modules and crates,
//! schemas a provider would reject), and how well users' requests find the
//! tools ([`discoverability`]).
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

mod discover;

use crate::error::RegistryError;
use crate::provider::{Degraded, Dialect, Outcome, RenderOptions, describe_tool};
use crate::registry::Registry;
pub use discover::{Discoverability, RequestResult, discoverability};

/// Checks every linked tool for every provider dialect; returns every
/// problem found. See [`check_tools_for`].
pub fn check_tools() -> Result<Registry, RegistryError> {
    check_tools_for(&Dialect::ALL)
}

/// Checks every linked tool; returns every problem found.
///
/// Builds the registry (names, duplicates, object schemas), checks each
/// argument schema (every property has a schema object, `required` names
/// only listed properties, the description is not empty) and renders each
/// tool in each of `dialects`: a tool that would be left out, or sent
/// loosened (e.g. a recursive type Gemini cannot express), is a problem;
/// one sent to OpenAI with `strict: false` (a free-form map) is not. See
/// [`degraded_tools`] for the whole list.
pub fn check_tools_for(dialects: &[Dialect]) -> Result<Registry, RegistryError> {
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
        for dialect in dialects {
            if let Some(d) = describe_tool(tool, *dialect, RenderOptions::default()).degraded
                && d.outcome != Outcome::NotStrict
            {
                problems.push(format!("{d} ({})", tool.origin()));
            }
        }
    }
    if problems.is_empty() {
        Ok(registry)
    } else {
        Err(RegistryError::new(problems))
    }
}

/// Every linked tool that cannot go to one of `dialects` as written, and
/// what is sent instead (loosened, `strict: false`, left out).
///
/// # Errors
/// When the linked tools do not build a registry.
pub fn degraded_tools(dialects: &[Dialect]) -> Result<Vec<Degraded>, RegistryError> {
    let registry = Registry::from_linked()?;
    Ok(dialects
        .iter()
        .flat_map(|d| registry.degraded(*d))
        .collect())
}

/// Panics with every problem of the linked tools, one per line, checking
/// every provider dialect.
///
/// # Panics
/// When any tool is invalid; the message lists all of them.
#[track_caller]
pub fn assert_tools_valid() {
    assert_tools_valid_for(&Dialect::ALL);
}

/// [`assert_tools_valid`] for the providers a program targets.
///
/// # Panics
/// When any tool is invalid; the message lists all of them.
#[track_caller]
pub fn assert_tools_valid_for(dialects: &[Dialect]) {
    if let Err(err) = check_tools_for(dialects) {
        panic!("{err}");
    }
}
