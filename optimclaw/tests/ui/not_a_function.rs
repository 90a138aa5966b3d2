use optimclaw::tool;

/// A point.
#[tool]
struct Point {
    x: f64,
}

fn main() {}
