use optimclaw::tool;

/// Add the two parts of a pair.
#[tool]
fn add((a, b): (u8, u8)) -> u8 {
    a + b
}

fn main() {}
