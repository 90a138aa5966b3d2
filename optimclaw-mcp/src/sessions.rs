//! The MCP sessions of an HTTP server (protocol versions before
//! 2026-07-28, where `initialize` opens a session named by the
//! `Mcp-Session-Id` header): which key opened each, when each was last
//! used, and each one's loaded state.
//!
//! The session layer is ours rather than rmcp's `LocalSessionManager`,
//! which keeps a worker task, its channels and a running service per
//! session (about 52 KiB each, measured). Here a session is its id, its
//! key, two timestamps and its [`McpServer`] connection (the loaded
//! tools); each request runs through rmcp's stateless path with that
//! connection as its handler ([`CONNECTION`]), so nothing runs while a
//! session is idle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

// Tokio's clock: the same as the system's, except in tests that pause it.
use tokio::time::Instant;

use tokio_util::sync::CancellationToken;

use super::server::McpServer;

tokio::task_local! {
    /// The session whose request is being handled: rmcp asks its service
    /// factory for a handler per request, and the factory answers with
    /// this connection when one is set.
    pub(super) static CONNECTION: McpServer;
}

/// The connection of the request being handled, if it belongs to a
/// session.
pub(super) fn current() -> Option<McpServer> {
    CONNECTION.try_with(McpServer::clone).ok()
}

/// Live sessions and each key's count of them.
pub(super) struct Sessions {
    idle: Duration,
    max_per_key: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    table: HashMap<Box<str>, Entry>,
    /// Sessions per key, kept beside `table` so an `initialize` is not a
    /// walk over every live session.
    per_key: Vec<usize>,
}

struct Entry {
    server: McpServer,
    key: usize,
    last: Instant,
    /// A request other than the `initialized` notification came after
    /// `initialize`: the session is in use, and never evicted for room.
    used: bool,
    /// `GET` streams open now: while one is, the session is not idle.
    streams: u32,
    /// Cancelled when the session ends, ending its open `GET` streams;
    /// made only when a stream opens.
    ended: Option<CancellationToken>,
}

impl Entry {
    fn end(self) {
        if let Some(ended) = self.ended {
            ended.cancel();
        }
    }
}

/// What a session id names for a key.
pub(super) enum Lookup {
    /// A live session of this key.
    Found(McpServer),
    /// No live session has this id (never opened, ended or expired).
    Unknown,
    /// The session belongs to another key.
    Foreign,
}

/// A session's open `GET` stream: cancelled when the session ends; the
/// session counts it open until this is dropped.
pub(super) struct Stream {
    pub(super) ended: CancellationToken,
    sessions: Arc<Sessions>,
    id: Box<str>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(entry) = self.sessions.state().table.get_mut(&*self.id) {
            entry.streams = entry.streams.saturating_sub(1);
            entry.last = Instant::now();
        }
    }
}

impl Sessions {
    pub(super) fn new(keys: usize, max_per_key: usize, idle: Duration) -> Self {
        Sessions {
            idle,
            max_per_key: max_per_key.max(1),
            state: Mutex::new(State {
                table: HashMap::new(),
                per_key: vec![0; keys],
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `key` may open one more session; its quota when not.
    pub(super) fn may_open(&self, key: usize) -> Result<(), usize> {
        let held = self.state().per_key.get(key).copied().unwrap_or(0);
        if held >= self.max_per_key {
            Err(self.max_per_key)
        } else {
            Ok(())
        }
    }

    /// `key` opened a session served by `server`; its new id.
    pub(super) fn open(&self, key: usize, server: McpServer) -> String {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let entry = Entry {
            server,
            key,
            last: Instant::now(),
            used: false,
            streams: 0,
            ended: None,
        };
        let mut state = self.state();
        // An id seen again (a v4 uuid should not be): counted once.
        state.remove(&id);
        if let Some(n) = state.per_key.get_mut(key) {
            *n += 1;
        }
        state.table.insert(id.as_str().into(), entry);
        id
    }

    /// The session `id` as `key` sees it; a request on it (`used` unless
    /// it was the `initialized` notification) keeps it alive.
    pub(super) fn get(&self, id: &str, key: usize, used: bool) -> Lookup {
        let now = Instant::now();
        let mut state = self.state();
        let Some(entry) = state.table.get_mut(id) else {
            return Lookup::Unknown;
        };
        if entry.key != key {
            return Lookup::Foreign;
        }
        if entry.streams == 0 && now.duration_since(entry.last) > self.idle {
            state.remove(id);
            return Lookup::Unknown;
        }
        entry.last = now;
        entry.used |= used;
        Lookup::Found(entry.server.clone())
    }

    /// Ends session `id` of `key` (`DELETE`): found and removed at once.
    pub(super) fn end(&self, id: &str, key: usize) -> Lookup {
        let mut state = self.state();
        match state.table.get(id) {
            None => Lookup::Unknown,
            Some(entry) if entry.key != key => Lookup::Foreign,
            Some(entry) => {
                let server = entry.server.clone();
                state.remove(id);
                Lookup::Found(server)
            }
        }
    }

    /// Opens a `GET` stream on session `id` of `key`.
    pub(super) fn stream(self: &Arc<Self>, id: &str, key: usize) -> Result<Stream, Lookup> {
        let mut state = self.state();
        match state.table.get_mut(id) {
            None => Err(Lookup::Unknown),
            Some(entry) if entry.key != key => Err(Lookup::Foreign),
            Some(entry) => {
                entry.last = Instant::now();
                entry.streams += 1;
                let ended = entry.ended.get_or_insert_with(CancellationToken::new);
                Ok(Stream {
                    ended: ended.clone(),
                    sessions: Arc::clone(self),
                    id: id.into(),
                })
            }
        }
    }

    /// Ends session `id`; whether it was live.
    #[cfg(test)]
    fn close(&self, id: &str) -> bool {
        self.state().remove(id)
    }

    /// Ends the sessions idle for longer than the idle time (a session
    /// with an open `GET` stream is not idle); how many are left.
    pub(super) fn expire(&self) -> usize {
        let now = Instant::now();
        let mut state = self.state();
        let State { table, per_key } = &mut *state;
        table.retain(|_, entry| {
            let keep = entry.streams > 0 || now.duration_since(entry.last) <= self.idle;
            if !keep {
                dec(per_key, entry.key);
            }
            keep
        });
        table.len()
    }

    /// Live sessions.
    pub(super) fn len(&self) -> usize {
        self.state().table.len()
    }

    /// Ends the least recently used session that made no request after
    /// `initialize` (the one to close when the server is full); whether
    /// there was one.
    pub(super) fn evict_one(&self) -> bool {
        // Found and removed under one lock: two requests making room at
        // once must not pick the same session (the second would find
        // nothing to remove and refuse its client).
        let mut state = self.state();
        let oldest = state
            .table
            .iter()
            .filter(|(_, e)| !e.used)
            .min_by_key(|(_, e)| e.last)
            .map(|(id, _)| id.clone());
        oldest.is_some_and(|id| state.remove(&id))
    }
}

impl State {
    /// Removes session `id`, ending its streams; whether it was live.
    fn remove(&mut self, id: &str) -> bool {
        let Some(entry) = self.table.remove(id) else {
            return false;
        };
        dec(&mut self.per_key, entry.key);
        entry.end();
        true
    }
}

fn dec(per_key: &mut [usize], key: usize) {
    if let Some(n) = per_key.get_mut(key) {
        *n = n.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use optimclaw::{Registry, ToolContext};

    fn server() -> McpServer {
        McpServer::new(
            Registry::builder().without_linked().build().unwrap(),
            ToolContext::new(),
        )
    }

    fn sessions(idle: Duration) -> Arc<Sessions> {
        Arc::new(Sessions::new(2, 2, idle))
    }

    #[test]
    fn sessions_are_counted_per_key_and_belong_to_it() {
        let s = sessions(Duration::from_secs(60));
        let a1 = s.open(0, server());
        let a2 = s.open(0, server());
        assert_ne!(a1, a2);
        assert_eq!(s.may_open(0), Err(2));
        assert_eq!(s.may_open(1), Ok(()));
        assert!(matches!(s.get(&a1, 1, true), Lookup::Foreign));
        assert!(matches!(s.get(&a1, 0, true), Lookup::Found(_)));
        assert!(s.close(&a1));
        assert!(!s.close(&a1), "closed once");
        assert!(matches!(s.get(&a1, 0, true), Lookup::Unknown));
        assert_eq!(s.may_open(0), Ok(()));
        assert_eq!(s.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_oldest_unused_session_is_evicted_first() {
        let s = Arc::new(Sessions::new(1, 10, Duration::from_secs(60)));
        let old = s.open(0, server());
        tokio::time::advance(Duration::from_millis(2)).await;
        let used = s.open(0, server());
        tokio::time::advance(Duration::from_millis(2)).await;
        let new = s.open(0, server());
        // Touched after `new` opened (on a paused clock, the same instant
        // would leave the order to chance).
        tokio::time::advance(Duration::from_millis(2)).await;
        let _ = s.get(&old, 0, false);
        let _ = s.get(&used, 0, true);
        // `old` was touched by `initialized` only, after `new` opened.
        assert!(s.evict_one());
        assert!(matches!(s.get(&new, 0, false), Lookup::Unknown));
        assert!(s.evict_one());
        assert!(matches!(s.get(&old, 0, false), Lookup::Unknown));
        assert!(!s.evict_one(), "a used session is never evicted");
        assert_eq!(s.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn idle_sessions_expire_unless_a_stream_is_open() {
        let s = sessions(Duration::from_secs(60));
        let idle = s.open(0, server());
        let streaming = s.open(1, server());
        let stream = s.stream(&streaming, 1).ok().unwrap();
        assert!(s.stream(&streaming, 0).is_err(), "another key's session");
        tokio::time::advance(Duration::from_secs(59)).await;
        assert_eq!(s.expire(), 2, "not idle for long enough yet");
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(s.expire(), 1, "only the idle session ended");
        assert!(matches!(s.get(&idle, 0, true), Lookup::Unknown));
        assert_eq!(s.may_open(0), Ok(()));
        assert!(!stream.ended.is_cancelled());
        drop(stream);
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(matches!(s.get(&streaming, 1, true), Lookup::Unknown));
        assert_eq!(s.len(), 0);
        assert_eq!(s.may_open(1), Ok(()));
    }

    #[test]
    fn closing_a_session_ends_its_streams() {
        let s = sessions(Duration::from_secs(60));
        let id = s.open(0, server());
        let stream = s.stream(&id, 0).ok().unwrap();
        assert!(s.close(&id));
        assert!(stream.ended.is_cancelled());
    }

    #[tokio::test]
    async fn a_request_runs_with_its_session_connection() {
        assert!(current().is_none());
        let connection = server();
        let seen = CONNECTION
            .scope(connection.clone(), async { current() })
            .await;
        assert!(seen.is_some_and(|s| s.same_connection(&connection)));
    }
}
