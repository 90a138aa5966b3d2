use optimclaw::tool;

/// Echo a text.
#[tool(name = "echo text")]
fn echo(text: String) -> String {
    text
}

fn main() {}
