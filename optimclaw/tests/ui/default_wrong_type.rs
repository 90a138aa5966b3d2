use optimclaw::tool;

/// Repeat a text.
#[tool]
fn repeat(
    text: String,
    #[arg(default = "twice")] times: usize,
) -> String {
    text.repeat(times)
}

fn main() {}
