//! Tools attached before the model asks: a user's message is searched
//! with the same ranking and calibrated strength as `tool_info`, and the
//! few tools that match it strongly go with the message, as text after
//! the user's own words. The `tools` array is not touched, so the cached
//! prompt prefix holds; the model calls an attached tool through the
//! bridge (`call_tool`) without a `tool_info` round trip, and a model that
//! never searches still finds the tool it needs.

use serde_json::json;

use crate::code::declaration;
use crate::config::LoadStrategy;
use crate::session::Session;
use crate::tool::{CALL_TOOL, TOOL_INFO};

/// How far the best keyword hit must stand out from the next one (its
/// score over the next's) to be attached. With strength at
/// [`Registry::strong_match`](crate::Registry::strong_match) and one tool a message,
/// the rule that paid best in the worst of eight dev catalogs: a right
/// attachment saves a `tool_info` round trip (about 1,300 input-token
/// units under caching), a wrong one costs its schema for the rest of the
/// conversation (about 300). docs/benchmarks-history.md §8.
pub(crate) const PRELOAD_MARGIN: f32 = 1.1;

/// When the best keyword hit does not stand out, the two best are both
/// attached if the second is at least this strong (the first is strong):
/// a family of tools (`job_create`, `job_list`, `job_cancel`) or near
/// twins, one of which is most often the one. On the eight dev catalogs it
/// raised the share of requests whose attachments hold the right tool on
/// seven (mcp-short 0.68 → 0.90, bfcl-short 0.69 → 0.83); the value of
/// attaching, with a wrong schema priced by its length, rose on six and
/// fell on bfcl-short (`bench/preload_fit.py`, docs/benchmarks-history.md §8).
pub(crate) const PRELOAD_CLOSE_SECOND: f32 = 0.2;

/// Longest schema (characters) of a close pair: when either is longer, the
/// pair is not attached. A wrong schema is read again by every later
/// request; about 250 tokens, over a conversation under caching, cost about
/// what a right one saves (a `tool_info` round trip). On a 578-tool
/// catalog a two-word match paired two schemas of 2,800 and 3,800
/// characters, none of them the one (docs/benchmarks-history.md §8).
pub(crate) const PRELOAD_CLOSE_MAX_CHARS: usize = 1_000;

/// How much a message may carry, and how sure a match must be to be
/// attached. The defaults were chosen on the dev catalogs
/// (docs/benchmarks-history.md §8); change them only with a benchmark of
/// your own catalog.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PreloadOptions {
    /// Tools attached to one message at most (default 2). One is attached
    /// when it stands out from the next ([`stand_out`](Self::stand_out)),
    /// two when the best two are close and both strong
    /// ([`close_second`](Self::close_second));
    /// on the dev catalogs a second one beside a clear first was more
    /// often wrong than useful.
    pub max_tools: usize,
    /// Characters of attached text at most (default 2,000, about 500
    /// tokens); a tool whose schema would pass it is left out. A wrong
    /// schema is read again by every later request, so a long one costs
    /// more than the `tool_info` round trip a right one saves unless the
    /// match is nearly sure: on the dev catalogs of real MCP servers
    /// (schemas up to 10,000 characters, long chatty requests) attaching
    /// lost value on average with 6,000 and gained with 2,000, on the
    /// other catalogs it changed nothing (`bench/preload_fit.py`,
    /// docs/benchmarks-history.md §8).
    pub max_chars: usize,
    /// How far the best keyword hit must stand out from the next one (its
    /// score over the next's) to be attached alone (default 1.1). With one
    /// tool a message, the rule that paid best in the worst of eight dev
    /// catalogs: a right attachment saves a `tool_info` round trip (about
    /// 1,300 input-token units under caching), a wrong one costs its schema
    /// for the rest of the conversation (about 300).
    pub stand_out: f32,
    /// When the best hit does not stand out, the two best are both attached
    /// if the second is at least this strong (default 0.2; the first is
    /// strong): a family of tools (`job_create`, `job_list`, `job_cancel`)
    /// or near twins, one of which is most often the one. On the eight dev
    /// catalogs it raised the share of requests whose attachments hold the
    /// right tool on seven (mcp-short 0.68 → 0.90, bfcl-short 0.69 → 0.83).
    pub close_second: f32,
    /// Longest schema (characters) of a close pair: when either is longer,
    /// the pair is not attached (default 1,000). A wrong schema is read
    /// again by every later request; on a 578-tool catalog a two-word match
    /// paired two schemas of 2,800 and 3,800 characters, none the one.
    pub close_max_chars: usize,
    /// The caller sends attached tools in the request's `tools` array, so
    /// the model can call them by name (an agent on a local server does:
    /// llama.cpp, vLLM and Ollama refuse calls to tools missing there).
    /// The text is then one short line that names the tool, with no
    /// schema (`(The tool for this: url_parse.)`), after a blank line; a
    /// close pair is not named (default false). Measured on Qwen2.5-Coder
    /// 0.5B served locally (BENCHMARKS.md, held-out-k and -l): with the
    /// schema repeated in the message it often sent the schema back as its
    /// arguments; with the tool only in `tools` it called a core tool in
    /// its place (`http` or `file_read` for a URL's parts); with a close
    /// pair named it took the wrong one of the two.
    pub listed_in_tools: bool,
}

impl PreloadOptions {
    /// Sets [`max_tools`](Self::max_tools).
    #[must_use]
    pub fn with_max_tools(mut self, max_tools: usize) -> Self {
        self.max_tools = max_tools;
        self
    }

    /// Sets [`max_chars`](Self::max_chars).
    #[must_use]
    pub fn with_max_chars(mut self, max_chars: usize) -> Self {
        self.max_chars = max_chars;
        self
    }

    /// Sets [`stand_out`](Self::stand_out).
    #[must_use]
    pub fn with_stand_out(mut self, stand_out: f32) -> Self {
        self.stand_out = stand_out;
        self
    }

    /// Sets [`close_second`](Self::close_second).
    #[must_use]
    pub fn with_close_second(mut self, close_second: f32) -> Self {
        self.close_second = close_second;
        self
    }

    /// Sets [`close_max_chars`](Self::close_max_chars).
    #[must_use]
    pub fn with_close_max_chars(mut self, close_max_chars: usize) -> Self {
        self.close_max_chars = close_max_chars;
        self
    }

    /// Sets [`listed_in_tools`](Self::listed_in_tools).
    #[must_use]
    pub fn with_listed_in_tools(mut self, listed_in_tools: bool) -> Self {
        self.listed_in_tools = listed_in_tools;
        self
    }
}

impl Default for PreloadOptions {
    fn default() -> Self {
        PreloadOptions {
            max_tools: 2,
            max_chars: 2_000,
            stand_out: PRELOAD_MARGIN,
            close_second: PRELOAD_CLOSE_SECOND,
            close_max_chars: PRELOAD_CLOSE_MAX_CHARS,
            listed_in_tools: false,
        }
    }
}

/// What goes with a message: the tools attached and the text that
/// describes them (put it after the user's words as its own content block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preloaded {
    /// The tools attached, best match first.
    pub tools: Vec<String>,
    /// The text to send after the user's message: the tools' schemas under
    /// a header, or with [`PreloadOptions::listed_in_tools`] one line that
    /// names a lone tool, starting with a blank line (servers that flatten
    /// a message's text parts may join them with nothing between), and
    /// nothing for a close pair.
    pub text: String,
}

impl Session {
    /// The tools that match `message` strongly and were neither loaded nor
    /// attached before in this session, with the text that attaches them;
    /// `None` when there are none (or lazy loading is off: every tool is
    /// sent anyway). The tools are recorded as attached, so the next
    /// message does not carry them again.
    pub fn preload(&self, message: &str, options: &PreloadOptions) -> Option<Preloaded> {
        let lazy = self.lazy_config();
        if !lazy.enabled || options.max_tools == 0 {
            return None;
        }
        let registry = self.registry();
        self.set_request(message);
        // Code mode: declarations, called from a program.
        let code_mode = registry.in_code_mode(lazy);
        let attached = self.attached();
        let mut tools = Vec::new();
        let mut lines = Vec::new();
        let mut used = 0;
        // A match the model already has (loaded, or attached before) takes
        // its place: the next hit is a worse match, not a second chance.
        let (candidates, close) = registry.preload_candidates(message, options, self.scope());
        for i in candidates {
            let tool = &registry.tools()[i];
            let name = tool.name();
            let framework = name == TOOL_INFO || name == CALL_TOOL;
            if framework
                || tool.is_core()
                || self.is_loaded(name)
                || attached.iter().any(|a| a == name)
            {
                continue;
            }
            let line = if code_mode {
                declaration(tool)
            } else {
                json!({"name": name, "description": tool.description(), "parameters": tool.input_schema()})
                    .to_string()
            };
            if close && line.len() > options.close_max_chars {
                // A close pair goes together or not at all.
                return None;
            }
            if used + line.len() > options.max_chars {
                continue;
            }
            used += line.len();
            lines.push(line);
            tools.push(name.to_owned());
        }
        if tools.is_empty() {
            return None;
        }
        // The first attachment of a session says what attachments are;
        // later ones, read again by every later request, only how to call.
        let first = attached.is_empty();
        self.attach(&tools);
        if options.listed_in_tools && !code_mode {
            // The tools' entries in `tools` describe them; the line says
            // which one is meant for this message. A close pair gets none:
            // named together, the small model took the wrong one of the two
            // where it chose right from `tools` alone.
            let text = match tools.as_slice() {
                [one] if !close => listed_line(one),
                _ => String::new(),
            };
            return Some(Preloaded { tools, text });
        }
        let header = header(
            if code_mode {
                Calls::Code
            } else if lazy.strategy == LoadStrategy::Bridge {
                Calls::Bridge
            } else {
                Calls::ByName
            },
            first,
        );
        let text = format!("{header}\n{}", lines.join("\n"));
        Some(Preloaded { tools, text })
    }
}

/// The line naming a tool attached through `tools`: short and set apart
/// (in parentheses, after a blank line), so that a model does not read it
/// as part of the user's data.
fn listed_line(tool: &str) -> String {
    format!("\n\n(The tool for this: {tool}.)")
}

/// How the model calls an attached tool.
#[derive(Clone, Copy)]
enum Calls {
    /// Inside `run_code` (code mode).
    Code,
    /// Through `call_tool` (the bridge).
    Bridge,
    /// By its own name (the `tools` array holds it).
    ByName,
}

/// The line before attached schemas. The first of a session explains
/// what they are (about 35 tokens); later ones keep to how to call them
/// (about 15): every later request of the conversation reads each one
/// again, and the explanation stays in the history above.
fn header(calls: Calls, first: bool) -> String {
    if first {
        let how = match calls {
            Calls::Code => "call them inside `run_code` as `await tools.NAME(args)`",
            Calls::Bridge => "call one through `call_tool` with its name and arguments",
            Calls::ByName => "call one by its name",
        };
        format!(
            "[Tools attached to this message because they match it ({how}); ignore them if they do not help:]"
        )
    } else {
        let how = match calls {
            Calls::Code => "inside `run_code` as `await tools.NAME(args)`",
            Calls::Bridge => "through `call_tool`",
            Calls::ByName => "by name",
        };
        format!("[Tools attached for this message, called {how}:]")
    }
}
