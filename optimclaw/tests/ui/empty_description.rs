use optimclaw::tool;

#[tool(description = "  ")]
fn echo(text: String) -> String {
    text
}

fn main() {}
