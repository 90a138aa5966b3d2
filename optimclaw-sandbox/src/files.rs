//! The Landlock ruleset: which folders a sandboxed program may read and
//! write, plus TCP and scope restrictions where the kernel has them.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope,
};

use super::SandboxError;

/// System folders a program needs to run, readable and executable.
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
];

/// Entries of `/etc` that hold credentials: never readable.
const ETC_SECRETS: &[&str] = &[
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "ssh",
    "ssl",
    "security",
    "credstore",
    "credstore.encrypted",
];

/// Devices every program may read and write.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The newest ABI this crate knows: rules are written against it and the
/// `landlock` crate drops, best effort, what the running kernel lacks.
const NEWEST: ABI = ABI::V10;

/// The running kernel's Landlock ABI, `None` without Landlock.
pub(crate) fn kernel_abi() -> Option<u32> {
    // The `landlock` crate keeps the version private on purpose (it wants
    // callers to request features, not compare versions); a report needs it.
    // SAFETY: the documented version query: no pointers are read.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    u32::try_from(version).ok().filter(|v| *v >= 1)
}

fn err(what: &str, e: impl std::fmt::Display) -> SandboxError {
    SandboxError::new(format!("cannot set up the file sandbox ({what}): {e}"))
}

/// Readable system paths: [`SYSTEM`], `/etc` but its credential files,
/// the CA certificates, and `extra`.
fn readable(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = SYSTEM.iter().map(PathBuf::from).collect();
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !ETC_SECRETS.iter().any(|s| name == *s) {
                paths.push(entry.path());
            }
        }
    }
    paths.push(PathBuf::from("/etc/ssl/certs"));
    paths.extend(extra.iter().cloned());
    paths
}

fn add(
    ruleset: landlock::RulesetCreated,
    path: &Path,
    access: landlock::BitFlags<AccessFs>,
) -> Result<landlock::RulesetCreated, SandboxError> {
    let Ok(fd) = PathFd::new(path) else {
        // A system folder this machine does not have.
        return Ok(ruleset);
    };
    // A file (not a folder) takes only file rights.
    let access = if path.is_dir() {
        access
    } else {
        access & AccessFs::from_file(NEWEST)
    };
    ruleset
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| err(&path.display().to_string(), e))
}

/// Builds the ruleset and returns its file descriptor, for the child to
/// enforce with `landlock_restrict_self`.
pub(crate) fn ruleset(
    read_only: &[PathBuf],
    read_write: &[PathBuf],
    network: bool,
) -> Result<OwnedFd, SandboxError> {
    let mut base = Ruleset::default()
        // File rules are required (the caller checked that Landlock
        // exists); newer refinements are taken where the kernel has them.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(NEWEST))
        .map_err(|e| err("file rights", e))?
        .scope(Scope::from_all(NEWEST))
        .map_err(|e| err("scopes", e))?;
    if !network {
        // Handled with no rule: every TCP bind and connect is refused.
        base = base
            .handle_access(AccessNet::from_all(NEWEST))
            .map_err(|e| err("network rights", e))?;
    }
    let mut ruleset = base.create().map_err(|e| err("create", e))?;
    let read = AccessFs::from_read(NEWEST);
    for path in readable(read_only) {
        ruleset = add(ruleset, &path, read)?;
    }
    let device = AccessFs::ReadFile | AccessFs::WriteFile;
    for path in DEVICES {
        ruleset = add(ruleset, Path::new(path), device)?;
    }
    for path in read_write {
        if !path.is_dir() {
            return Err(SandboxError::new(format!(
                "the writable folder {} does not exist",
                path.display()
            )));
        }
        ruleset = add(ruleset, path, AccessFs::from_all(NEWEST))?;
    }
    Option::<OwnedFd>::from(ruleset)
        .ok_or_else(|| SandboxError::new("the kernel refused to create a Landlock ruleset"))
}
