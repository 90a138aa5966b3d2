//! What passes between the interpreter's thread and the async side: the
//! calls a program makes and how each ended.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Receiver;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

/// A tool call the program made.
#[derive(Debug)]
pub(crate) struct Request {
    pub id: u64,
    pub name: String,
    pub args: Value,
}

/// How a tool call ended, as the program will see it.
#[derive(Debug)]
pub(crate) struct Response {
    pub id: u64,
    pub result: Result<Value, Failure>,
}

/// A failed call: thrown in the program as an `Error` with these fields.
#[derive(Debug)]
pub(crate) struct Failure {
    pub message: String,
    pub kind: &'static str,
    pub data: Option<Value>,
}

/// The channels to the async side.
pub(crate) struct Host {
    pub calls: UnboundedSender<Request>,
    pub results: Receiver<Response>,
    /// Set when the caller gave up (the run_code call was cancelled).
    pub cancelled: Arc<AtomicBool>,
}
