//! Results beyond JSON: text, images, audio and resources a tool returns
//! ([`ToolOutput`]), and what a tool tells its caller while it runs
//! (progress and log messages, through a [`CallReporter`]).
//!
//! A `#[tool]` function returns a [`ToolOutput`] (or a `Result` of one)
//! like any other value. Callers that only take JSON
//! ([`Registry::call`](crate::Registry::call), code mode) get its
//! [`value`](ToolOutput::value); callers that can show more
//! ([`Registry::call_output`](crate::Registry::call_output), the MCP
//! server, the agent) get every block.
//!
//! ```
//! use optimclaw::{Content, ToolOutput, tool};
//!
//! /// Draws a one-pixel chart.
//! #[tool(deferred, keywords = ["chart"])]
//! fn chart() -> ToolOutput {
//!     ToolOutput::text("one red pixel")
//!         .with_content(Content::image(b"\x89PNG...", "image/png"))
//! }
//! # fn main() {}
//! ```

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use base64::Engine as _;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One block of a tool's result, in the shape MCP gives content blocks
/// (`{"type": "image", "data": …, "mimeType": …}`), so it crosses MCP
/// unchanged. Binary data is base64 (standard alphabet, padded).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// The image, base64.
        data: String,
        /// Its media type, e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio.
    Audio {
        /// The audio, base64.
        data: String,
        /// Its media type, e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the caller may read or fetch itself.
    ResourceLink {
        /// Where it is.
        uri: String,
        /// A short name.
        name: String,
        /// Its media type, when known.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
    },
    /// A resource's contents, embedded.
    Resource {
        /// The contents.
        resource: EmbeddedResource,
    },
}

/// The contents of a resource embedded in a result
/// ([`Content::Resource`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// Its media type, when known.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, for a text resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes (base64), for a binary resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// An image from its bytes (encoded here).
    pub fn image(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: base64(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// Audio from its bytes (encoded here).
    pub fn audio(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: base64(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
        }
    }

    /// A text resource, embedded.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::Resource {
            resource: EmbeddedResource {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: Some(text.into()),
                blob: None,
            },
        }
    }

    /// A binary resource from its bytes (encoded here), embedded.
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Content::Resource {
            resource: EmbeddedResource {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: None,
                blob: Some(base64(bytes.as_ref())),
            },
        }
    }

    /// The block's text, for a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            _ => None,
        }
    }

    /// How many bytes the block takes as sent (its text or base64 data).
    pub fn encoded_len(&self) -> usize {
        match self {
            Content::Text { text } => text.len(),
            Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
            Content::ResourceLink { uri, name, .. } => uri.len() + name.len(),
            Content::Resource { resource } => {
                resource.text.as_ref().map_or(0, String::len)
                    + resource.blob.as_ref().map_or(0, String::len)
            }
        }
    }

    /// What a caller that takes only text sees of the block: the text
    /// itself, or a line naming what the block is.
    pub fn summary(&self) -> String {
        match self {
            Content::Text { text } => text.clone(),
            Content::Image { data, mime_type } => {
                format!("[image {mime_type}, {}]", size(decoded_len(data)))
            }
            Content::Audio { data, mime_type } => {
                format!("[audio {mime_type}, {}]", size(decoded_len(data)))
            }
            Content::ResourceLink { uri, name, .. } => format!("[resource {name}: {uri}]"),
            Content::Resource { resource } => match (&resource.text, &resource.blob) {
                (Some(text), _) => format!("[resource {}]\n{text}", resource.uri),
                (None, Some(blob)) => format!(
                    "[resource {} {}, {}]",
                    resource.uri,
                    resource.mime_type.as_deref().unwrap_or("binary"),
                    size(decoded_len(blob))
                ),
                (None, None) => format!("[resource {}]", resource.uri),
            },
        }
    }

    /// Applies `filter` to every text the block carries.
    pub(crate) fn filter_texts(&mut self, filter: &dyn Fn(&str) -> Option<String>) {
        let texts: Vec<&mut String> = match self {
            Content::Text { text } => vec![text],
            Content::ResourceLink {
                name, description, ..
            } => std::iter::once(name).chain(description.as_mut()).collect(),
            Content::Resource { resource } => resource.text.iter_mut().collect(),
            Content::Image { .. } | Content::Audio { .. } => Vec::new(),
        };
        for text in texts {
            if let Some(new) = filter(text) {
                *text = new;
            }
        }
    }
}

/// The bytes a padded base64 text decodes to.
fn decoded_len(base64: &str) -> usize {
    let padding = base64.bytes().rev().take_while(|&b| b == b'=').count();
    (base64.len() / 4 * 3).saturating_sub(padding)
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} kB", bytes as f64 / 1024.0)
    }
}

/// A tool's result as blocks of content, with an optional structured
/// (JSON) value beside them.
///
/// Return it from a `#[tool]` function, or from a dynamic tool's handler
/// through [`deliver`](Self::deliver). A caller that takes only JSON sees
/// [`value`](Self::value): the structured value when there is one, else
/// the blocks as text (a line such as `[image image/png, 1.2 kB]` for
/// each block that is not text).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The blocks, in order.
    pub content: Vec<Content>,
    /// A structured value (MCP `structuredContent`), when the tool has one.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// No content yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new().with_content(Content::text(text))
    }

    /// Adds a block.
    #[must_use]
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// Sets the structured value.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// What a caller that takes only JSON sees.
    pub fn value(&self) -> Value {
        if let Some(value) = &self.structured {
            return value.clone();
        }
        let parts: Vec<String> = self.content.iter().map(Content::summary).collect();
        Value::String(parts.join("\n"))
    }

    /// Applies `filter` to every text of the output.
    pub(crate) fn filter_texts(&mut self, filter: &dyn Fn(&str) -> Option<String>) {
        for block in &mut self.content {
            block.filter_texts(filter);
        }
        if let Some(value) = &mut self.structured {
            filter_strings(value, filter);
        }
    }
}

/// Applies an output filter to every string in `value` (keys stay).
pub(crate) fn filter_strings(value: &mut Value, filter: &dyn Fn(&str) -> Option<String>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(text) => {
                if let Some(new) = filter(text) {
                    *text = new;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => stack.extend(map.values_mut()),
            _ => {}
        }
    }
}

/// What a call returned, for callers that take blocks of content
/// ([`Registry::call_output`](crate::Registry::call_output),
/// [`Session::call_output`](crate::Session::call_output)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CallOutput {
    /// The JSON value, what [`Registry::call`](crate::Registry::call)
    /// returns.
    pub value: Value,
    /// The blocks, when the tool returned a [`ToolOutput`].
    pub rich: Option<ToolOutput>,
}

impl CallOutput {
    /// A call's output from its JSON value and its blocks, as a caller
    /// that runs tools some other way (an MCP client, a test) has them.
    pub fn new(value: Value, rich: Option<ToolOutput>) -> Self {
        Self { value, rich }
    }
}

/// Where a running call puts the [`ToolOutput`] it returned: set by the
/// caller that wants blocks, claimed by the outermost call (a tool that
/// calls other tools does not hand their outputs on as its own).
#[derive(Default)]
pub(crate) struct OutputSlot {
    claimed: AtomicBool,
    output: Mutex<Option<ToolOutput>>,
}

impl OutputSlot {
    /// Whether this call is the first to claim the slot.
    pub(crate) fn claim(&self) -> bool {
        !self.claimed.swap(true, Ordering::SeqCst)
    }

    pub(crate) fn put(&self, output: ToolOutput) {
        *self.output.lock().unwrap_or_else(PoisonError::into_inner) = Some(output);
    }

    pub(crate) fn take(&self) -> Option<ToolOutput> {
        self.output
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    pub(crate) fn with_output(&self, f: impl FnOnce(&mut ToolOutput)) {
        if let Some(output) = self
            .output
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            f(output);
        }
    }
}

impl fmt::Debug for OutputSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSlot")
            .field("claimed", &self.claimed.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

/// How much a log message matters (the syslog levels MCP uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Worth noticing.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Act at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// A progress update from a running tool (`ToolContext::progress`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// Work done so far; increases with every update of a call.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// Receives what a running tool reports: set on the call's context by a
/// caller that can pass it on (the MCP server sends
/// `notifications/progress` and `notifications/message`). Messages have
/// been through the context's output filter already.
pub trait CallReporter: Send + Sync + 'static {
    /// A progress update.
    fn progress(&self, update: Progress) -> BoxFuture<'static, ()>;
    /// A log message.
    fn log(&self, level: LogLevel, message: String) -> BoxFuture<'static, ()>;
}

/// A shared reporter.
pub(crate) type SharedReporter = Arc<dyn CallReporter>;
