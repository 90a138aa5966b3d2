use optimclaw::tool;

/// Echo a text.
#[tool(name = echo)]
fn echo(text: String) -> String {
    text
}

fn main() {}
