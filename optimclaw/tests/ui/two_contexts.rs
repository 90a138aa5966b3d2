use optimclaw::{ToolContext, tool};

/// Compare two contexts.
#[tool]
fn compare(a: &ToolContext, b: &ToolContext) -> bool {
    std::ptr::eq(a, b)
}

fn main() {}
