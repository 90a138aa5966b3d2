//! Local `$ref`s resolved (`optimclaw::schema::resolve_refs`): JSON
//! pointers anywhere, draft-07 definitions, recursion, dangling references,
//! `$ref` beside other keywords, and sharing that would blow up if inlined.

use optimclaw::schema::{has_ref, resolve_refs};
use serde_json::{Map, json};

#[test]
fn json_pointers_anywhere_are_inlined() {
    let schema = json!({
        "type": "object",
        "properties": {
            "data": {"type": "object", "properties": {"name": {"type": "string", "description": "n"}}},
            "label": {"$ref": "#/properties/data/properties/name"},
            "old": {"$ref": "#/definitions/Old"},
            "tags": {"type": "array", "items": {"type": "integer"}},
            "more": {"$ref": "#/properties/tags/items", "description": "overlaid"}
        },
        "definitions": {"Old": {"type": "boolean"}}
    });
    let r = resolve_refs(&schema);
    assert!(!r.has_refs && r.notes.is_empty(), "{r:?}");
    assert_eq!(
        r.schema["properties"]["label"],
        json!({"type": "string", "description": "n"})
    );
    assert_eq!(r.schema["properties"]["old"], json!({"type": "boolean"}));
    assert_eq!(
        r.schema["properties"]["more"],
        json!({"type": "integer", "description": "overlaid"})
    );
    assert!(r.schema.get("definitions").is_none());
}

#[test]
fn recursion_stays_behind_one_definition() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }}}
    });
    let r = resolve_refs(&schema);
    assert!(r.has_refs);
    // A recursive target is not inlined even once: it would only repeat.
    assert_eq!(
        r.schema["properties"]["tree"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert_eq!(
        r.schema["$defs"]["Node"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Node"})
    );
}

#[test]
fn a_pointer_to_an_ancestor_is_recursion() {
    // zod-to-json-schema's way of writing a tree.
    let schema = json!({"type": "object", "properties": {"node": {"type": "object", "properties": {
        "children": {"type": "array", "items": {"$ref": "#/properties/node"}}
    }}}});
    let r = resolve_refs(&schema);
    assert!(r.has_refs);
    assert_eq!(
        r.schema["properties"]["node"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/node"})
    );
    assert_eq!(
        r.schema["$defs"]["node"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/node"})
    );
}

#[test]
fn the_root_refers_to_itself_as_hash() {
    let schema = json!({"type": "object", "properties": {"next": {"$ref": "#"}}});
    let r = resolve_refs(&schema);
    assert!(r.has_refs);
    assert_eq!(r.schema["properties"]["next"], json!({"$ref": "#"}));
}

#[test]
fn a_dangling_ref_is_any_value_with_a_note() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Gone", "description": "d"}}});
    let r = resolve_refs(&schema);
    assert_eq!(r.notes.len(), 1);
    assert_eq!(
        r.schema["properties"]["x"]["description"],
        "d (refers to `#/$defs/Gone`, which the schema does not define)"
    );
    assert!(!has_ref(&r.schema));
}

#[test]
fn ref_beside_validation_keywords_joins_them() {
    let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/S", "minLength": 2}},
        "$defs": {"S": {"type": "string"}}});
    let r = resolve_refs(&schema);
    assert_eq!(
        r.schema["properties"]["x"],
        json!({"allOf": [{"type": "string"}, {"minLength": 2}]})
    );
}

#[test]
fn exponential_sharing_stays_bounded() {
    // d0 uses d1 twice, d1 uses d2 twice, … : 2^30 nodes if inlined.
    let mut defs = Map::new();
    for i in 0..30 {
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {
                "a": {"$ref": format!("#/$defs/d{}", i + 1)},
                "b": {"$ref": format!("#/$defs/d{}", i + 1)}
            }}),
        );
    }
    defs.insert("d30".into(), json!({"type": "string"}));
    let schema =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let r = resolve_refs(&schema);
    assert!(r.has_refs);
    assert!(r.schema.to_string().len() < 100_000);
}

#[test]
fn draft07_tuples_are_written_as_prefix_items() {
    let schema = json!({"type": "object", "properties": {"pair": {
        "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false
    }}});
    let r = resolve_refs(&schema);
    assert_eq!(
        r.schema["properties"]["pair"],
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false})
    );
}

#[test]
fn nesting_beyond_the_limit_is_cut_with_a_note() {
    let mut node = json!({"type": "string"});
    for _ in 0..200 {
        node = json!({"type": "object", "properties": {"a": node}});
    }
    let r = resolve_refs(&node);
    assert!(!r.notes.is_empty());
    assert!(r.schema.to_string().contains("nested too deep"));
}
