use optimclaw::tool;

/// Sum numbers.
#[tool]
unsafe extern "C" fn sum(count: u8, mut args: ...) -> u8 {
    count
}

fn main() {}
