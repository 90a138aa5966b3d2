use optimclaw::tool;

/// Ignore a number.
#[tool]
fn ignore(_: u8) -> u8 {
    0
}

fn main() {}
