use optimclaw::{ToolContext, tool};

/// Use the context.
#[tool]
fn uses(ctx: ToolContext) -> bool {
    ctx.call_id().is_some()
}

fn main() {}
