//! Generated code under the strictest lints users may set: this crate must
//! build cleanly with `#![deny(warnings, missing_docs)]` and pass
//! `cargo clippy -- -D clippy::pedantic` (CI runs clippy on the workspace
//! with `-D warnings`, which makes the pedantic group below fatal).

#![deny(warnings, missing_docs, unsafe_code)]
#![deny(clippy::pedantic)]

use optimclaw::{ToolContext, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A sort order.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Smallest first.
    Ascending,
    /// Largest first.
    Descending,
}

/// Sorted numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sorted {
    /// The numbers in order.
    pub numbers: Vec<i64>,
}

/// Sort numbers.
#[tool(core, keywords = ["order", "arrange"])]
#[must_use]
pub fn strict_sort(
    /// The numbers.
    mut numbers: Vec<i64>,
    /// Which way.
    #[arg(default = Order::Ascending)]
    order: Order,
) -> Sorted {
    numbers.sort_unstable();
    if matches!(order, Order::Descending) {
        numbers.reverse();
    }
    Sorted { numbers }
}

/// Count the values in the context.
///
/// # Errors
/// When the registry is missing.
#[tool]
pub async fn strict_context(
    ctx: &ToolContext,
    /// A label put before the count.
    label: Option<String>,
) -> Result<String, ToolError> {
    let registry = std::future::ready(ctx.registry())
        .await
        .ok_or_else(|| ToolError::new("no registry"))?;
    Ok(format!("{}: {}", label.unwrap_or_default(), registry.len()))
}

/// Do nothing, with no arguments.
#[tool]
pub fn strict_nothing() {}

/// The guide in `docs/`: every Rust example in it compiles, and runs unless
/// marked `no_run`.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../docs/attribute.md")]
    struct Attribute;
    #[doc = include_str!("../../docs/lazy-loading.md")]
    struct LazyLoading;
    #[doc = include_str!("../../docs/dialects.md")]
    struct Dialects;
    #[doc = include_str!("../../docs/agent.md")]
    struct Agent;
    #[doc = include_str!("../../docs/mcp.md")]
    struct Mcp;
    #[doc = include_str!("../../docs/code-mode.md")]
    struct CodeMode;
    #[doc = include_str!("../../docs/wasm.md")]
    struct Wasm;
    #[doc = include_str!("../../docs/rig.md")]
    struct Rig;
    #[doc = include_str!("../../docs/assistant.md")]
    struct Assistant;
    #[doc = include_str!("../../docs/design-notes.md")]
    struct DesignNotes;
}
