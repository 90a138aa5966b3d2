//! Every tool of three catalogs — the assistant's, 527 real MCP servers'
//! tools exactly as published (`corpora/mcp-live-526-raw`), and a
//! hand-written set of the nastiest shapes (`tests/data/nasty-schemas.json`)
//! — rendered in every dialect and checked against what each provider's
//! API accepts (`optimclaw::provider::rules`). No tool may be left out or
//! break a rule; what had to give is counted per catalog and dialect.
//!
//! Writes every rendered spec, with the schema it came from, to
//! `target/provider-specs-catalogs.json`: `.ci/run` has the providers' SDK
//! types validate it (`tests/sdk/validate_specs.py`) and checks that every
//! argument the original schema takes is still taken
//! (`tests/sdk/check_acceptance.py`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use optimclaw::manifest::{ManifestOptions, load_manifest};
use optimclaw::provider::rules::violations;
use optimclaw::provider::{Dialect, Outcome, RenderOptions, describe_tool};
use optimclaw::{LazyConfig, Registry};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn manifest(path: &Path) -> Registry {
    let options = ManifestOptions::default().with_sanitize_names(true);
    let tools = load_manifest(path, &options).unwrap_or_else(|e| panic!("{e}"));
    Registry::builder()
        .without_linked()
        .lazy(LazyConfig::eager())
        .tools(tools)
        .build()
        .unwrap()
}

fn catalogs() -> Vec<(&'static str, Registry)> {
    assert_eq!(assistant::CORE_TOOLS.len(), 12, "the assistant is linked");
    let mut out = vec![(
        "assistant",
        Registry::builder()
            .lazy(LazyConfig::eager())
            .build()
            .unwrap(),
    )];
    out.push((
        "nasty",
        manifest(&root().join("tests/data/nasty-schemas.json")),
    ));
    let raw = root().join("corpora/mcp-live-526-raw/tools.json");
    if raw.exists() {
        out.push(("mcp-live-526-raw", manifest(&raw)));
    } else {
        eprintln!("{} is not here; checking two catalogs", raw.display());
    }
    out
}

/// The dialects with a `tools` array (text renders a whole prompt).
fn dialects() -> impl Iterator<Item = Dialect> {
    Dialect::ALL.into_iter().filter(|d| *d != Dialect::Text)
}

fn parameters(spec: &Value, dialect: Dialect) -> Option<&Value> {
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => spec["function"].get("parameters"),
        Dialect::Anthropic => spec.get("input_schema"),
        Dialect::Mcp => spec.get("inputSchema"),
        _ => spec.get("parameters"),
    }
}

fn strict(spec: &Value) -> bool {
    spec.get("function").unwrap_or(spec)["strict"] == true
}

#[test]
fn every_tool_of_every_catalog_goes_to_every_provider_within_its_rules() {
    let mut dump = serde_json::Map::new();
    let mut table = Vec::new();
    let mut broken = Vec::new();
    for (name, registry) in catalogs() {
        let mut counts: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
        let mut tools = Vec::new();
        for tool in registry.tools() {
            let mut entry = json!({"name": tool.name(), "schema": tool.input_schema()});
            for dialect in dialects() {
                let described = describe_tool(tool, dialect, RenderOptions::default());
                if let Some(d) = &described.degraded {
                    let slot = match d.outcome {
                        Outcome::Loosened => 0,
                        Outcome::NotStrict => 1,
                        Outcome::LeftOut => 2,
                    };
                    counts.entry(dialect.name()).or_default()[slot] += 1;
                }
                let Some(spec) = described.spec else {
                    broken.push(format!("{name}: {} left out for {dialect}", tool.name()));
                    continue;
                };
                for v in violations(dialect, parameters(&spec, dialect), strict(&spec)) {
                    broken.push(format!("{name}: {} for {dialect}: {v}", tool.name()));
                }
                entry[dialect.name()] = spec;
            }
            tools.push(entry);
        }
        for dialect in dialects() {
            let [loose, not_strict, left] = counts.get(dialect.name()).copied().unwrap_or_default();
            table.push(format!(
                "{name:<18}{:<18}{:>6} tools {loose:>5} loosened {not_strict:>5} strict:false {left:>3} left out",
                dialect.name(),
                registry.len()
            ));
        }
        dump.insert(name.to_owned(), Value::Array(tools));
    }
    eprintln!("{}", table.join("\n"));
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    let target = root().join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(
        target.join("provider-specs-catalogs.json"),
        serde_json::to_string(&Value::Object(dump)).unwrap(),
    )
    .unwrap();
}

fn nasty() -> Registry {
    manifest(&root().join("tests/data/nasty-schemas.json"))
}

fn spec(registry: &Registry, tool: &str, dialect: Dialect) -> (Value, Option<Outcome>) {
    let d = describe_tool(
        registry.get(tool).unwrap(),
        dialect,
        RenderOptions::default(),
    );
    (d.spec.unwrap(), d.degraded.map(|d| d.outcome))
}

#[test]
fn json_pointer_and_draft07_refs_are_resolved_everywhere() {
    let registry = nasty();
    for tool in ["json_pointer_refs", "draft07_definitions"] {
        for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Gemini] {
            let (spec, outcome) = spec(&registry, tool, dialect);
            assert!(
                !spec.to_string().contains("$ref"),
                "{tool} {dialect}: {spec}"
            );
            assert_eq!(outcome, None, "{tool} {dialect}");
        }
        let (strict_spec, outcome) = spec(&registry, tool, Dialect::OpenAiStrict);
        assert_eq!(strict_spec["function"]["strict"], true, "{tool}");
        assert_eq!(outcome, None);
    }
    let (gemini, _) = spec(&registry, "json_pointer_refs", Dialect::Gemini);
    assert_eq!(
        gemini["parameters"]["properties"]["title"],
        json!({"type": "string", "description": "A label."})
    );
}

#[test]
fn what_strict_mode_cannot_express_goes_with_strict_false() {
    let registry = nasty();
    for tool in [
        "forty_deep",
        "huge_enum",
        "prefix_items",
        "free_forms",
        "type_arrays",
        "dangling_ref",
    ] {
        let (spec, outcome) = spec(&registry, tool, Dialect::OpenAiStrict);
        assert_eq!(spec["function"]["strict"], false, "{tool}");
        assert_eq!(outcome, Some(Outcome::NotStrict), "{tool}");
    }
    // Narrowing keywords move into words; the tool stays strict.
    for tool in [
        "one_of_not",
        "conditionals",
        "all_of",
        "const_values",
        "openapi_nullable",
        "recursive_defs",
    ] {
        let (spec, _) = spec(&registry, tool, Dialect::OpenAiStrict);
        assert_eq!(spec["function"]["strict"], true, "{tool}: {spec}");
    }
}

#[test]
fn an_empty_schema_stays_anything() {
    let registry = nasty();
    let (openai, _) = spec(&registry, "free_forms", Dialect::OpenAi);
    let props = &openai["function"]["parameters"]["properties"];
    assert_eq!(props["payload"], json!({}));
    assert!(
        props["meta"].get("additionalProperties").is_none(),
        "{}",
        props["meta"]
    );
    assert_eq!(props["rows"]["items"], json!({}));
    let (strict_spec, _) = spec(&registry, "free_forms", Dialect::OpenAiStrict);
    assert_eq!(
        strict_spec["function"]["parameters"]["properties"]["payload"],
        json!({})
    );
}

#[test]
fn names_and_root_compositions_a_provider_refuses_are_described_in_words() {
    let registry = nasty();
    let (anthropic, outcome) = spec(&registry, "non_ascii_names", Dialect::Anthropic);
    assert_eq!(outcome, Some(Outcome::Loosened));
    let schema = &anthropic["input_schema"];
    assert!(schema["properties"].get("名前").is_none());
    assert!(schema["properties"].get("ok_name").is_some());
    assert!(
        schema["description"].as_str().unwrap().contains("`名前`"),
        "{schema}"
    );
    let (root_any, _) = spec(&registry, "root_any_of", Dialect::Anthropic);
    assert!(root_any["input_schema"].get("anyOf").is_none());
    assert!(
        root_any["input_schema"]["description"]
            .as_str()
            .unwrap()
            .contains("at least one of"),
        "{root_any}"
    );
}

#[test]
fn the_registry_and_the_prompt_say_what_was_degraded() {
    let registry = nasty();
    let degraded = registry.degraded(Dialect::Gemini);
    assert!(
        degraded.iter().any(|d| d.tool == "recursive_defs"),
        "{degraded:?}"
    );
    let rendered = optimclaw::Session::new(registry.clone())
        .render(Dialect::OpenAiStrict, RenderOptions::default());
    assert_eq!(rendered.tools.len(), registry.len(), "no tool is left out");
    assert!(
        rendered
            .degraded
            .iter()
            .any(|d| d.tool == "huge_enum" && d.outcome == Outcome::NotStrict),
        "{:?}",
        rendered.degraded
    );
}
