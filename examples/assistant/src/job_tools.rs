//! Background jobs.

use optimclaw::{ToolContext, ToolError, tool};
use serde_json::Value;

use crate::core_tools::app;
use crate::jobs::Job;

fn db_err(e: rusqlite::Error) -> ToolError {
    ToolError::new(format!("the job store failed: {e}"))
}

/// Create a new background job with the given prompt and priority. With
/// `tool` and `arguments` the job runs that tool call in the background.
#[tool(
    deferred, asks = ["do this in the background while I work on something else"], keywords = ["background", "start", "launch", "kick off", "long-running", "task", "queue", "async"],
    examples = [{"prompt": "Summarize today's news", "priority": 3}, {"prompt": "Check the disk", "tool": "shell", "arguments": {"command": "df -h"}, "timeout_secs": 60}]
)]
fn job_create(
    ctx: &ToolContext,
    /// What the job should do.
    prompt: String,
    /// 1 is most urgent, 10 least.
    #[arg(default = 5)]
    priority: u8,
    /// Give up after this many seconds.
    #[arg(default = 300)]
    timeout_secs: u64,
    /// A tool to run as the job, e.g. "shell".
    tool: Option<String>,
    /// The tool's arguments.
    arguments: Option<Value>,
) -> Result<Job, ToolError> {
    if prompt.trim().is_empty() {
        return Err(ToolError::new(
            "the prompt is empty; say what the job should do",
        ));
    }
    if !(1..=10).contains(&priority) {
        return Err(ToolError::new(format!(
            "priority {priority} is out of range; use 1 (most urgent) to 10"
        )));
    }
    if timeout_secs == 0 || timeout_secs > 86_400 {
        return Err(ToolError::new("timeout_secs must be between 1 and 86400"));
    }
    let app = app(ctx)?;
    if let (Some(name), Some(registry)) = (&tool, ctx.registry())
        && registry.get(name).is_none()
    {
        return Err(ToolError::new(format!(
            "no tool is named {name:?}; use tool_info to find one"
        )));
    }
    app.jobs
        .create(&prompt, priority, timeout_secs, tool, arguments)
        .map_err(db_err)
}

/// Report the status (and result or error) of a background job.
#[tool(deferred, asks = ["has my background task finished?"], keywords = ["background", "progress", "result", "check", "done", "finished", "status"], read_only)]
fn job_status(
    ctx: &ToolContext,
    /// The job's id, e.g. job-1a2b3c4d5e6f.
    id: String,
) -> Result<Job, ToolError> {
    app(ctx)?
        .jobs
        .get(&id)
        .map_err(db_err)?
        .ok_or_else(|| ToolError::new(format!("no job has id {id:?}; job_list shows recent jobs")))
}

/// Cancel a queued or running background job.
#[tool(deferred, asks = ["abort the job that is stuck"], keywords = ["background", "stop", "abort", "kill", "stuck"], destructive, idempotent)]
fn job_cancel(
    ctx: &ToolContext,
    /// The job's id.
    id: String,
) -> Result<Job, ToolError> {
    app(ctx)?
        .jobs
        .cancel(&id)
        .map_err(db_err)?
        .ok_or_else(|| ToolError::new(format!("no job has id {id:?}; job_list shows recent jobs")))
}

/// List background jobs, newest first, optionally of one status.
#[tool(deferred, asks = ["show me the jobs that are running", "what is queued up in the background?"], keywords = ["background", "queue", "running", "history", "all jobs"], read_only)]
fn job_list(
    ctx: &ToolContext,
    /// Only jobs in this status: queued, running, done, failed, cancelled, timed_out, interrupted.
    status: Option<String>,
    /// How many jobs at most.
    #[arg(default = 20)]
    limit: usize,
) -> Result<Vec<Job>, ToolError> {
    app(ctx)?
        .jobs
        .list(status.as_deref(), limit.clamp(1, 200))
        .map_err(db_err)
}
