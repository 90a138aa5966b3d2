use optimclaw::tool;

/// Echo a text.
#[tool(name = "echo", name = "say")]
fn echo(text: String) -> String {
    text
}

fn main() {}
