//! Token counts with the tokenizers real models use (tiktoken's
//! `o200k_base` and `cl100k_base`; their data is embedded, so counting
//! works offline).

use serde_json::Value;

use crate::config::LazyConfig;
use crate::registry::Registry;

/// A tokenizer: use [`O200kBase`](Self::O200kBase) for current OpenAI
/// models and as an estimate for others (BENCHMARKS.md counts with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, o-series and later.
    O200kBase,
    /// GPT-4, GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    /// Both encodings, newest first.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The tiktoken name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// Tokens in `text`.
    pub fn count(self, text: &str) -> usize {
        let bpe = match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.count_ordinary(text)
    }
}

/// Tokens of what one request sends: measure a prompt before choosing
/// lazy loading or core tools, or to report what a request cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestTokens {
    /// Number of tool specs sent.
    pub tool_count: usize,
    /// Tokens of the tool specs, as one compact JSON array.
    pub tools: usize,
    /// Tokens of the note (0 without one).
    pub note: usize,
    /// Each tool spec alone: (name, tokens).
    pub per_tool: Vec<(String, usize)>,
}

impl RequestTokens {
    /// Tools plus note.
    pub fn total(&self) -> usize {
        self.tools + self.note
    }

    /// Counts `specs` (in any provider dialect) and the note.
    pub fn measure(specs: &[Value], note: Option<&str>, encoding: Encoding) -> Self {
        let per_tool = specs
            .iter()
            .map(|s| {
                let name = s
                    .get("name")
                    .or_else(|| s.pointer("/function/name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                (name, encoding.count(&s.to_string()))
            })
            .collect();
        RequestTokens {
            tool_count: specs.len(),
            tools: if specs.is_empty() {
                0
            } else {
                encoding.count(&Value::Array(specs.to_vec()).to_string())
            },
            note: note.map_or(0, |n| encoding.count(n)),
            per_tool,
        }
    }
}

/// Eager against lazy for one registry and encoding: what [`compare`]
/// returns, to see what lazy loading saves on your own catalog.
///
/// ```
/// use optimclaw::tokens::{Encoding, compare};
/// use optimclaw::{LazyConfig, Registry, tool};
///
/// /// Greet someone.
/// #[tool]
/// fn greet(
///     /// Who.
///     name: String,
/// ) -> String {
///     format!("Hello, {name}")
/// }
///
/// let registry = Registry::from_linked()?;
/// let c = compare(&registry, &LazyConfig::lazy(), Encoding::O200kBase);
/// println!("eager {} tokens, lazy {} ({:.0} % less)",
///     c.eager.total(), c.lazy.total(), 100.0 * c.reduction());
/// # Ok::<(), optimclaw::RegistryError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The encoding counted with.
    pub encoding: Encoding,
    /// What eager mode sends.
    pub eager: RequestTokens,
    /// What lazy mode's first request sends.
    pub lazy: RequestTokens,
}

impl Comparison {
    /// Share of eager tokens lazy mode saves (0.0 to 1.0).
    pub fn reduction(&self) -> f64 {
        let eager = self.eager.total() as f64;
        if eager == 0.0 {
            return 0.0;
        }
        1.0 - self.lazy.total() as f64 / eager
    }
}

/// Measures eager and lazy first requests of `registry`, using canonical
/// specs (`{name, description, parameters}`) and `lazy`'s note budget.
pub fn compare(registry: &Registry, lazy: &LazyConfig, encoding: Encoding) -> Comparison {
    let eager = registry.prompt::<&str>(
        &LazyConfig {
            enabled: false,
            ..lazy.clone()
        },
        &[],
    );
    let lazy_prompt = registry.prompt::<&str>(
        &LazyConfig {
            enabled: true,
            ..lazy.clone()
        },
        &[],
    );
    Comparison {
        encoding,
        eager: RequestTokens::measure(&eager.specs(), None, encoding),
        lazy: RequestTokens::measure(&lazy_prompt.specs(), lazy_prompt.note.as_deref(), encoding),
    }
}
