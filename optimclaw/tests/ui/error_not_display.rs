use optimclaw::tool;

struct Opaque;

/// Fail opaquely.
#[tool]
fn fail(n: u8) -> Result<u8, Opaque> {
    if n == 0 { Err(Opaque) } else { Ok(n) }
}

fn main() {}
