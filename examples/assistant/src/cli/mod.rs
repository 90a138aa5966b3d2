//! The assistant's command line, one file per command: `report` (and
//! `prompt`, `tool-info`), `demo`, `search`, `serve`, `chat`, and `tools`
//! (what the registry is built from). The `assistant` example's `main` only
//! parses arguments and calls these.

/// `println!` that ends the program quietly when stdout is closed
/// (`assistant report | head`).
macro_rules! out {
    () => {
        out!("")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

pub mod chat;
pub mod demo;
pub mod report;
pub mod search;
pub mod serve;
pub mod tools;

use optimclaw::provider::Dialect;
use optimclaw::{LazyConfig, Registry};
use serde_json::Value;

/// `--eager` / `--lazy` (clap makes them exclusive), else the registry's
/// own setting (OPTIMCLAW_LAZY_TOOLS); the rest (code mode among it) as
/// the registry was built.
pub fn chosen_mode(eager: bool, lazy: bool, registry: &Registry) -> LazyConfig {
    let own = registry.lazy_config().clone();
    if eager || lazy {
        own.with_enabled(lazy)
    } else {
        own
    }
}

/// Prints pretty JSON on stdout.
pub fn print_json(value: &Value) {
    use std::io::Write;
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    // A closed pipe (`| head`) ends the output quietly.
    if writeln!(std::io::stdout(), "{text}").is_err() {
        std::process::exit(0);
    }
}

/// The dialect named `name`, or an error listing every name.
pub fn dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!("unknown provider {name:?}; use one of {}", all.join(", "))
    })
}
