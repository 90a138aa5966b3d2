use optimclaw::tool;

/// Add an item to the to-do list.
#[tool(asks = ["remind me to call mom", "todo", "remind me to call mom"])]
fn todo_add(
    /// What to do.
    text: String,
) -> String {
    text
}

fn main() {}
