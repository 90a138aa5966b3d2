//! What every module may use at most ([`WasmLimits`]) and what the user
//! lets manifests ask for ([`WasmGrants`]).

use std::path::PathBuf;
use std::time::Duration;

/// Per-call limits: the most any module gets (a manifest may lower them).
/// Lower them for untrusted modules; raise one only when a module you trust
/// needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WasmLimits {
    /// Linear memory per instance, in bytes (default 64 MiB).
    pub memory_bytes: u64,
    /// Fuel per call, about one unit per instruction (default 1e9).
    pub fuel: u64,
    /// Wall-clock time per call (default 10 s).
    pub timeout: Duration,
    /// Bytes of stdout per call (default 1 MiB).
    pub max_output_bytes: usize,
}

impl Default for WasmLimits {
    fn default() -> Self {
        WasmLimits {
            memory_bytes: 64 << 20,
            fuel: 1_000_000_000,
            timeout: Duration::from_secs(10),
            max_output_bytes: 1 << 20,
        }
    }
}

impl WasmLimits {
    /// Sets [`memory_bytes`](Self::memory_bytes).
    #[must_use]
    pub fn with_memory_bytes(mut self, bytes: u64) -> Self {
        self.memory_bytes = bytes;
        self
    }

    /// Sets [`fuel`](Self::fuel).
    #[must_use]
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// Sets [`timeout`](Self::timeout).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`max_output_bytes`](Self::max_output_bytes).
    #[must_use]
    pub fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }
}

/// What the user lets manifests ask for. Nothing by default: fill it from
/// the user's own settings (command-line flags), never from a manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WasmGrants {
    /// Environment variables a module may ask for (their host values).
    pub env: Vec<String>,
    /// Host folders (and everything below) a module may ask to see.
    pub dirs: Vec<PathBuf>,
}

impl WasmGrants {
    /// Sets [`env`](Self::env).
    #[must_use]
    pub fn with_env(mut self, env: Vec<String>) -> Self {
        self.env = env;
        self
    }

    /// Sets [`dirs`](Self::dirs).
    #[must_use]
    pub fn with_dirs(mut self, dirs: Vec<PathBuf>) -> Self {
        self.dirs = dirs;
        self
    }
}
