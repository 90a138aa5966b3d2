use optimclaw::{ToolContext, tool};

/// Use the context.
#[tool]
fn uses(#[arg(default)] ctx: &ToolContext) -> bool {
    ctx.registry().is_some()
}

fn main() {}
