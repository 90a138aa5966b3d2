//! `#[tool(crate = path)]` for crates that re-export optimclaw.

mod reexport {
    pub use optimclaw as inner;
}

use reexport::inner::{Registry, tool};

/// Echo a text through a re-exported optimclaw.
#[tool(crate = reexport::inner, core)]
fn echo(
    /// The text.
    text: String,
) -> String {
    text
}

fn main() {
    let registry = Registry::from_linked().unwrap();
    assert!(registry.get("echo").is_some());
    assert_eq!(echo("x".into()), "x");
}
