use optimclaw::tool;

/// Create a job.
#[tool(examples = [{"prompt": 42, "priority": "high", "labels": "urgent", "dry_run": null}])]
fn job_create(prompt: String, priority: u8, labels: Vec<String>, dry_run: bool) -> String {
    format!("{prompt} {priority} {labels:?} {dry_run}")
}

fn main() {}
