use optimclaw::tool;

/// Echo a text.
#[tool(name = "this_tool_name_is_much_longer_than_the_sixty_four_characters_providers_accept")]
fn echo(text: String) -> String {
    text
}

fn main() {}
