use optimclaw::tool;

struct Report {
    lines: usize,
}

/// Make a report.
#[tool]
fn report(lines: usize) -> Report {
    Report { lines }
}

fn main() {
    let _ = report(1).lines;
}
