use optimclaw::tool;

/// A due date.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Due {
    day: u32,
}

/// Add a task.
#[tool]
fn task_add(
    /// The task.
    text: String,
    /// When it is due.
    #[arg(default)]
    due: Due,
) -> String {
    format!("{text} {}", due.day)
}

fn main() {}
