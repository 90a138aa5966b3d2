use optimclaw::tool;

#[derive(serde::Deserialize)]
struct Point {
    x: f64,
}

/// Read a point.
#[tool]
fn read(point: Point) -> f64 {
    point.x
}

fn main() {}
