use optimclaw::tool;

/// Move a file.
#[tool]
fn move_file(
    from: String,
    #[arg(rename = "from")] to: String,
) -> String {
    format!("{from} -> {to}")
}

fn main() {}
