use optimclaw::tool;

/// Repeat a text.
#[tool]
fn repeat(
    text: String,
    #[arg(default = 2, default = 3)] times: usize,
) -> String {
    text.repeat(times)
}

fn main() {}
