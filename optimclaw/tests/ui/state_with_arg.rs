use optimclaw::tool;

/// The notes.
struct Notes;

/// Count the notes.
#[tool]
fn note_count(#[arg(default)] notes: &Notes) -> usize {
    let _ = notes;
    0
}

fn main() {}
