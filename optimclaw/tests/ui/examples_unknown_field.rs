use optimclaw::tool;

/// Create a job.
#[tool(examples = [{"prompt": "Summarize the news", "priorty": 3}])]
fn job_create(prompt: String, priority: Option<u8>) -> String {
    format!("{prompt} {priority:?}")
}

fn main() {}
