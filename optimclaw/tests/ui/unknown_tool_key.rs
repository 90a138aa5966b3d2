use optimclaw::tool;

/// Echo a text.
#[tool(cor)]
fn echo(text: String) -> String {
    text
}

fn main() {}
