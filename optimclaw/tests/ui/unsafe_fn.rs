use optimclaw::tool;

/// Double a number.
#[tool]
unsafe fn double(n: u32) -> u32 {
    n * 2
}

fn main() {}
