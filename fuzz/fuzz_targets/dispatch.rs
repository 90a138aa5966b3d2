//! Argument decoding and dispatch: any JSON text as the arguments of tools
//! with nested, optional and defaulted parameters.
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use optimclaw::{LazyConfig, Registry, ToolContext, tool};

/// A nested record.
#[derive(optimclaw::__private::serde::Deserialize, optimclaw::__private::schemars::JsonSchema)]
#[serde(crate = "optimclaw::__private::serde")]
#[schemars(crate = "optimclaw::__private::schemars")]
struct Item {
    /// Id.
    id: u32,
    /// Tags.
    tags: Option<Vec<String>>,
}

/// Take many shapes of arguments.
#[tool]
fn shapes(
    /// Text.
    text: String,
    /// Count.
    #[arg(default = 3)]
    count: u8,
    /// Items.
    items: Vec<Item>,
    /// Maybe a float.
    ratio: Option<f64>,
) -> usize {
    let items = items.iter().fold(0usize, |n, i| {
        n.wrapping_add(i.id as usize)
            .wrapping_add(i.tags.as_ref().map_or(0, Vec::len))
    });
    text.len()
        .wrapping_add(usize::from(count))
        .wrapping_add(items)
        .wrapping_add(usize::from(ratio.is_some()))
}

fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::builder()
            .lazy(LazyConfig::lazy())
            .build()
            .unwrap()
    })
}

fn ready<F: Future>(f: F) -> Option<F::Output> {
    match pin!(f)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(args) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let ctx = ToolContext::new();
    for name in ["shapes", "tool_info", "no_such_tool"] {
        let _ = ready(registry().call(name, args.clone(), &ctx));
    }
});
