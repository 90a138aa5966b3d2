//! What each access key holds on an MCP server over HTTP: its live
//! sessions (and when each was last used) and its tool calls in flight, so
//! one key cannot take what every other key needs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Per-key accounting. Keys are the index of the access key in
/// [`HttpAuth`](super::HttpAuth).
pub(super) struct Quotas {
    max_sessions_per_key: usize,
    max_calls_per_key: usize,
    state: Mutex<State>,
    calls: Arc<Mutex<Vec<usize>>>,
}

#[derive(Default)]
struct State {
    sessions: HashMap<String, Entry>,
    /// Sessions per key, kept beside `sessions` so an `initialize` is not a
    /// walk over every live session.
    per_key: Vec<usize>,
}

struct Entry {
    key: usize,
    last: Instant,
    /// A request other than the `initialized` notification came after
    /// `initialize`: the session is in use, and never evicted for room.
    used: bool,
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
    pub(super) fn new(keys: usize, max_sessions_per_key: usize, max_calls_per_key: usize) -> Self {
        Quotas {
            max_sessions_per_key: max_sessions_per_key.max(1),
            max_calls_per_key: max_calls_per_key.max(1),
            state: Mutex::new(State {
                sessions: HashMap::new(),
                per_key: vec![0; keys],
            }),
            calls: Arc::new(Mutex::new(vec![0; keys])),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `key` may open one more session.
    pub(super) fn may_open(&self, key: usize) -> Result<(), OverQuota> {
        let held = self.state().per_key.get(key).copied().unwrap_or(0);
        if held >= self.max_sessions_per_key {
            Err(OverQuota::Sessions(self.max_sessions_per_key))
        } else {
            Ok(())
        }
    }

    /// `key` opened the session `id`.
    pub(super) fn opened(&self, id: &str, key: usize) {
        let mut state = self.state();
        let entry = Entry {
            key,
            last: Instant::now(),
            used: false,
        };
        if let Some(old) = state.sessions.insert(id.to_owned(), entry) {
            // An id seen again (it should not be): count it once.
            dec(&mut state.per_key, old.key);
        }
        if let Some(n) = state.per_key.get_mut(key) {
            *n += 1;
        }
    }

    /// The key that opened session `id`, if it is known.
    pub(super) fn owner(&self, id: &str) -> Option<usize> {
        self.state().sessions.get(id).map(|e| e.key)
    }

    /// A request came on session `id`; `used` unless it was the
    /// `initialized` notification.
    pub(super) fn touched(&self, id: &str, used: bool) {
        if let Some(entry) = self.state().sessions.get_mut(id) {
            entry.last = Instant::now();
            entry.used |= used;
        }
    }

    /// Session `id` ended.
    pub(super) fn closed(&self, id: &str) {
        let mut state = self.state();
        if let Some(old) = state.sessions.remove(id) {
            dec(&mut state.per_key, old.key);
        }
    }

    /// Forgets the sessions `live` no longer holds (expired, closed).
    pub(super) fn retain(&self, live: impl Fn(&str) -> bool) {
        let mut state = self.state();
        let State { sessions, per_key } = &mut *state;
        sessions.retain(|id, entry| {
            let keep = live(id);
            if !keep {
                dec(per_key, entry.key);
            }
            keep
        });
    }

    /// The least recently used session that made no request after
    /// `initialize`: the one to close when the server is full.
    pub(super) fn evictable(&self) -> Option<String> {
        self.state()
            .sessions
            .iter()
            .filter(|(_, e)| !e.used)
            .min_by_key(|(_, e)| e.last)
            .map(|(id, _)| id.clone())
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

fn dec(per_key: &mut [usize], key: usize) {
    if let Some(n) = per_key.get_mut(key) {
        *n = n.saturating_sub(1);
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
    fn sessions_are_counted_per_key() {
        let q = Quotas::new(2, 2, 8);
        q.opened("a1", 0);
        q.opened("a2", 0);
        assert_eq!(q.may_open(0), Err(OverQuota::Sessions(2)));
        assert_eq!(q.may_open(1), Ok(()));
        q.closed("a1");
        assert_eq!(q.may_open(0), Ok(()));
        q.retain(|id| id != "a2");
        assert_eq!(q.owner("a2"), None);
        q.opened("b1", 1);
        assert_eq!(q.owner("b1"), Some(1));
    }

    #[test]
    fn the_oldest_unused_session_is_evicted_first() {
        let q = Quotas::new(1, 10, 8);
        q.opened("old", 0);
        std::thread::sleep(std::time::Duration::from_millis(2));
        q.opened("used", 0);
        std::thread::sleep(std::time::Duration::from_millis(2));
        q.opened("new", 0);
        q.touched("old", false);
        q.touched("used", true);
        // `old` was touched by `initialized` only, after `new` opened.
        assert_eq!(q.evictable().as_deref(), Some("new"));
        q.closed("new");
        assert_eq!(q.evictable().as_deref(), Some("old"));
        q.closed("old");
        assert_eq!(q.evictable(), None, "a used session is never evicted");
    }

    #[test]
    fn calls_are_counted_while_their_permit_lives() {
        let q = Quotas::new(2, 10, 3);
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
