//! What each access key may hold on an MCP server over HTTP beside its
//! sessions (counted in [`Sessions`](super::sessions::Sessions)): its tool
//! calls in flight, so one key cannot take what every other key needs; and
//! how a refusal over either quota reads.

use std::sync::{Arc, Mutex, PoisonError};

/// Per-key tool calls running. Keys are the index of the access key in
/// [`HttpAuth`](super::HttpAuth).
#[derive(Clone)]
pub(super) struct Quotas {
    max_calls_per_key: usize,
    calls: Arc<Mutex<Vec<usize>>>,
}

/// Why a key was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OverQuota {
    /// It holds `max_sessions_per_key` sessions.
    Sessions(usize),
    /// It has `max_calls_per_key` tool calls running.
    Calls(usize),
}

/// One key's tool calls, counted while this lives.
pub(super) struct CallPermit {
    calls: Arc<Mutex<Vec<usize>>>,
    key: usize,
    count: usize,
}

impl Drop for CallPermit {
    fn drop(&mut self) {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = calls.get_mut(self.key) {
            *n = n.saturating_sub(self.count);
        }
    }
}

impl Quotas {
    pub(super) fn new(keys: usize, max_calls_per_key: usize) -> Self {
        Quotas {
            max_calls_per_key: max_calls_per_key.max(1),
            calls: Arc::new(Mutex::new(vec![0; keys])),
        }
    }

    /// Counts `count` tool calls of `key` until the permit is dropped, or
    /// refuses them when the key has its limit running.
    pub(super) fn calls(&self, key: usize, count: usize) -> Result<CallPermit, OverQuota> {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(running) = calls.get_mut(key) else {
            return Err(OverQuota::Calls(self.max_calls_per_key));
        };
        if *running + count > self.max_calls_per_key {
            return Err(OverQuota::Calls(self.max_calls_per_key));
        }
        *running += count;
        Ok(CallPermit {
            calls: Arc::clone(&self.calls),
            key,
            count,
        })
    }
}

impl OverQuota {
    /// The message a refused client reads, and the quota's name and value.
    pub(super) fn message(self, retry_secs: u64) -> (String, &'static str, usize) {
        match self {
            OverQuota::Sessions(max) => (
                format!(
                    "this access key holds its quota of {max} live MCP sessions (max_sessions_per_key); end sessions you no longer use with HTTP DELETE, or retry in {retry_secs} s"
                ),
                "max_sessions_per_key",
                max,
            ),
            OverQuota::Calls(max) => (
                format!(
                    "this access key has its quota of {max} tool calls running at once (max_calls_per_key); retry in {retry_secs} s"
                ),
                "max_calls_per_key",
                max,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_while_their_permit_lives() {
        let q = Quotas::new(2, 3);
        let two = q.calls(0, 2).unwrap();
        let one = q.calls(0, 1).unwrap();
        assert!(matches!(q.calls(0, 1), Err(OverQuota::Calls(3))));
        assert!(q.calls(1, 3).is_ok(), "another key is unaffected");
        drop(two);
        assert!(q.calls(0, 2).is_ok());
        drop(one);
        assert!(matches!(q.calls(5, 1), Err(OverQuota::Calls(3))));
    }
}
