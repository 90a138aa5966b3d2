//! What a running tool reports, sent to the MCP client that called it:
//! progress as `notifications/progress` (when the request carried a
//! progress token) and log messages as `notifications/message` (at or
//! above the level the client set with `logging/setLevel`).

// MCP's logging is deprecated in favour of a later mechanism (SEP-2577)
// but is what today's clients (and the conformance suite) speak.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use futures_util::future::BoxFuture;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::service::{Peer, RoleServer};

use optimclaw::{CallReporter, LogLevel, Progress};

/// The lowest level a connection is sent, shared by its calls; `Info`
/// until the client sets one.
#[derive(Clone, Debug)]
pub(crate) struct LevelSetting(Arc<AtomicU8>);

impl Default for LevelSetting {
    fn default() -> Self {
        LevelSetting(Arc::new(AtomicU8::new(rank(LogLevel::Info))))
    }
}

impl LevelSetting {
    pub(crate) fn set(&self, level: &LoggingLevel) {
        self.0.store(rank(from_mcp(level)), Ordering::SeqCst);
    }

    fn allows(&self, level: LogLevel) -> bool {
        rank(level) >= self.0.load(Ordering::SeqCst)
    }
}

fn rank(level: LogLevel) -> u8 {
    match level {
        LogLevel::Debug => 0,
        LogLevel::Info => 1,
        LogLevel::Notice => 2,
        LogLevel::Warning => 3,
        LogLevel::Error => 4,
        LogLevel::Critical => 5,
        LogLevel::Alert => 6,
        _ => 7,
    }
}

fn from_mcp(level: &LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        _ => LoggingLevel::Emergency,
    }
}

/// Sends one call's reports to its client.
pub(crate) struct Reporter {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) level: LevelSetting,
    /// The logger name clients see (the tool's name).
    pub(crate) logger: String,
}

impl CallReporter for Reporter {
    fn progress(&self, update: Progress) -> BoxFuture<'static, ()> {
        let Some(token) = self.progress_token.clone() else {
            return Box::pin(async {});
        };
        let peer = self.peer.clone();
        Box::pin(async move {
            let mut param = ProgressNotificationParam::new(token, update.progress);
            param.total = update.total;
            param.message = update.message;
            // A client gone away is not the tool's failure.
            let _ = peer.notify_progress(param).await;
        })
    }

    fn log(&self, level: LogLevel, message: String) -> BoxFuture<'static, ()> {
        if !self.level.allows(level) {
            return Box::pin(async {});
        }
        let (peer, logger) = (self.peer.clone(), self.logger.clone());
        Box::pin(async move {
            let mut param =
                LoggingMessageNotificationParam::new(to_mcp(level), serde_json::json!(message));
            param.logger = Some(logger);
            let _ = peer.notify_logging_message(param).await;
        })
    }
}
