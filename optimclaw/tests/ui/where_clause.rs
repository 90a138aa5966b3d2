use optimclaw::tool;

/// Echo a text.
#[tool]
fn echo(text: String) -> String
where
    String: Clone,
{
    text
}

fn main() {}
