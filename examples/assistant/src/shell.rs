//! How the `shell` tool runs a command: `sh -c` in the workspace, inside
//! `optimclaw::sandbox` (files only in the workspace, nothing of the
//! assistant's home, no network unless allowed, limits and a process cap),
//! with a time limit, an output cap, redacted output, and nothing left
//! running afterwards.

use std::process::Stdio;
use std::time::Duration;

use optimclaw::ToolError;
#[cfg(target_os = "linux")]
use optimclaw_sandbox::{Limits, Sandbox};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::io::AsyncReadExt;

use crate::App;

/// What a shell command printed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShellOutput {
    /// The exit code (absent when killed by a signal).
    exit_code: Option<i32>,
    /// Standard output (secrets redacted).
    stdout: String,
    /// Standard error (secrets redacted).
    stderr: String,
    /// Whether output was cut at the size limit.
    truncated: bool,
}

async fn read_limited<R: tokio::io::AsyncRead + Unpin>(
    mut reader: R,
    cap: usize,
) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    let mut cut = false;
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                cut |= n > room;
            }
        }
    }
    (kept, cut)
}

/// The sandbox `shell` runs in under `app`'s configuration.
#[cfg(target_os = "linux")]
pub fn sandbox(app: &App, limit: Duration) -> Sandbox {
    Sandbox::new()
        .read_write(app.workspace.root())
        .allow_network(app.config.shell_network)
        // The wall-clock limit ends the command first; CPU time is a
        // second bound for what it leaves spinning.
        .limits(Limits::default().with_cpu_seconds(limit.as_secs() + 5))
}

/// A started command: sandboxed, or (when the user opted out) only in its
/// own process group.
enum Running {
    #[cfg(target_os = "linux")]
    Confined(optimclaw_sandbox::Confined),
    Plain(tokio::process::Child),
}

impl Running {
    fn child(&mut self) -> &mut tokio::process::Child {
        match self {
            #[cfg(target_os = "linux")]
            Running::Confined(c) => c.child(),
            Running::Plain(c) => c,
        }
    }

    /// Kills whatever is still running: the sandbox's every process, or
    /// the process group.
    fn kill_all(&mut self) {
        match self {
            #[cfg(target_os = "linux")]
            Running::Confined(c) => c.kill_all(),
            Running::Plain(child) => {
                if let Some(pid) = child.id() {
                    let _ = std::process::Command::new("kill")
                        .args(["-KILL", "--", &format!("-{pid}")])
                        .status();
                }
                let _ = child.start_kill();
            }
        }
    }
}

fn start(app: &App, command: &str, limit: Duration) -> Result<Running, ToolError> {
    let root = app.workspace.root();
    let tmp = root.join(".tmp");
    std::fs::create_dir_all(&tmp)
        .map_err(|e| ToolError::new(format!("cannot create the workspace's .tmp folder: {e}")))?;
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(root)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", root)
        .env("TMPDIR", &tmp)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if app.config.unsandboxed_shell {
        cmd.process_group(0);
        return cmd
            .spawn()
            .map(Running::Plain)
            .map_err(|e| ToolError::new(format!("cannot start the shell: {e}")));
    }
    #[cfg(target_os = "linux")]
    let confined = sandbox(app, limit)
        .spawn_protecting(&mut cmd, &[&app.config.home])
        .map(Running::Confined)
        .map_err(|e| e.to_string());
    #[cfg(not(target_os = "linux"))]
    let confined = {
        let _ = limit;
        Err::<Running, _>(format!(
            "the sandbox needs Linux (this is {})",
            std::env::consts::OS
        ))
    };
    confined.map_err(|e| {
        ToolError::new(format!(
            "the shell cannot run sandboxed here: {e}. The user can start the assistant with --unsandboxed-shell to run commands without confinement"
        ))
    })
}

/// Runs `command` with the time limit `limit`.
pub async fn run(app: &App, command: &str, limit: Duration) -> Result<ShellOutput, ToolError> {
    let mut running = start(app, command, limit)?;
    let cap = app.config.shell_output_cap;
    let child = running.child();
    let out = tokio::spawn(read_limited(child.stdout.take().expect("piped"), cap));
    let err = tokio::spawn(read_limited(child.stderr.take().expect("piped"), cap));
    let waited = tokio::time::timeout(limit, child.wait()).await;
    // Whatever the command left behind (background jobs, daemons) goes
    // with it, which also closes the pipes they held.
    running.kill_all();
    let status = match waited {
        Ok(status) => {
            status.map_err(|e| ToolError::new(format!("waiting for the command failed: {e}")))?
        }
        Err(_) => {
            let _ = running.child().wait().await;
            return Err(ToolError::new(format!(
                "the command did not finish within {} s and was killed; run something shorter",
                limit.as_secs()
            )));
        }
    };
    let (stdout, cut_out) = out.await.unwrap_or_default();
    let (stderr, cut_err) = err.await.unwrap_or_default();
    Ok(ShellOutput {
        exit_code: status.code(),
        stdout: app.secrets.redact(&String::from_utf8_lossy(&stdout)),
        stderr: app.secrets.redact(&String::from_utf8_lossy(&stderr)),
        truncated: cut_out || cut_err,
    })
}
