use optimclaw::tool;

/// Create a job.
#[tool(examples = [{"priority": 3}])]
fn job_create(
    prompt: String,
    #[arg(default = 5)] priority: u8,
) -> String {
    format!("{prompt} {priority}")
}

fn main() {}
