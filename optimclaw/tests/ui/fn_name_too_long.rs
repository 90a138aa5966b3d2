use optimclaw::tool;

/// Echo a text.
#[tool]
fn echo_the_text_back_to_the_caller_without_changing_any_of_its_characters_at_all(text: String) -> String {
    text
}

fn main() {}
