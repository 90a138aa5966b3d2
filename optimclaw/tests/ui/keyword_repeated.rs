use optimclaw::tool;

/// Echo a text.
#[tool(keywords = ["say", "repeat", "Say"])]
fn echo(text: String) -> String {
    text
}

fn main() {}
