use optimclaw::tool;

/// Delete a file.
#[tool(read_only, destructive)]
fn file_delete(path: String) -> String {
    path
}

fn main() {}
