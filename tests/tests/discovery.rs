//! Discovery a model can steer: match strength and "no match", the query
//! syntax (`select:`, `+term`, `-term`, namespaces), through the registry,
//! a session and a scoped session.

use optimclaw::{
    DynamicTool, LazyConfig, Registry, Session, ToolContext, ToolInfoAnswer, ToolScope,
};
use serde_json::{Value, json};

fn tool(name: &str, description: &str) -> DynamicTool {
    DynamicTool::new(
        name,
        description,
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "The text."}}, "additionalProperties": false}),
    )
    .handler(|_ctx, args: Value| async move { Ok(args) })
}

/// A lazy registry of just these (name, description) tools.
fn small_catalog(tools: &[(&str, &str)]) -> Registry {
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools(
            tools
                .iter()
                .map(|(name, description)| tool(name, description)),
        )
        .build()
        .unwrap()
}

fn registry() -> Registry {
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools([
            tool(
                "github__create_issue",
                "Create an issue in a GitHub repository.",
            ),
            tool(
                "github__list_issues",
                "List the issues of a GitHub repository, open or closed.",
            ),
            tool(
                "github__create_pull_request",
                "Open a pull request from a branch.",
            ),
            tool(
                "github__search_code",
                "Search code across GitHub repositories.",
            ),
            tool(
                "gitlab__create_issue",
                "Create an issue in a GitLab project.",
            ),
            tool("slack__post_message", "Post a message to a Slack channel."),
            tool(
                "slack__search_messages",
                "Search the messages of a Slack workspace.",
            ),
            tool(
                "weather_current",
                "The current weather (temperature, wind, rain) for a city.",
            ),
            tool(
                "calendar_create_event",
                "Create an event in the user's calendar.",
            ),
            tool("pdf_extract_text", "Extract the text of a PDF document."),
        ])
        .build()
        .unwrap()
}

fn answer(registry: &Registry, query: &str) -> ToolInfoAnswer {
    registry.tool_info(query, 5).unwrap()
}

fn names(answer: &ToolInfoAnswer) -> Vec<&str> {
    answer.tools.iter().map(|t| t.name.as_str()).collect()
}

fn strengths(answer: &ToolInfoAnswer) -> Vec<Value> {
    answer
        .tools
        .iter()
        .map(|t| serde_json::to_value(t.strength).unwrap())
        .collect()
}

#[test]
fn a_good_query_is_a_strong_match_with_its_schema() {
    let registry = registry();
    let a = answer(&registry, "extract text from a pdf");
    assert_eq!(names(&a)[0], "pdf_extract_text");
    assert_eq!(strengths(&a)[0], "strong");
    assert!(a.tools[0].parameters.is_some());
    assert!(!a.no_match);
    // Serialised under the documented key.
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["tools"][0]["match"], "strong");
    assert!(
        json.get("no_match").is_none(),
        "no_match is left out when false: {json}"
    );
}

#[test]
fn a_capability_nobody_has_is_a_plain_no_match() {
    let registry = registry();
    // (A request sharing one word of three with a tool — "translate text
    // to french" against pdf_extract_text, the one tool with "text" — is
    // no longer a no-match: the strength is calibrated so that long
    // requests, which match a tool with a few of their words, are not
    // called no-match either; see docs/benchmarks-history.md §2c.)
    let a = answer(&registry, "translate a sentence into french");
    assert!(a.no_match, "{a:?}");
    assert!(a.unmatched_words.contains(&"translate".to_owned()), "{a:?}");
    assert!(a.unmatched_words.contains(&"french".to_owned()), "{a:?}");
    // Up to max_results weak hits, none with a schema (nothing is loaded).
    assert!(a.tools.len() <= 5, "{a:?}");
    assert!(a.tools.iter().all(|t| t.parameters.is_none()), "{a:?}");
    assert!(strengths(&a).iter().all(|s| s == "weak"), "{a:?}");
    let message = a.message.as_deref().unwrap();
    assert!(
        message.starts_with("no tool matches \"translate a sentence into french\" well"),
        "{message}"
    );
    assert!(
        message.contains("no tool mentions: translate, sentence, french"),
        "{message}"
    );
    assert!(message.contains("answer without a tool"), "{message}");
    // The catalog has namespaces: the nearest are named.
    assert!(!a.namespaces.is_empty(), "{a:?}");
    assert!(message.contains("namespaces: "), "{message}");
}

#[test]
fn small_catalogs_judge_matches_like_large_ones() {
    // In a catalog of a few tools every word is common, so a word no tool
    // has must not outweigh the words that matched (BM25's idf of an
    // unknown word is ln 4 against ln 4/3 with one tool).
    let tool_info = optimclaw::linked_tools()
        .find(|d| d.name == "tool_info")
        .unwrap();
    let registry = Registry::builder()
        .without_linked()
        .descriptor(tool_info)
        .lazy(LazyConfig::lazy())
        .tools([tool(
            "echo_json",
            "Return the arguments it was given, mirrored back as an object.",
        )])
        .build()
        .unwrap();
    let a = answer(&registry, "mirror my arguments please");
    assert_eq!(names(&a), ["echo_json"]);
    assert_eq!(strengths(&a), ["strong"], "{a:?}");
    assert!(a.tools[0].parameters.is_some());
    // A query about something else is still no match.
    let a = answer(&registry, "book a flight to Lisbon");
    assert!(a.no_match, "{a:?}");
}

#[test]
fn the_word_as_written_outranks_another_form_of_it() {
    // "times" and "time" are one stem. The clock says "time" more often,
    // but only the calculator has the word the query used.
    let registry = small_catalog(&[
        ("clock", "Show the time of day; time zones by name."),
        ("calculator", "Work out sums such as 6 times 7."),
    ]);
    let index = registry.search_index();
    let first = |query: &str| {
        registry.tools()[index.search(query, 2)[0].tool]
            .name()
            .to_owned()
    };
    assert_eq!(first("What is 6 times 7?"), "calculator");
    assert_eq!(first("What time is it?"), "clock");
    // A form no tool writes prefers nobody: the clock's two "time"s win.
    assert_eq!(first("timed"), "clock");
}

#[test]
fn a_percent_sign_beside_a_number_asks_for_a_percentage() {
    // "what's 17% of 2,340" has no word but the sign: read as "percent" it
    // finds the calculator; a format string's `%d` is no percentage.
    let registry = small_catalog(&[
        (
            "calculator",
            "Arithmetic: sums, products, percent of a value.",
        ),
        (
            "formatter",
            "Format values with printf patterns such as %d.",
        ),
    ]);
    let a = answer(&registry, "what's 17% of 2,340");
    assert!(!a.no_match, "{a:?}");
    assert_eq!(names(&a)[0], "calculator");
    let printf = answer(&registry, "what does %d print");
    assert!(
        printf.tools.iter().all(|t| t.name != "calculator"),
        "{printf:?}"
    );
}

#[test]
fn times_between_numbers_and_operator_signs_ask_for_arithmetic() {
    // "6 times 7" shares only the stem `time` with a tool of dates and
    // date-times; between two numbers it reads as `multiply` too, as do
    // `×` and `*`, and `+` as `plus`.
    let registry = small_catalog(&[
        (
            "calculator",
            "Add (plus), subtract, multiply or divide numbers.",
        ),
        (
            "date_span",
            "The time between two dates or date-times, in days.",
        ),
        ("reminder", "Remind the user at set times of the day."),
    ]);
    for query in ["What is 6 times 7?", "6 × 7", "6*7", "what's 3+4"] {
        let a = answer(&registry, query);
        assert!(!a.no_match, "{query}: {a:?}");
        assert_eq!(names(&a)[0], "calculator", "{query}: {a:?}");
    }
    // "times" beside one number only is no product.
    let a = answer(&registry, "remind me 3 times a day");
    assert_eq!(names(&a)[0], "reminder", "{a:?}");
}

#[test]
fn a_hyphenated_variant_finds_the_tool_that_writes_it_as_one_word() {
    // "SHA-256" splits into `sha` and a bare number; the catalog writes
    // `sha256`. Read joined too, it finds the hash tool, and the other way
    // round.
    let registry = small_catalog(&[
        (
            "hash_text",
            "Hash a text with sha256 or sha512 (hex digest).",
        ),
        ("encode_text", "Encode a text as UTF-8 bytes."),
        ("word_count", "Count the words of a text."),
    ]);
    for (query, tool) in [
        ("Give me the SHA-256 of 'hello world'", "hash_text"),
        ("the utf8 bytes of this", "encode_text"),
    ] {
        let a = answer(&registry, query);
        assert!(!a.no_match, "{query}: {a:?}");
        assert_eq!(names(&a)[0], tool, "{query}: {a:?}");
    }
}

#[test]
fn chinese_requests_find_tools_described_in_chinese() {
    // Written without spaces: searched by character pairs, so a request
    // shares words with a description it does not repeat whole. (Tool
    // texts as real MCP servers publish them.)
    let registry = small_catalog(&[
        ("get_tickets", "查询12306余票信息。"),
        (
            "get_train_route_stations",
            "查询特定列车车次在指定区间内的途径车站、到站时间、出发时间及停留时间等详细经停信息。",
        ),
        (
            "recommend_meals",
            "根据用户的忌口、过敏原、人数智能推荐菜谱，创建一周的膳食计划以及大致的购物清单",
        ),
        (
            "weibo_trending",
            "获取微博热搜榜，包含时事热点、社会现象、娱乐新闻",
        ),
        ("weather_forecast", "Weather forecast for a city."),
    ]);
    for (query, tool) in [
        ("帮我查一下明天从北京到上海的高铁余票", "get_tickets"),
        ("G1次列车中间都经停哪些车站？", "get_train_route_stations"),
        ("我对花生过敏，帮我制定一周的膳食计划", "recommend_meals"),
        ("微博热搜现在都有什么？", "weibo_trending"),
        ("weather forecast for Beijing", "weather_forecast"),
    ] {
        let a = answer(&registry, query);
        assert!(!a.no_match, "{query}: {a:?}");
        assert_eq!(names(&a)[0], tool, "{query}: {a:?}");
    }
    // Pairs that span two words match no tool and are not reported as
    // words no tool has; a request none of these can serve is no match.
    let a = answer(&registry, "帮我订一张去巴黎的机票");
    assert!(a.no_match, "{a:?}");
    assert!(a.unmatched_words.is_empty(), "{a:?}");
}

#[test]
fn nothing_shared_at_all_names_the_nearest_tools() {
    let registry = registry();
    let a = answer(&registry, "quantum chromodynamics");
    assert!(a.no_match);
    assert!(a.tools.is_empty());
    assert_eq!(a.unmatched_words, ["quantum", "chromodynamics"]);
    assert!(a.message.unwrap().contains("nearest names: "));
}

#[test]
fn select_loads_exact_names_only() {
    let registry = registry();
    let a = answer(&registry, "select:slack__post_message,GITHUB__CREATE_ISSUE");
    assert_eq!(names(&a), ["slack__post_message", "github__create_issue"]);
    assert_eq!(strengths(&a), [json!("exact"), json!("exact")]);
    assert!(a.tools.iter().all(|t| t.parameters.is_some()));
    // A name that is not one is reported, never searched as keywords.
    let a = answer(&registry, "select:create_issue");
    assert!(a.tools.is_empty(), "{a:?}");
    assert!(a.no_match);
    let message = a.message.unwrap();
    assert!(
        message.contains("no tool is named \"create_issue\" (nearest: "),
        "{message}"
    );
    let a = answer(&registry, "select:pdf_extract_text, nope");
    assert_eq!(names(&a), ["pdf_extract_text"]);
    assert!(!a.no_match);
    assert!(a.message.unwrap().contains("no tool is named \"nope\""));
}

#[test]
fn required_and_excluded_terms_filter_hits() {
    let registry = registry();
    let a = answer(&registry, "create +issue");
    assert!(!names(&a).is_empty());
    assert!(
        names(&a).iter().all(|n| n.contains("issue")),
        "{:?}",
        names(&a)
    );
    assert_eq!(names(&a)[0], "github__create_issue");
    let a = answer(&registry, "create issue -gitlab");
    assert!(names(&a).contains(&"github__create_issue"));
    assert!(
        !names(&a).contains(&"gitlab__create_issue"),
        "{:?}",
        names(&a)
    );
    // Excluding a word that matches both leaves the others.
    let a = answer(&registry, "create -issue");
    assert!(
        names(&a).iter().all(|n| !n.contains("issue")),
        "{:?}",
        names(&a)
    );
    // A required word no tool has: nothing, said plainly.
    let a = answer(&registry, "create +spaceship");
    assert!(a.tools.is_empty());
    assert!(a.no_match);
    assert_eq!(a.unmatched_words, ["spaceship"]);
}

#[test]
fn namespaces_filter_or_list() {
    let registry = registry();
    for query in [
        "ns:github create issue",
        "github__* create issue",
        "NS:GitHub create issue",
    ] {
        let a = answer(&registry, query);
        assert_eq!(names(&a)[0], "github__create_issue", "{query}");
        assert!(
            names(&a).iter().all(|n| n.starts_with("github__")),
            "{query}: {:?}",
            names(&a)
        );
    }
    // A namespace alone lists it, in name order, without schemas.
    let a = answer(&registry, "ns:slack");
    assert_eq!(names(&a), ["slack__post_message", "slack__search_messages"]);
    assert_eq!(strengths(&a), [json!("listed"), json!("listed")]);
    assert!(a.tools.iter().all(|t| t.parameters.is_none()));
    // Listing honours max_results.
    let a = registry.tool_info("ns:github", 2).unwrap();
    assert_eq!(names(&a).len(), 2);
    // A namespace nobody has finds nothing and says so.
    let a = answer(&registry, "ns:jira create issue");
    assert!(a.tools.is_empty() && a.no_match, "{a:?}");
}

#[test]
fn unknown_syntax_is_keyword_search() {
    let registry = registry();
    for query in [
        "weather: city",
        "+ weather city",
        "ns: weather city",
        "select: , weather city",
        "weather -- city",
    ] {
        let a = answer(&registry, query);
        assert!(names(&a).contains(&"weather_current"), "{query}: {a:?}");
    }
}

#[tokio::test]
async fn the_answers_reach_sessions_and_scopes() {
    let registry = registry();
    let ctx = ToolContext::new();
    let session = Session::new(registry.clone());
    // A no-match loads nothing.
    let a = session
        .call(
            "tool_info",
            json!({"query": "translate a sentence into french"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(a["no_match"], true);
    assert!(session.loaded().is_empty(), "{:?}", session.loaded());
    // select: loads exactly what it names.
    session
        .call(
            "tool_info",
            json!({"query": "select:weather_current"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(session.loaded(), ["weather_current"]);

    // A scope hides tools from filters, listings and no-match hints too.
    let scoped = Session::new(registry)
        .scoped(ToolScope::new(["tool_info", "slack__*", "weather_current"]).unwrap());
    let a = scoped
        .call("tool_info", json!({"query": "ns:github"}), &ctx)
        .await
        .unwrap();
    assert_eq!(a["tools"], json!([]), "{a}");
    let a = scoped
        .call(
            "tool_info",
            json!({"query": "create issue in github"}),
            &ctx,
        )
        .await
        .unwrap();
    let text = a.to_string();
    assert!(!text.contains("github__"), "{text}");
    assert!(!text.contains("gitlab"), "{text}");
    let a = scoped
        .call(
            "tool_info",
            json!({"query": "select:github__create_issue"}),
            &ctx,
        )
        .await
        .unwrap();
    assert!(
        !a["message"]
            .as_str()
            .unwrap()
            .contains("github__create_issue (nearest: github"),
        "{a}"
    );
    assert_eq!(a["tools"], json!([]));
}

#[test]
fn a_lone_keyword_among_unmatched_content_words_is_not_strong() {
    let registry = Registry::builder()
        .without_linked()
        .lazy(LazyConfig::lazy())
        .tools([
            tool("job_create", "Start a background job that runs a command.").keywords([
                "launch",
                "background",
                "job",
            ]),
            tool("csv_to_json", "Convert a CSV table to JSON records."),
        ])
        .build()
        .unwrap();
    let top = |query: &str| registry.search_index().search(query, 3)[0];
    // One word of the tool's among words no tool holds: weak.
    let rocket = top("launch a rocket to the moon with quantum entanglement");
    assert_eq!(registry.tools()[rocket.tool].name(), "job_create");
    assert!(rocket.signals.is_lone_keyword(), "{:?}", rocket.signals);
    assert!(rocket.strength < registry.strong_match(), "{rocket:?}");
    assert!(top("launch two pizzas").signals.is_lone_keyword());
    // Stop words of other languages are not content words: of "das",
    // "und", "die" and "rocket", one counts.
    let mixed = top("launch das rocket und die");
    assert_eq!(mixed.signals.unmatched_words, 1, "{:?}", mixed.signals);
    assert!(!mixed.signals.is_lone_keyword());
    // Names, numbers, quoted text and paths are data the request carries,
    // not words for what it asks.
    let data =
        top("launch report_old.txt for Maria in Lisbon at 3pm with \"quantum entanglement\"");
    assert_eq!(data.signals.unmatched_words, 6, "{:?}", data.signals);
    assert_eq!(data.signals.unmatched_asking, 0, "{:?}", data.signals);
    assert!(!data.signals.is_lone_keyword());
    assert!(data.strength >= registry.strong_match(), "{data:?}");
    // The same word with the request's other words the tool's: strong.
    let job = top("launch a background job");
    assert!(!job.signals.is_lone_keyword());
    assert!(job.strength >= registry.strong_match(), "{job:?}");
    // A word of the tool's name stands beside fewer asking words: two is
    // not enough ...
    let named = top("json of my favourite recipes");
    assert_eq!(registry.tools()[named.tool].name(), "csv_to_json");
    assert_eq!(named.signals.unmatched_asking, 2, "{:?}", named.signals);
    assert!(!named.signals.is_lone_keyword(), "{:?}", named.signals);
    // ... four are.
    let many = top("json of my grandmother's favourite winter soup recipes");
    assert_eq!(many.signals.unmatched_asking, 5, "{:?}", many.signals);
    assert!(many.signals.is_lone_keyword(), "{:?}", many.signals);
}
