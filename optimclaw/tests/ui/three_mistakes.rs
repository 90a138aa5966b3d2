use optimclaw::tool;

#[tool(cor, name = "bad name")]
fn echo<T>(text: String, value: T) -> String {
    let _ = value;
    text
}

fn main() {
    // The function is still emitted: no "cannot find function" error here.
    let _ = echo::<u8>(String::new(), 1);
}
