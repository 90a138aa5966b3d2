use optimclaw::tool;

#[derive(schemars::JsonSchema)]
struct Point {
    x: f64,
}

/// Read a point.
#[tool]
fn read(point: Point) -> f64 {
    point.x
}

fn main() {}
