use optimclaw::tool;

/// Echo a text.
#[tool(examples = [["hello"], "hello"])]
fn echo(text: String) -> String {
    text
}

fn main() {}
