//! The README's quick start: two tools, a registry, one call by name.

use optimclaw::{Registry, ToolContext, tool};
use serde_json::json;

/// Add two integers and return their sum.
#[tool(core, keywords = ["sum", "plus", "arithmetic"])]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Greet someone by name.
#[tool]
async fn greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks to add.
    #[arg(default = 1)]
    excitement: u8,
) -> String {
    format!("Hello, {name}{}", "!".repeat(usize::from(excitement)))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_linked()?;
    for tool in registry.tools() {
        println!(
            "{} ({:?}): {}",
            tool.name(),
            tool.kind(),
            tool.input_schema()
        );
    }
    let ctx = ToolContext::new();
    let sum = registry.call("add", json!({"a": 2, "b": 40}), &ctx).await?;
    println!("add(2, 40) = {sum}");
    let hello = registry.call("greet", json!({"name": "Ada"}), &ctx).await?;
    println!("greet(\"Ada\") = {hello}");
    let err = registry
        .call("add", json!({"a": "two"}), &ctx)
        .await
        .unwrap_err();
    println!("a model's mistake is answered with: {err}");
    Ok(())
}
