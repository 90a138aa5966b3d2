//! `tool_info` on requests of any length and shape: a whole user message or
//! a pasted document is answered (never refused), a request keeps its match
//! when the user wraps it in chatty sentences, a "no match" still lists
//! every candidate asked for, and a reranker's verdict decides the strength.

use std::sync::Arc;

use optimclaw::rerank::{Candidate, RerankConfig, RerankError, Reranked, Reranker};
use optimclaw::{DynamicTool, MatchStrength, Registry, ToolKind};
use serde_json::json;

fn tool(name: &str, description: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
    .kind(ToolKind::Deferred)
}

fn tools() -> Vec<DynamicTool> {
    vec![
        tool(
            "currency_convert",
            "Convert an amount of money between currencies at today's exchange rate.",
        ),
        tool("weather_forecast", "Weather forecast for a city."),
        tool(
            "stock_price",
            "Latest price of a stock by its ticker symbol.",
        ),
        tool("file_read", "Read a text file from the workspace."),
        tool("git_commit", "Record staged changes in the git repository."),
        tool("pdf_merge", "Merge several PDF files into one."),
        tool("train_tickets", "Find train tickets between two stations."),
    ]
}

fn catalog() -> Registry {
    Registry::builder()
        .without_linked()
        .tools(tools())
        .build()
        .unwrap()
}

#[test]
fn a_request_of_a_hundred_thousand_characters_is_answered() {
    let registry = catalog();
    let filler =
        "Our team met on Tuesday and talked about the roadmap, the hiring plan and lunch. ";
    let mut request = filler.repeat(1_300);
    request.push_str("Anyway: please convert 250 euros to dollars at the exchange rate of today.");
    assert!(request.chars().count() > 100_000);
    let answer = registry.tool_info(&request, 5).unwrap();
    assert!(
        answer.tools.iter().any(|t| t.name == "currency_convert"),
        "{answer:?}"
    );
    // A pasted blob of distinct words is searched by its rarest ones.
    let blob: String = (0..20_000).map(|i| format!("w{i}x ")).collect();
    let answer = registry
        .tool_info(&format!("{blob} weather forecast"), 5)
        .unwrap();
    assert!(answer.shortened, "{answer:?}");
    assert!(answer.message.unwrap().contains("most distinctive words"));
}

#[test]
fn chatty_wrapping_keeps_a_strong_match() {
    let registry = catalog();
    let plain = "What's the weather forecast for Lisbon tomorrow?";
    let chatty = format!(
        "Hi there! I hope you are having a good day. I have a question about something I am \
         working on this week, and I would really appreciate your help. {plain} Please walk me \
         through what you are doing as you go. Thanks a lot in advance!"
    );
    for query in [plain, chatty.as_str()] {
        let answer = registry.tool_info(query, 3).unwrap();
        assert!(!answer.no_match, "{query}: {answer:?}");
        assert_eq!(answer.tools[0].name, "weather_forecast");
        assert_eq!(answer.tools[0].strength, Some(MatchStrength::Strong));
    }
}

#[test]
fn questions_that_need_no_tool_are_no_match_and_still_list_candidates() {
    let registry = catalog();
    for query in [
        "Write me a short poem about autumn leaves.",
        "Why is the sky blue?",
        "Explain recursion to me like I'm ten years old.",
    ] {
        let answer = registry.tool_info(query, 5).unwrap();
        assert!(answer.no_match, "{query}: {answer:?}");
        assert!(answer.tools.iter().all(|t| t.parameters.is_none()));
    }
    // Under "no match", up to max_results candidates (here more than 3).
    let answer = registry
        .tool_info("record a file of money and stations for the city today", 6)
        .unwrap();
    if answer.no_match {
        assert!(answer.tools.len() > 3, "{answer:?}");
    }
}

/// Picks the candidates whose name holds a word of the query; none when no
/// name does.
struct PickByName;

impl Reranker for PickByName {
    fn id(&self) -> String {
        "pick-by-name".into()
    }

    fn rerank(&self, query: &str, candidates: &[Candidate<'_>]) -> Result<Reranked, RerankError> {
        let fits: Vec<usize> = candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.name
                    .split('_')
                    .any(|part| query.to_lowercase().contains(part))
            })
            .map(|(i, _)| i)
            .collect();
        Ok(Reranked {
            order: fits.clone(),
            fits: Some(fits),
            ..Reranked::default()
        })
    }
}

struct Failing;

impl Reranker for Failing {
    fn id(&self) -> String {
        "failing".into()
    }

    fn rerank(&self, _: &str, _: &[Candidate<'_>]) -> Result<Reranked, RerankError> {
        Err(RerankError::new("the reranker is down"))
    }
}

fn reranked(reranker: Arc<dyn Reranker>) -> Registry {
    Registry::builder()
        .without_linked()
        .tools(tools())
        .reranker(RerankConfig::new(reranker))
        .build()
        .unwrap()
}

#[test]
fn a_reranker_reorders_and_judges() {
    let registry = reranked(Arc::new(PickByName));
    // "price" is in stock_price's name; the keyword stage alone ranks the
    // currency tool (exchange rate, money) first.
    let answer = registry
        .tool_info("price of money at the exchange rate", 3)
        .unwrap();
    assert_eq!(answer.tools[0].name, "stock_price", "{answer:?}");
    assert_eq!(answer.tools[0].strength, Some(MatchStrength::Strong));
    // No name fits: the reranker says none, so "no match".
    let answer = registry.tool_info("amount between currencies", 3).unwrap();
    assert!(answer.no_match, "{answer:?}");
    // A failing reranker: the first stage answers and the message says so.
    let registry = reranked(Arc::new(Failing));
    let answer = registry.tool_info("weather forecast", 3).unwrap();
    assert_eq!(answer.tools[0].name, "weather_forecast");
    assert!(answer.message.unwrap().contains("the reranker is down"));
}
