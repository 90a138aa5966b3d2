//! The process cap: a `pids` cgroup per sandboxed program (cgroup v1 or
//! v2), which also lets every process it started be found and killed.

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::{ProcessCap, SandboxError};

/// The folder, under a `pids` hierarchy, that holds the sandboxes' groups.
const PARENT: &str = "optimclaw-sandbox";

/// A `pids` hierarchy's mount point and whether it is cgroup v2.
fn pids_hierarchy() -> Option<(PathBuf, bool)> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    for line in mounts.lines() {
        // `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - TYPE SOURCE SUPER`
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let Some(mount) = left.split(' ').nth(4) else {
            continue;
        };
        let mut right = right.split(' ');
        let fstype = right.next().unwrap_or_default();
        let options = right.nth(1).unwrap_or_default();
        let mount = PathBuf::from(mount);
        if fstype == "cgroup" && options.split(',').any(|o| o == "pids") {
            return Some((mount, false));
        }
        if fstype == "cgroup2"
            && std::fs::read_to_string(mount.join("cgroup.controllers"))
                .is_ok_and(|c| c.split_whitespace().any(|c| c == "pids"))
        {
            return Some((mount, true));
        }
    }
    None
}

/// Enables the `pids` controller for the children of `dir` (cgroup v2).
fn enable_pids(dir: &Path) -> std::io::Result<()> {
    let control = dir.join("cgroup.subtree_control");
    if std::fs::read_to_string(&control)?
        .split_whitespace()
        .any(|c| c == "pids")
    {
        return Ok(());
    }
    std::fs::write(control, "+pids")
}

/// The folder new groups go in, created (and, on v2, with `pids`
/// enabled) — or why there is none.
fn parent_dir() -> Result<PathBuf, String> {
    let (mount, v2) = pids_hierarchy()
        .ok_or_else(|| "no cgroup hierarchy with the pids controller is mounted".to_owned())?;
    let parent = mount.join(PARENT);
    let made = std::fs::create_dir_all(&parent).and_then(|()| {
        if v2 {
            enable_pids(&mount)?;
            enable_pids(&parent)?;
        }
        // The folder may exist (made by another user): can we add to it?
        // One name per probe: threads probing at once must not remove
        // each other's folder.
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let probe = parent.join(format!(
            "probe-{}-{}",
            std::process::id(),
            PROBES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&probe).or_else(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Ok(())
            } else {
                Err(e)
            }
        })?;
        std::fs::remove_dir(&probe)
    });
    made.map_err(|e| format!("cannot create a pids cgroup under {}: {e}", mount.display()))?;
    Ok(parent)
}

/// How processes can be capped here.
pub(crate) fn probe() -> Result<ProcessCap, SandboxError> {
    let cgroup = parent_dir();
    if let Ok(parent) = cgroup {
        return Ok(ProcessCap::Cgroup(parent));
    }
    // SAFETY: no arguments.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        return Err(SandboxError::new(format!(
            "running as root, which ignores RLIMIT_NPROC, and {}",
            cgroup.err().unwrap_or_default()
        )));
    }
    let namespaces = std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let unprivileged = std::fs::read_to_string("/proc/sys/kernel/unprivileged_userns_clone")
        .map_or(true, |s| s.trim() == "1");
    if namespaces > 0 && unprivileged {
        Ok(ProcessCap::UserNamespace)
    } else {
        Err(SandboxError::new(
            "user namespaces are disabled and no pids cgroup can be created",
        ))
    }
}

/// One sandbox's cgroup, removed when dropped.
#[derive(Debug)]
pub(crate) struct PidsCgroup {
    dir: PathBuf,
    procs: CString,
}

impl PidsCgroup {
    /// A new group under `parent` allowing `max` processes.
    pub(crate) fn create(parent: &Path, max: u64) -> Result<Self, SandboxError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = parent.join(name);
        let fail = |dir: &Path, e: std::io::Error| {
            SandboxError::io(
                format!("cannot set up the process cap in {}: {e}", dir.display()),
                e,
            )
        };
        std::fs::create_dir(&dir).map_err(|e| fail(&dir, e))?;
        let group = PidsCgroup {
            procs: CString::new(
                dir.join("cgroup.procs")
                    .into_os_string()
                    .into_encoded_bytes(),
            )
            .map_err(|_| SandboxError::new("a cgroup path holds a NUL byte"))?,
            dir,
        };
        std::fs::write(group.dir.join("pids.max"), max.max(1).to_string())
            .map_err(|e| fail(&group.dir, e))?;
        Ok(group)
    }

    /// The `cgroup.procs` file the child writes itself into.
    pub(crate) fn procs_file(&self) -> &CStr {
        &self.procs
    }

    fn members(&self) -> Vec<libc::pid_t> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// Processes in the group now.
    pub(crate) fn count(&self) -> usize {
        self.members().len()
    }

    /// Kills every process in the group, until none is left (bounded: the
    /// cap keeps a fork loop from outrunning it).
    pub(crate) fn kill_all(&self) {
        let kill_file = self.dir.join("cgroup.kill");
        if kill_file.exists() {
            let _ = std::fs::write(&kill_file, "1");
        }
        for _ in 0..200 {
            let members = self.members();
            if members.is_empty() {
                return;
            }
            for pid in members {
                // SAFETY: a plain system call.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        self.kill_all();
        // Killed processes leave the group once reaped, a moment later.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_at_once_agree_with_one_alone() {
        // Threads probing together once removed each other's probe folder,
        // so a sandbox started beside another could find no process cap.
        let alone = probe().is_ok();
        let results: Vec<bool> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..8)
                .map(|_| s.spawn(|| (0..25).all(|_| probe().is_ok() == alone)))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert!(results.iter().all(|&same| same), "{results:?}");
    }
}
