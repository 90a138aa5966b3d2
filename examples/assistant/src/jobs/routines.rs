//! Routines: cron schedules, kept in the same database, that create jobs
//! when they fire.

use std::time::Duration;

use rusqlite::params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Job, JobRunner};

/// A cron-style schedule that creates jobs.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Routine {
    /// Its name.
    pub name: String,
    /// The cron expression (5 or 6 fields).
    pub schedule: String,
    /// The job's prompt.
    pub prompt: String,
    /// A tool the job runs, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The next time it fires (RFC 3339).
    pub next_run: Option<String>,
}

/// Parses a cron expression (seconds optional).
pub fn parse_cron(expr: &str) -> Result<croner::Cron, String> {
    croner::parser::CronParser::builder()
        .seconds(croner::parser::Seconds::Optional)
        .build()
        .parse(expr)
        .map_err(|e| format!("invalid cron expression {expr:?}: {e}; e.g. \"0 9 * * MON-FRI\" for 09:00 on weekdays"))
}

fn next_run(expr: &str) -> Option<String> {
    let cron = parse_cron(expr).ok()?;
    let now = jiff::Zoned::now();
    cron.find_next_occurrence(&now, false)
        .ok()
        .map(|t| t.timestamp().to_string())
}

impl JobRunner {
    fn routines_table(&self) -> rusqlite::Result<()> {
        self.conn().execute_batch(
            "CREATE TABLE IF NOT EXISTS routines (name TEXT PRIMARY KEY, schedule TEXT NOT NULL, prompt TEXT NOT NULL,
                 tool TEXT, arguments TEXT, last_fired TEXT)",
        )
    }

    /// Adds (or replaces) a routine.
    pub fn routine_create(&self, routine: &Routine) -> Result<Routine, String> {
        parse_cron(&routine.schedule)?;
        self.routines_table().map_err(|e| e.to_string())?;
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO routines (name, schedule, prompt, tool, arguments) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![routine.name, routine.schedule, routine.prompt, routine.tool, routine.arguments.as_ref().map(Value::to_string)],
            )
            .map_err(|e| e.to_string())?;
        Ok(Routine {
            next_run: next_run(&routine.schedule),
            ..routine.clone()
        })
    }

    /// Every routine with the time it last fired.
    fn routine_rows(&self) -> rusqlite::Result<Vec<(Routine, Option<String>)>> {
        self.routines_table()?;
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT name, schedule, prompt, tool, arguments, last_fired FROM routines ORDER BY name",
        )?;
        let rows = stmt.query_map([], |r| {
            let schedule: String = r.get(1)?;
            let routine = Routine {
                name: r.get(0)?,
                next_run: next_run(&schedule),
                schedule,
                prompt: r.get(2)?,
                tool: r.get(3)?,
                arguments: r
                    .get::<_, Option<String>>(4)?
                    .and_then(|s| serde_json::from_str(&s).ok()),
            };
            Ok((routine, r.get(5)?))
        })?;
        rows.collect()
    }

    /// Every routine with its next run.
    pub fn routine_list(&self) -> rusqlite::Result<Vec<Routine>> {
        Ok(self.routine_rows()?.into_iter().map(|(r, _)| r).collect())
    }

    /// Deletes a routine; whether it existed.
    pub fn routine_delete(&self, name: &str) -> rusqlite::Result<bool> {
        self.routines_table()?;
        Ok(self
            .conn()
            .execute("DELETE FROM routines WHERE name = ?1", [name])?
            > 0)
    }

    /// Creates a job for every routine due since it last fired; returns them.
    pub fn fire_due_routines(&self, now: &jiff::Zoned) -> rusqlite::Result<Vec<Job>> {
        let due = self.routine_rows()?;
        let mut created = Vec::new();
        for (routine, last) in due {
            let Routine {
                name,
                schedule,
                prompt,
                tool,
                arguments,
                ..
            } = routine;
            let Ok(cron) = parse_cron(&schedule) else {
                continue;
            };
            let since = last
                .and_then(|l| l.parse::<jiff::Timestamp>().ok())
                .map_or_else(|| now.clone(), |t| t.to_zoned(now.time_zone().clone()));
            let fires = cron
                .find_next_occurrence(&since, false)
                .is_ok_and(|next| next <= *now);
            if fires {
                self.conn().execute(
                    "UPDATE routines SET last_fired = ?2 WHERE name = ?1",
                    params![name, now.timestamp().to_string()],
                )?;
                created.push(self.create(&prompt, 5, 300, tool, arguments)?);
            } else if since == *now {
                self.conn().execute(
                    "UPDATE routines SET last_fired = ?2 WHERE name = ?1",
                    params![name, now.timestamp().to_string()],
                )?;
            }
        }
        Ok(created)
    }

    /// Fires due routines every `every` on the current Tokio runtime.
    pub fn start_scheduler(&self, every: Duration) {
        let runner = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let _ = runner.fire_due_routines(&jiff::Zoned::now());
            }
        });
    }
}
