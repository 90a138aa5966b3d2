use optimclaw::tool;

struct Greeter;

impl Greeter {
    /// Greet someone.
    #[tool]
    fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {
    Greeter.greet(String::new());
}
