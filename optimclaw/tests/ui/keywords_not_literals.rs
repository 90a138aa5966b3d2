use optimclaw::tool;

/// Echo a text.
#[tool(keywords = [say, 1])]
fn echo(text: String) -> String {
    text
}

fn main() {}
