use optimclaw::tool;

/// Echo a text.
#[tool(examples = [{"text": greeting}])]
fn echo(text: String) -> String {
    text
}

fn main() {}
