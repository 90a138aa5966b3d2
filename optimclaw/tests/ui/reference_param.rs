use optimclaw::tool;

/// Count the characters of a text.
#[tool]
fn count(text: &str) -> usize {
    text.len()
}

fn main() {}
