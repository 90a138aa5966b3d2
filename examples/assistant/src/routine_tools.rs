//! Cron-style routines that create background jobs.

use optimclaw::{ToolContext, ToolError, tool};
use serde_json::Value;

use crate::core_tools::app;
use crate::jobs::Routine;

/// Create (or replace) a routine: a cron schedule that creates a background
/// job each time it fires.
#[tool(deferred, keywords = ["cron", "schedule", "recurring", "repeat", "timer", "every", "remind", "reminder", "daily", "periodically"],
    examples = [{"name": "morning-news", "schedule": "0 9 * * MON-FRI", "prompt": "Summarize today's news"}], idempotent)]
fn routine_create(
    ctx: &ToolContext,
    /// A unique name for the routine.
    name: String,
    /// Cron expression: minute hour day-of-month month day-of-week, e.g. "0 9 * * MON-FRI".
    schedule: String,
    /// What each job should do.
    prompt: String,
    /// A tool each job runs.
    tool: Option<String>,
    /// The tool's arguments.
    arguments: Option<Value>,
) -> Result<Routine, ToolError> {
    if !crate::secrets::valid_name(&name) {
        return Err(ToolError::new(
            "routine names use letters, digits, `_`, `-` and `.` (1 to 64 characters)",
        ));
    }
    let routine = Routine {
        name,
        schedule,
        prompt,
        tool,
        arguments,
        next_run: None,
    };
    app(ctx)?
        .jobs
        .routine_create(&routine)
        .map_err(ToolError::new)
}

/// List routines with their schedules and next run times.
#[tool(deferred, asks = ["what reminders have I scheduled?", "when does my next scheduled task run?"], keywords = ["cron", "schedule", "scheduled", "recurring", "reminders"], read_only)]
fn routine_list(ctx: &ToolContext) -> Result<Vec<Routine>, ToolError> {
    app(ctx)?
        .jobs
        .routine_list()
        .map_err(|e| ToolError::new(e.to_string()))
}

/// Delete a routine by name.
#[tool(deferred, asks = ["stop the weekly reminder", "remove the daily schedule for the report"], keywords = ["cron", "schedule", "remove", "stop", "cancel", "reminder", "unschedule"], destructive, idempotent)]
fn routine_delete(
    ctx: &ToolContext,
    /// The routine's name.
    name: String,
) -> Result<Value, ToolError> {
    let existed = app(ctx)?
        .jobs
        .routine_delete(&name)
        .map_err(|e| ToolError::new(e.to_string()))?;
    if !existed {
        return Err(ToolError::new(format!(
            "no routine is named {name:?}; routine_list shows them"
        )));
    }
    Ok(serde_json::json!({"deleted": name}))
}
