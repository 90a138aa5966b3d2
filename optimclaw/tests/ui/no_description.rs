use optimclaw::tool;

#[tool]
fn echo(text: String) -> String {
    text
}

fn main() {}
