use optimclaw::tool;

/// Repeat a text.
#[tool]
fn repeat(
    text: String,
    #[arg(defualt = 2)] times: usize,
) -> String {
    text.repeat(times)
}

fn main() {}
