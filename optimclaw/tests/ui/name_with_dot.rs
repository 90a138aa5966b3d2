use optimclaw::tool;

/// Echo a text.
#[tool(name = "text.echo")]
fn echo(text: String) -> String {
    text
}

fn main() {}
