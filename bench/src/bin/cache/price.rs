//! What a provider bills for a conversation's requests, by its own caching
//! rules, in o200k tokens (a stand-in for each provider's tokenizer).
//!
//! Anthropic caches only marked prefixes: each `cache_control` breakpoint
//! (a top-level one stands for the last block) writes the prefix up to it
//! when it is at least the model's minimum long, and reads the longest
//! prefix written before that ends at it or at most 20 blocks before it.
//! Writes cost 1.25× (5 minutes; 2× for 1 hour), reads 0.1×, the rest 1×.
//! Tools sent with `defer_loading` cost nothing until a `tool_reference`
//! expands them where it stands.
//!
//! OpenAI caches by itself: a prompt of at least 1,024 tokens reads the
//! longest prefix it shares with an earlier one, in steps of 128 tokens,
//! at `read` times the input price (0.25 for the gpt-4.1 family).

use std::collections::{HashMap, HashSet};

use optimclaw::tokens::Encoding;
use optimclaw_agent::CacheTtl;
use serde_json::Value;

// The providers' published caching rules and prices, as this bench models
// them (they are pricing facts, not part of the agent's API).

/// Anthropic: a breakpoint finds an earlier prefix ending at most this many
/// blocks before it.
const LOOKBACK_BLOCKS: usize = 20;
/// What a cache read costs, as a multiple of the input price (Anthropic).
const ANTHROPIC_READ_MULTIPLIER: f64 = 0.1;
/// OpenAI caches prompts of at least this many tokens.
const OPENAI_MIN_CACHED_TOKENS: usize = 1024;
/// OpenAI caches in steps of this many tokens past the minimum.
const OPENAI_CACHE_STEP: usize = 128;

/// What a cache write costs, as a multiple of the input price.
fn write_multiplier(ttl: CacheTtl) -> f64 {
    match ttl {
        CacheTtl::FiveMinutes => 1.25,
        _ => 2.0,
    }
}

/// The shortest prefix Anthropic caches for `model`, in tokens: 4,096 for
/// Opus 4.5 and later and Haiku 4.5, 2,048 for Sonnet 4.6 and the Haiku 3
/// models, 1,024 for the others.
fn anthropic_min_cacheable_tokens(model: &str) -> usize {
    let m = model.to_ascii_lowercase();
    let later_opus = ["opus-4-5", "opus-4-6", "opus-4-7", "opus-5"]
        .iter()
        .any(|v| m.contains(v));
    if later_opus || m.contains("haiku-4-5") {
        4096
    } else if m.contains("sonnet-4-6") || m.contains("haiku-3") || m.contains("3-haiku") {
        2048
    } else {
        1024
    }
}

/// A conversation's bill.
#[derive(Default)]
pub struct Bill {
    /// Requests.
    pub requests: usize,
    /// Input tokens, as if nothing were cached.
    pub uncached: usize,
    /// Tokens read from the cache.
    pub read: usize,
    /// Tokens written to the cache.
    pub written: usize,
    /// Input cost in units of one uncached token.
    pub cost: f64,
}

impl Bill {
    /// The table cells every cost table shares: uncached tokens, cache
    /// reads, cache writes, cost, and the cost against `base`.
    pub fn cells(&self, base: f64) -> String {
        format!(
            "{} | {} | {} | {:.0} | {:.2}×",
            self.uncached,
            self.read,
            self.written,
            self.cost,
            self.cost / base
        )
    }
}

/// One block in cache order, without its marker, and whether it is marked.
struct Block {
    text: String,
    marked: Option<CacheTtl>,
}

fn ttl_of(marker: &Value) -> CacheTtl {
    if marker.get("ttl").and_then(Value::as_str) == Some("1h") {
        CacheTtl::OneHour
    } else {
        CacheTtl::FiveMinutes
    }
}

fn anthropic_blocks(body: &Value) -> Vec<Block> {
    let deferred: HashMap<&str, &Value> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["defer_loading"] == true)
        .filter_map(|t| Some((t["name"].as_str()?, t)))
        .collect();
    let block = |v: &Value| {
        let marked = v.get("cache_control").map(ttl_of);
        let mut clean = v.clone();
        if let Value::Object(m) = &mut clean {
            m.remove("cache_control");
        }
        // A reference costs what it expands to.
        for c in clean["content"].as_array_mut().into_iter().flatten() {
            if c["type"] == "tool_reference"
                && let Some(def) = deferred.get(c["tool_name"].as_str().unwrap_or_default())
            {
                *c = (*def).clone();
            }
        }
        Block {
            text: clean.to_string(),
            marked,
        }
    };
    let mut out: Vec<Block> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["defer_loading"] != true)
        .map(block)
        .collect();
    match &body["system"] {
        Value::String(s) => out.push(Block {
            text: s.clone(),
            marked: None,
        }),
        Value::Array(blocks) => out.extend(blocks.iter().map(block)),
        _ => {}
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        out.extend(m["content"].as_array().into_iter().flatten().map(block));
    }
    if let Some(marker) = body.get("cache_control")
        && let Some(last) = out.last_mut()
    {
        last.marked = Some(ttl_of(marker));
    }
    out
}

/// Prices Anthropic request bodies of one conversation, in order.
pub fn anthropic(bodies: &[Value], model: &str) -> Bill {
    let enc = Encoding::O200kBase;
    let min = anthropic_min_cacheable_tokens(model);
    let mut cache: HashSet<u64> = HashSet::new();
    let mut bill = Bill::default();
    for body in bodies {
        let blocks = anthropic_blocks(body);
        let (mut ends, mut hashes, mut total) = (Vec::new(), Vec::new(), 0usize);
        let mut running = std::hash::DefaultHasher::new();
        for b in &blocks {
            std::hash::Hash::hash(&b.text, &mut running);
            hashes.push(std::hash::Hasher::finish(&running));
            total += enc.count(&b.text);
            ends.push(total);
        }
        let points: Vec<usize> = (0..blocks.len())
            .filter(|&i| blocks[i].marked.is_some())
            .collect();
        let mut read = 0;
        for &b in &points {
            let from = b.saturating_sub(LOOKBACK_BLOCKS);
            if let Some(j) = (from..=b).rev().find(|&j| cache.contains(&hashes[j])) {
                read = read.max(ends[j]);
            }
        }
        let (mut written, mut write_cost) = (read, 0.0);
        for &b in &points {
            if ends[b] >= min && ends[b] > written {
                let ttl = blocks[b].marked.unwrap_or_default();
                write_cost += (ends[b] - written) as f64 * write_multiplier(ttl);
                written = ends[b];
            }
            if ends[b] >= min {
                cache.insert(hashes[b]);
            }
        }
        bill.requests += 1;
        bill.uncached += total;
        bill.read += read;
        bill.written += written - read;
        bill.cost +=
            read as f64 * ANTHROPIC_READ_MULTIPLIER + write_cost + (total - written) as f64;
    }
    bill
}

/// Prices chat-completions request bodies of one conversation, in order.
pub fn openai(bodies: &[Value], read_multiplier: f64) -> Bill {
    let enc = Encoding::O200kBase;
    let mut seen: Vec<String> = Vec::new();
    let mut bill = Bill::default();
    for body in bodies {
        let mut text = String::new();
        for t in body["tools"].as_array().into_iter().flatten() {
            text.push_str(&t.to_string());
        }
        for m in body["messages"].as_array().into_iter().flatten() {
            text.push_str(&m.to_string());
        }
        let total = enc.count(&text);
        let shared = seen
            .iter()
            .map(|prev| common_prefix(prev, &text))
            .max()
            .unwrap_or(0);
        let shared = enc.count(&text[..shared]);
        let cached = if total >= OPENAI_MIN_CACHED_TOKENS && shared >= OPENAI_MIN_CACHED_TOKENS {
            OPENAI_MIN_CACHED_TOKENS
                + (shared - OPENAI_MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP * OPENAI_CACHE_STEP
        } else {
            0
        };
        bill.requests += 1;
        bill.uncached += total;
        bill.read += cached;
        bill.cost += cached as f64 * read_multiplier + (total - cached) as f64;
        seen.push(text);
    }
    bill
}

/// Bytes in common at the start, cut back to a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_prefix_per_model() {
        assert_eq!(anthropic_min_cacheable_tokens("claude-opus-4-5"), 4096);
        assert_eq!(anthropic_min_cacheable_tokens("claude-haiku-4-5"), 4096);
        assert_eq!(anthropic_min_cacheable_tokens("claude-sonnet-4-6"), 2048);
        assert_eq!(anthropic_min_cacheable_tokens("claude-sonnet-4-5"), 1024);
        assert_eq!(write_multiplier(CacheTtl::OneHour), 2.0);
    }
}
