//! An in-process job runner: jobs with priorities and timeouts, kept in
//! SQLite, run by worker tasks. A job runs a tool call through the
//! registry (`tool` + `arguments`), or hands its prompt to a model runner
//! when one is attached (the assistant's chat loop); prompt-only jobs wait
//! in the queue until then. Routines (cron schedules) create jobs when due.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use optimclaw::{CallOptions, Registry, ToolContext};
use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

mod routines;

pub use routines::{Routine, parse_cron};

/// A job as stored.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Job {
    /// Its id.
    pub id: String,
    /// What the job should do.
    pub prompt: String,
    /// 1 is most urgent, 10 least.
    pub priority: u8,
    /// Time limit in seconds.
    pub timeout_secs: u64,
    /// A tool to run, when the job is a tool call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// queued, running, done, failed, cancelled, timed_out or interrupted.
    pub status: String,
    /// The result, when done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error, when failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it was created (RFC 3339).
    pub created: String,
    /// When it finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished: Option<String>,
}

/// Answers prompt-only jobs (e.g. a model loop).
pub type PromptRunner = Arc<
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<Value, String>> + Send>> + Send + Sync,
>;

#[derive(PartialEq, Eq)]
struct Queued {
    priority: u8,
    seq: i64,
    id: String,
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap pops the greatest: most urgent (lowest number), then oldest.
        other
            .priority
            .cmp(&self.priority)
            .then(other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

struct Inner {
    db: Arc<Mutex<Connection>>,
    queue: Mutex<BinaryHeap<Queued>>,
    notify: Notify,
    running: Mutex<HashMap<String, CancellationToken>>,
    prompt_runner: Mutex<Option<PromptRunner>>,
    started: Mutex<bool>,
}

/// The job runner. Cloning shares it.
#[derive(Clone)]
pub struct JobRunner {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for JobRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobRunner").finish_non_exhaustive()
    }
}

const COLUMNS: &str =
    "id, prompt, priority, timeout_secs, tool, arguments, status, result, error, created, finished";

fn row_to_job(r: &rusqlite::Row<'_>) -> rusqlite::Result<Job> {
    let parse = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
    Ok(Job {
        id: r.get(0)?,
        prompt: r.get(1)?,
        priority: r.get(2)?,
        timeout_secs: r.get::<_, i64>(3)?.try_into().unwrap_or(0),
        tool: r.get(4)?,
        arguments: parse(r.get(5)?),
        status: r.get(6)?,
        result: parse(r.get(7)?),
        error: r.get(8)?,
        created: r.get(9)?,
        finished: r.get(10)?,
    })
}

impl JobRunner {
    /// Opens the job table; jobs left running by a previous process are
    /// marked `interrupted`, queued ones are queued again.
    pub fn open(db: Arc<Mutex<Connection>>) -> rusqlite::Result<Self> {
        let queued = {
            let conn = db.lock().unwrap_or_else(PoisonError::into_inner);
            conn.execute_batch(
                "CREATE TABLE IF NOT EXISTS jobs (
                     seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, prompt TEXT NOT NULL,
                     priority INTEGER NOT NULL, timeout_secs INTEGER NOT NULL, tool TEXT, arguments TEXT,
                     status TEXT NOT NULL, result TEXT, error TEXT, created TEXT NOT NULL, finished TEXT);
                 UPDATE jobs SET status = 'interrupted', error = 'the assistant stopped while the job ran'
                     WHERE status = 'running';",
            )?;
            let mut stmt =
                conn.prepare("SELECT priority, seq, id FROM jobs WHERE status = 'queued'")?;
            let rows = stmt.query_map([], |r| {
                Ok(Queued {
                    priority: r.get(0)?,
                    seq: r.get(1)?,
                    id: r.get(2)?,
                })
            })?;
            rows.collect::<rusqlite::Result<BinaryHeap<_>>>()?
        };
        Ok(JobRunner {
            inner: Arc::new(Inner {
                db,
                queue: Mutex::new(queued),
                notify: Notify::new(),
                running: Mutex::new(HashMap::new()),
                prompt_runner: Mutex::new(None),
                started: Mutex::new(false),
            }),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.inner.db.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a job.
    pub fn create(
        &self,
        prompt: &str,
        priority: u8,
        timeout_secs: u64,
        tool: Option<String>,
        arguments: Option<Value>,
    ) -> rusqlite::Result<Job> {
        let id = format!("job-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let created = jiff::Timestamp::now().to_string();
        let seq = {
            let conn = self.conn();
            conn.execute(
                "INSERT INTO jobs (id, prompt, priority, timeout_secs, tool, arguments, status, created)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7)",
                params![id, prompt, priority, i64::try_from(timeout_secs).unwrap_or(i64::MAX), tool, arguments.as_ref().map(Value::to_string), created],
            )?;
            conn.last_insert_rowid()
        };
        self.inner
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Queued {
                priority,
                seq,
                id: id.clone(),
            });
        self.inner.notify.notify_one();
        self.get(&id).map(|j| j.expect("just inserted"))
    }

    /// A job by id.
    pub fn get(&self, id: &str) -> rusqlite::Result<Option<Job>> {
        self.conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM jobs WHERE id = ?1"),
                [id],
                row_to_job,
            )
            .optional()
    }

    /// Jobs, newest first, optionally of one status.
    pub fn list(&self, status: Option<&str>, limit: usize) -> rusqlite::Result<Vec<Job>> {
        let conn = self.conn();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM jobs WHERE (?1 IS NULL OR status = ?1) ORDER BY seq DESC LIMIT ?2"
        ))?;
        let rows = stmt.query_map(params![status, limit], row_to_job)?;
        rows.collect()
    }

    /// Cancels a queued or running job. `Ok(None)` when there is no such job.
    pub fn cancel(&self, id: &str) -> rusqlite::Result<Option<Job>> {
        let Some(job) = self.get(id)? else {
            return Ok(None);
        };
        if matches!(job.status.as_str(), "queued" | "running") {
            if let Some(token) = self
                .inner
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(id)
            {
                token.cancel();
            }
            self.finish(id, "cancelled", None, Some("cancelled on request"))?;
        }
        self.get(id)
    }

    fn finish(
        &self,
        id: &str,
        status: &str,
        result: Option<&Value>,
        error: Option<&str>,
    ) -> rusqlite::Result<()> {
        // A cancelled job stays cancelled, whatever its task returns later.
        self.conn().execute(
            "UPDATE jobs SET status = ?2, result = ?3, error = ?4, finished = ?5
             WHERE id = ?1 AND status IN ('queued', 'running')",
            params![
                id,
                status,
                result.map(Value::to_string),
                error,
                jiff::Timestamp::now().to_string()
            ],
        )?;
        Ok(())
    }

    /// Lets prompt-only jobs run through `runner` (and wakes the workers).
    pub fn set_prompt_runner(&self, runner: PromptRunner) {
        *self
            .inner
            .prompt_runner
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(runner);
        self.inner.notify.notify_waiters();
    }

    /// Starts `workers` worker tasks on the current Tokio runtime. Calling
    /// it again does nothing.
    pub fn start(&self, registry: Registry, ctx: ToolContext, workers: usize) {
        let mut started = self
            .inner
            .started
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *started {
            return;
        }
        *started = true;
        for _ in 0..workers.max(1) {
            let runner = self.clone();
            let registry = registry.clone();
            let ctx = ctx.clone();
            tokio::spawn(async move { runner.work(registry, ctx).await });
        }
    }

    fn next_runnable(&self) -> Option<Job> {
        let has_prompt_runner = self
            .inner
            .prompt_runner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        let mut queue = self
            .inner
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut waiting = Vec::new();
        let mut found = None;
        while let Some(q) = queue.pop() {
            match self.get(&q.id) {
                Ok(Some(job)) if job.status == "queued" => {
                    if job.tool.is_some() || has_prompt_runner {
                        found = Some(job);
                        break;
                    }
                    waiting.push(q);
                }
                _ => {} // cancelled or gone
            }
        }
        queue.extend(waiting);
        found
    }

    async fn work(self, registry: Registry, ctx: ToolContext) {
        loop {
            let Some(job) = self.next_runnable() else {
                self.inner.notify.notified().await;
                continue;
            };
            self.run(&registry, &ctx, job).await;
        }
    }

    async fn run(&self, registry: &Registry, ctx: &ToolContext, job: Job) {
        let token = CancellationToken::new();
        self.inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(job.id.clone(), token.clone());
        let _ = self.conn().execute(
            "UPDATE jobs SET status = 'running' WHERE id = ?1 AND status = 'queued'",
            [&job.id],
        );
        let limit = Duration::from_secs(job.timeout_secs.max(1));
        let outcome: Result<Value, (String, String)> = match &job.tool {
            Some(tool) => {
                let ctx = ctx.clone().with_cancellation(token.clone());
                let args = job
                    .arguments
                    .clone()
                    .unwrap_or(Value::Object(serde_json::Map::new()));
                registry
                    .call_with(tool, args, &ctx, CallOptions::default().with_timeout(limit))
                    .await
                    .map_err(|e| {
                        let status = match e.kind() {
                            optimclaw::ToolErrorKind::Timeout => "timed_out",
                            optimclaw::ToolErrorKind::Cancelled => "cancelled",
                            _ => "failed",
                        };
                        (status.to_owned(), e.to_string())
                    })
            }
            None => {
                let runner = self
                    .inner
                    .prompt_runner
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                match runner {
                    Some(runner) => match token
                        .run_until_cancelled(tokio::time::timeout(
                            limit,
                            runner(job.prompt.clone()),
                        ))
                        .await
                    {
                        None => Err(("cancelled".into(), "cancelled on request".into())),
                        Some(Err(_)) => Err((
                            "timed_out".into(),
                            format!("did not finish within {} s", limit.as_secs()),
                        )),
                        Some(Ok(r)) => r.map_err(|e| ("failed".into(), e)),
                    },
                    None => Err((
                        "failed".into(),
                        "no model is attached to run prompt-only jobs".into(),
                    )),
                }
            }
        };
        self.inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&job.id);
        let _ = match outcome {
            Ok(value) => self.finish(&job.id, "done", Some(&value), None),
            Err((status, error)) => self.finish(&job.id, &status, None, Some(&error)),
        };
    }
}
