use optimclaw::tool;

/// Echo a text.
#[tool(keywords = "say")]
fn echo(text: String) -> String {
    text
}

fn main() {}
