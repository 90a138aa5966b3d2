//! Every accepted attribute form compiles.

use optimclaw::{ToolContext, ToolError, tool};

/// Bare attribute.
#[tool]
fn bare() {}

/// Deferred, with keywords.
#[tool(deferred, keywords = ["a", "b"])]
fn deferred_kw() -> u8 {
    1
}

/// Core.
#[tool(core)]
async fn core_async(ctx: &ToolContext) -> Result<bool, ToolError> {
    Ok(ctx.registry().is_some())
}

#[tool(name = "given-name", description = "Given description.")]
fn overridden(
    #[arg(default, description = "Given parameter description.")] n: u8,
    #[arg(rename = "type")] kind: String,
    /// A raw identifier.
    r#match: bool,
) -> String {
    format!("{n}{kind}{match}", match = r#match)
}

#[doc = "A doc attribute written out."]
#[tool]
fn doc_attribute(mut n: u32) -> u32 {
    n += 1;
    n
}

fn main() {
    bare();
    let _ = (deferred_kw(), core_async(&ToolContext::new()), overridden(0, String::new(), true), doc_attribute(1));
}
