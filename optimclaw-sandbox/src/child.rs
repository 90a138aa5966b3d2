//! What the forked child does before `exec`: join its cgroup (or a fresh
//! user namespace), set limits, drop every capability, set
//! `no_new_privs`, enforce the Landlock ruleset and install the seccomp
//! filter — in that order, each later step needing the earlier ones'
//! privileges gone or in place.
//!
//! Between `fork` and `exec` of a multithreaded program only
//! async-signal-safe calls are allowed: no allocation, no locks. Every
//! byte used here (paths, map lines, the filter) is prepared in the parent,
//! and the steps are raw system calls through `libc` (rather than the
//! `caps`/`landlock`/`seccompiler` helpers, which allocate or lock).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use seccompiler::BpfProgram;

use super::{Limits, SandboxError};

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Everything the child needs, prepared before the fork.
pub(crate) struct ChildPlan {
    cgroup_procs: Option<CString>,
    /// `uid_map` and `gid_map` lines for a user namespace of one's own.
    user_namespace: Option<(Vec<u8>, Vec<u8>)>,
    limits: Limits,
    ruleset: RawFd,
    filter: Option<BpfProgram>,
}

fn check(rc: libc::c_long) -> io::Result<()> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `bytes` to the file at `path` (async-signal-safe).
fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated, `bytes` is valid for its length.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd.into())?;
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        check(written as libc::c_long)
    }
}

impl ChildPlan {
    pub(crate) fn new(
        cgroup_procs: Option<&CStr>,
        user_namespace: bool,
        limits: Limits,
        ruleset: &OwnedFd,
        filter: Option<BpfProgram>,
    ) -> Result<Self, SandboxError> {
        let user_namespace = user_namespace.then(|| {
            // SAFETY: no arguments.
            let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
            (
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )
        });
        Ok(ChildPlan {
            cgroup_procs: cgroup_procs.map(CStr::to_owned),
            user_namespace,
            limits,
            ruleset: ruleset.as_raw_fd(),
            filter,
        })
    }

    /// Runs in the child between `fork` and `exec`.
    pub(crate) fn apply(&self) -> io::Result<()> {
        if let Some(procs) = &self.cgroup_procs {
            // "0" is the writing process itself.
            write_file(procs, b"0")?;
        }
        if let Some((uid_map, gid_map)) = &self.user_namespace {
            // SAFETY: plain system calls on prepared, NUL-terminated paths.
            unsafe {
                check(libc::unshare(libc::CLONE_NEWUSER).into())?;
            }
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/uid_map", uid_map)?;
            write_file(c"/proc/self/gid_map", gid_map)?;
        }
        self.set_limits()?;
        drop_capabilities()?;
        // SAFETY: plain system calls; the ruleset descriptor stays open in
        // the parent until `spawn` returns, and the filter lives in `self`.
        unsafe {
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0).into())?;
            check(libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset,
                0u32,
            ))?;
            if let Some(filter) = &self.filter {
                let program = libc::sock_fprog {
                    len: u16::try_from(filter.len())
                        .map_err(|_| io::Error::from_raw_os_error(libc::E2BIG))?,
                    filter: filter.as_ptr().cast_mut().cast(),
                };
                check(libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0u32,
                    &raw const program,
                ))?;
            }
        }
        Ok(())
    }

    fn set_limits(&self) -> io::Result<()> {
        let l = &self.limits;
        let nproc = if self.user_namespace.is_some() {
            // Counted per user namespace: only the sandbox's processes.
            l.processes
        } else {
            libc::RLIM_INFINITY
        };
        let limits = [
            (libc::RLIMIT_CPU, l.cpu_seconds),
            (libc::RLIMIT_AS, l.address_space_bytes),
            (libc::RLIMIT_FSIZE, l.file_size_bytes),
            (libc::RLIMIT_NOFILE, l.open_files),
            (libc::RLIMIT_NPROC, nproc),
        ];
        for (resource, value) in limits {
            if value == libc::RLIM_INFINITY {
                continue;
            }
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            // SAFETY: `limit` is a valid rlimit on the stack.
            unsafe {
                check(libc::setrlimit(resource, &raw const limit).into())?;
            }
        }
        Ok(())
    }
}

/// Empties the bounding, ambient, inheritable, permitted and effective
/// capability sets: a root caller keeps uid 0 but no privilege (it cannot
/// raise limits, override file permissions or leave its cgroup).
fn drop_capabilities() -> io::Result<()> {
    // SAFETY: plain system calls with stack values.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        for cap in 0..64 {
            // EINVAL past the last capability; EPERM without CAP_SETPCAP
            // (then the bounding set cannot matter: nothing is permitted).
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) < 0
                && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL)
            {
                break;
            }
        }
        let header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        check(libc::syscall(
            libc::SYS_capset,
            &raw const header,
            data.as_ptr(),
        ))
    }
}
