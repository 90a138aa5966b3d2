//! The seccomp filter that keeps a sandboxed program off the network:
//! `socket` is refused for every address family but `AF_UNIX`, and
//! `io_uring` (whose operations can open sockets without `socket`) is
//! refused outright. Everything else is allowed.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::SandboxError;

/// Whether this kernel installs seccomp filters.
pub(crate) fn seccomp_available() -> bool {
    // SAFETY: a query without pointers; -1 with EINVAL without seccomp.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}

/// The compiled filter.
pub(crate) fn filter() -> Result<BpfProgram, SandboxError> {
    let fail = |e: &dyn std::fmt::Display| {
        SandboxError::new(format!("cannot build the network filter: {e}"))
    };
    let not_unix = SeccompRule::new(vec![
        SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .map_err(|e| fail(&e))?,
    ])
    .map_err(|e| fail(&e))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, vec![not_unix]);
    // An empty rule list matches every call of the system call.
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    rules.insert(libc::SYS_io_uring_enter, Vec::new());
    rules.insert(libc::SYS_io_uring_register, Vec::new());
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| fail(&e))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|e| fail(&e))?;
    BpfProgram::try_from(filter).map_err(|e| fail(&e))
}
