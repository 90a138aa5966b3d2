use optimclaw::tool;

/// Echo a text.
#[tool(core, deferred)]
fn echo(text: String) -> String {
    text
}

fn main() {}
