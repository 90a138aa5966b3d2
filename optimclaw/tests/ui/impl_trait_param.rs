use optimclaw::tool;

/// Echo a text.
#[tool]
fn echo(text: impl Into<String>) -> String {
    text.into()
}

fn main() {}
