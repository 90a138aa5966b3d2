//! Running programs in an operating-system sandbox (Linux).
//!
//! A [`Sandbox`] describes what a program may touch; [`Sandbox::spawn`]
//! starts a [`tokio::process::Command`] inside it and returns a [`Confined`]
//! child. Every layer is set up before the program's first instruction, in
//! the forked child, and holds for everything it starts in turn:
//!
//! - **Files** (Landlock): read and execute under the system folders
//!   (`/usr`, `/bin`, `/lib*`, `/etc` without its credential files, `/proc`),
//!   read and write only under the folders given to
//!   [`read_write`](Sandbox::read_write), nothing else. Landlock also keeps
//!   the program from tracing, signalling or reading the memory and
//!   environment (`/proc/PID/environ`) of processes outside the sandbox.
//! - **Network**: none unless [`allow_network`](Sandbox::allow_network).
//!   A seccomp filter refuses `socket` for every family but `AF_UNIX` (and
//!   `io_uring`, which could open sockets around it); Landlock refuses TCP
//!   `bind`/`connect` where the kernel has network rules (ABI 4) and
//!   connections to abstract UNIX sockets outside (ABI 6).
//! - **Privileges**: `no_new_privs`, every capability dropped (also when
//!   the caller is root, so limits cannot be raised again).
//! - **Resources** ([`Limits`]): CPU seconds, address space, file size and
//!   open files as `setrlimit` limits; a cap on processes that holds for
//!   root too: a `pids` cgroup (v1 or v2) of its own when this process may
//!   create one (root, or a delegated cgroup); otherwise, for a non-root
//!   caller, `RLIMIT_NPROC` in a fresh user namespace (so it counts only the
//!   sandbox's processes). Root without a writable `pids` cgroup is refused:
//!   root ignores `RLIMIT_NPROC`.
//! - **Nothing left behind**: the program leads its own process group;
//!   [`Confined::kill_all`] (and dropping the [`Confined`]) kills every
//!   process still in its cgroup — also those that left the group with
//!   `setsid` — or, without a cgroup, its process group.
//!
//! Fail-closed: on a kernel without Landlock (or without seccomp), or when
//! no process cap can be set up, [`Sandbox::spawn`] returns an error saying
//! why; it never runs the program with less confinement than asked.
//! [`Sandbox::support`] tells what this kernel offers, for reports.
//!
//! ```no_run
//! # async fn demo() -> Result<(), optimclaw_sandbox::SandboxError> {
//! use optimclaw_sandbox::Sandbox;
//! let sandbox = Sandbox::new().read_write("/srv/workspace");
//! let mut command = tokio::process::Command::new("sh");
//! command.arg("-c").arg("ls").current_dir("/srv/workspace");
//! let mut confined = sandbox.spawn(&mut command)?;
//! let status = confined.child().wait().await;
//! confined.kill_all(); // whatever it left running
//! # let _ = status; Ok(()) }
//! ```

#![cfg(target_os = "linux")]
// Confining a child process takes raw system calls between fork and exec;
// every unsafe block here says why it is sound.
#![allow(unsafe_code)]
#![warn(missing_docs)]

/// The README's example, compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod cgroup;
mod child;
mod files;
mod network;

use std::fmt;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use cgroup::PidsCgroup;
use child::ChildPlan;

/// Resource limits for a sandboxed program and everything it starts. The
/// defaults suit short shell commands; raise them for builds or data work
/// (a compiler needs more address space and CPU time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// CPU seconds per process (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
    /// Address space per process in bytes (`RLIMIT_AS`).
    pub address_space_bytes: u64,
    /// Largest file a process may write, in bytes (`RLIMIT_FSIZE`);
    /// a write beyond it fails with `EFBIG`.
    pub file_size_bytes: u64,
    /// Open files per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Processes (and threads) alive at once in the whole sandbox.
    pub processes: u64,
}

impl Limits {
    /// Sets [`cpu_seconds`](Self::cpu_seconds).
    #[must_use]
    pub fn with_cpu_seconds(mut self, cpu_seconds: u64) -> Self {
        self.cpu_seconds = cpu_seconds;
        self
    }

    /// Sets [`address_space_bytes`](Self::address_space_bytes).
    #[must_use]
    pub fn with_address_space_bytes(mut self, address_space_bytes: u64) -> Self {
        self.address_space_bytes = address_space_bytes;
        self
    }

    /// Sets [`file_size_bytes`](Self::file_size_bytes).
    #[must_use]
    pub fn with_file_size_bytes(mut self, file_size_bytes: u64) -> Self {
        self.file_size_bytes = file_size_bytes;
        self
    }

    /// Sets [`open_files`](Self::open_files).
    #[must_use]
    pub fn with_open_files(mut self, open_files: u64) -> Self {
        self.open_files = open_files;
        self
    }

    /// Sets [`processes`](Self::processes).
    #[must_use]
    pub fn with_processes(mut self, processes: u64) -> Self {
        self.processes = processes;
        self
    }
}

impl Default for Limits {
    /// 60 CPU seconds, 4 GiB of address space, 256 MiB files, 512 open
    /// files, 128 processes.
    fn default() -> Self {
        Limits {
            cpu_seconds: 60,
            address_space_bytes: 4 << 30,
            file_size_bytes: 256 << 20,
            open_files: 512,
            processes: 128,
        }
    }
}

/// Why a program was not started in the sandbox. Show it to the user as
/// it is: it says what the kernel lacks and how to run anyway, if they
/// choose to. Never fall back to running unconfined on your own.
///
/// Its text is complete on its own; [`source`](std::error::Error::source)
/// gives the system error behind it, when there is one.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct SandboxError {
    message: String,
    #[source]
    source: Option<std::sync::Arc<std::io::Error>>,
}

impl SandboxError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        SandboxError {
            message: message.into(),
            source: None,
        }
    }

    /// `message` (which should end with the cause's text) caused by `source`.
    pub(crate) fn io(message: impl Into<String>, source: std::io::Error) -> Self {
        SandboxError {
            message: message.into(),
            source: Some(std::sync::Arc::new(source)),
        }
    }
}

/// How the process cap is enforced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessCap {
    /// A `pids` cgroup of the sandbox's own, under this hierarchy.
    Cgroup(PathBuf),
    /// `RLIMIT_NPROC` in a new user namespace (non-root callers).
    UserNamespace,
}

/// What this kernel and this process offer to [`Sandbox`]: check it at
/// start-up ([`Sandbox::support`]) to tell the user early, and print it in
/// a status report.
#[derive(Clone, Debug)]
pub struct Support {
    /// The kernel's Landlock ABI version (`None`: no Landlock).
    pub landlock_abi: Option<u32>,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// How processes would be capped, or why they cannot be.
    pub process_cap: Result<ProcessCap, SandboxError>,
}

impl Support {
    /// Whether [`Sandbox::spawn`] can run programs here.
    pub fn is_complete(&self) -> bool {
        self.landlock_abi.is_some() && self.seccomp && self.process_cap.is_ok()
    }

    /// What is missing, in words (empty when complete).
    pub fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        if self.landlock_abi.is_none() {
            missing.push(
                "the kernel has no Landlock (Linux 5.13 or later with `landlock` in the lsm= boot list)"
                    .to_owned(),
            );
        }
        if !self.seccomp {
            missing.push("the kernel has no seccomp filters".to_owned());
        }
        if let Err(why) = &self.process_cap {
            missing.push(why.to_string());
        }
        missing
    }
}

impl fmt::Display for Support {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.landlock_abi {
            Some(abi) => {
                write!(f, "Landlock ABI {abi}")?;
                if abi < 4 {
                    f.write_str(" (no TCP rules: the seccomp filter alone keeps the network out)")?;
                }
            }
            None => f.write_str("no Landlock")?,
        }
        f.write_str(if self.seccomp {
            ", seccomp"
        } else {
            ", no seccomp"
        })?;
        match &self.process_cap {
            Ok(ProcessCap::Cgroup(path)) => {
                write!(f, ", process cap by pids cgroup ({})", path.display())
            }
            Ok(ProcessCap::UserNamespace) => {
                f.write_str(", process cap by RLIMIT_NPROC in a user namespace")
            }
            Err(why) => write!(f, ", no process cap ({why})"),
        }
    }
}

/// What a sandboxed program may touch: use it for every tool that runs a
/// program on the model's behalf. See the [module docs](self) for an
/// example.
#[derive(Clone, Debug)]
pub struct Sandbox {
    read_only: Vec<PathBuf>,
    read_write: Vec<PathBuf>,
    network: bool,
    limits: Limits,
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    /// Read-only system folders, nothing writable, no network, default
    /// [`Limits`].
    pub fn new() -> Self {
        Sandbox {
            read_only: Vec::new(),
            read_write: Vec::new(),
            network: false,
            limits: Limits::default(),
        }
    }

    /// Also lets the program read (and execute) under `path`.
    #[must_use]
    pub fn read_only(mut self, path: impl Into<PathBuf>) -> Self {
        self.read_only.push(path.into());
        self
    }

    /// Lets the program read, write, create and remove under `path`.
    #[must_use]
    pub fn read_write(mut self, path: impl Into<PathBuf>) -> Self {
        self.read_write.push(path.into());
        self
    }

    /// Lets the program open network sockets (off by default).
    #[must_use]
    pub fn allow_network(mut self, allow: bool) -> Self {
        self.network = allow;
        self
    }

    /// Sets the resource limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The folders the program may write under.
    pub fn writable(&self) -> &[PathBuf] {
        &self.read_write
    }

    /// What this kernel and process offer.
    pub fn support() -> Support {
        Support {
            landlock_abi: files::kernel_abi(),
            seccomp: network::seccomp_available(),
            process_cap: cgroup::probe(),
        }
    }

    /// Starts `command` in the sandbox. Its own settings (arguments,
    /// environment, working folder, pipes) are kept; the sandbox adds its
    /// own process group and the layers of the [module docs](self).
    ///
    /// Fails, without starting anything, when a layer cannot be set up
    /// here, or when a writable folder contains `protect` paths (see
    /// [`spawn_protecting`](Self::spawn_protecting)).
    pub fn spawn(&self, command: &mut tokio::process::Command) -> Result<Confined, SandboxError> {
        self.spawn_protecting(command, &[])
    }

    /// [`spawn`](Self::spawn), refusing when a writable folder is, or holds,
    /// one of `protect` (e.g. a folder of secrets that must stay out of
    /// reach).
    pub fn spawn_protecting(
        &self,
        command: &mut tokio::process::Command,
        protect: &[&Path],
    ) -> Result<Confined, SandboxError> {
        for writable in &self.read_write {
            let writable = writable.canonicalize().map_err(|e| {
                SandboxError::io(
                    format!(
                        "the writable folder {} cannot be used: {e}",
                        writable.display()
                    ),
                    e,
                )
            })?;
            for protected in protect {
                let protected = protected
                    .canonicalize()
                    .unwrap_or_else(|_| protected.to_path_buf());
                if protected.starts_with(&writable) {
                    return Err(SandboxError::new(format!(
                        "the writable folder {} holds {}, which must stay out of the sandbox; choose a folder outside it",
                        writable.display(),
                        protected.display()
                    )));
                }
            }
        }
        let support = Self::support();
        if support.landlock_abi.is_none() || !support.seccomp {
            return Err(SandboxError::new(format!(
                "cannot sandbox the program: {}",
                support.missing().join("; ")
            )));
        }
        let ruleset: OwnedFd = files::ruleset(&self.read_only, &self.read_write, self.network)?;
        let filter = if self.network {
            None
        } else {
            Some(network::filter()?)
        };
        // The probe done for `support` (a mkdir and rmdir) decides.
        let (cgroup, user_namespace) = match support.process_cap {
            Ok(ProcessCap::Cgroup(root)) => (
                Some(PidsCgroup::create(&root, self.limits.processes)?),
                false,
            ),
            Ok(ProcessCap::UserNamespace) => (None, true),
            Err(why) => {
                return Err(SandboxError::new(format!(
                    "cannot cap the program's processes: {why}"
                )));
            }
        };
        let plan = ChildPlan::new(
            cgroup.as_ref().map(PidsCgroup::procs_file),
            user_namespace,
            self.limits,
            &ruleset,
            filter,
        )?;
        command.process_group(0);
        // SAFETY: `ChildPlan::apply` makes only async-signal-safe system
        // calls on memory prepared before the fork (see child.rs).
        unsafe {
            command.pre_exec(move || plan.apply());
        }
        let spawned = command.spawn();
        drop(ruleset);
        let child =
            spawned.map_err(|e| SandboxError::io(format!("cannot start the program: {e}"), e))?;
        Ok(Confined {
            group: child.id(),
            child,
            cgroup,
        })
    }
}

/// A program running in a [`Sandbox`].
///
/// Dropping it kills every process the program left behind.
#[derive(Debug)]
pub struct Confined {
    child: tokio::process::Child,
    group: Option<u32>,
    cgroup: Option<PidsCgroup>,
}

impl Confined {
    /// The program's process (to wait for it, take its pipes, …).
    pub fn child(&mut self) -> &mut tokio::process::Child {
        &mut self.child
    }

    /// Kills every process of the sandbox still running: the whole cgroup
    /// when there is one (also processes that left the process group),
    /// else the process group.
    pub fn kill_all(&mut self) {
        if let Some(group) = self.group {
            // SAFETY: a plain system call; a stale group id only fails.
            unsafe {
                libc::kill(-(group as libc::pid_t), libc::SIGKILL);
            }
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
        let _ = self.child.start_kill();
    }

    /// How many processes of the sandbox are alive now (from its cgroup;
    /// `None` without one).
    pub fn processes(&self) -> Option<usize> {
        self.cgroup.as_ref().map(PidsCgroup::count)
    }
}

impl Drop for Confined {
    fn drop(&mut self) {
        self.kill_all();
    }
}
