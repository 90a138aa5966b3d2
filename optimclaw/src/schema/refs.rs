//! Local `$ref`s resolved: every JSON pointer into the same document
//! (`#/$defs/…`, draft-07 `#/definitions/…`, `#/properties/…`, `#/items`,
//! `#`) is inlined where it is used, except where inlining would never end
//! (a recursive type) or would blow the schema up (a shared part used many
//! times): those stay as `$ref`s into one root `$defs` map, under a name
//! derived from where they were. `$ref` beside other keywords keeps both
//! (annotations overlay the inlined schema; other keywords join it under
//! `allOf`). A `$ref` that points at nothing becomes "anything", with a
//! note saying so: the looser schema never refuses a value the tool takes.
//! Draft-07 tuples (`items` as a list, `additionalItems`) are written in
//! 2020-12 terms (`prefixItems`, `items`), which every provider reads.
//!
//! Why by hand: the JSON Schema crates that resolve references
//! (`jsonschema`, `referencing`) validate instances; none rewrites a schema
//! into one without references, and each pulls a large tree (regex engines,
//! URL handling) for what a JSON-pointer walk does here.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::visit::{self, DEFINITIONS, Definitions};

/// Keywords that only annotate: beside a `$ref` they overlay the inlined
/// schema instead of joining it under `allOf`.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Deeper than this, a schema is cut (the rest is "anything", with a note):
/// no provider takes such nesting, and recursion in the walk stays bounded.
pub const MAX_DEPTH: usize = 64;
/// A resolved schema may grow to this many nodes by inlining; beyond it,
/// parts used more than once stay behind `$ref`s.
const MAX_NODES: usize = 20_000;

/// What [`resolve_refs`] made of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// The schema: no `$ref` except `#` (the root) and `#/$defs/NAME`, and
    /// every such name defined in the root `$defs`.
    pub schema: Value,
    /// Whether some `$ref` is left (recursive types, or shared parts kept
    /// by reference because inlining them would have been too large).
    pub has_refs: bool,
    /// What could not be kept as written: JSON pointer of the node in the
    /// input, and what was done.
    pub notes: Vec<(String, String)>,
}

/// `s` with every character but ASCII letters, digits and `_` as `_`: a
/// name that fits anywhere an identifier must.
pub fn word_chars(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Resolves every local `$ref` of `schema` (see the module docs).
pub fn resolve_refs(schema: &Value) -> Resolved {
    let mut walk = Walk {
        root: schema,
        defs: BTreeMap::new(),
        names: HashMap::new(),
        notes: Vec::new(),
        nodes: 0,
        by_ref: false,
        cycles: HashMap::new(),
    };
    let mut out = walk.node(schema, "", &mut vec![String::new()], 0);
    if walk.nodes > MAX_NODES {
        // Inlining grew too large: start again keeping every shared part
        // behind a reference.
        walk.defs.clear();
        walk.names.clear();
        walk.notes.clear();
        walk.nodes = 0;
        walk.by_ref = true;
        out = walk.node(schema, "", &mut vec![String::new()], 0);
    }
    let has_refs = !walk.defs.is_empty() || contains_root_ref(&out);
    if !walk.defs.is_empty()
        && let Value::Object(map) = &mut out
    {
        map.insert(
            "$defs".into(),
            Value::Object(walk.defs.into_iter().collect()),
        );
    }
    Resolved {
        schema: out,
        has_refs,
        notes: walk.notes,
    }
}

struct Walk<'a> {
    root: &'a Value,
    /// Output definitions, by name.
    defs: BTreeMap<String, Value>,
    /// Input pointer → output definition name.
    names: HashMap<String, String>,
    notes: Vec<(String, String)>,
    nodes: usize,
    /// Keep every reference as a reference (second pass, too large).
    by_ref: bool,
    /// Input pointer → whether that node refers back to itself.
    cycles: HashMap<String, bool>,
}

impl Walk<'_> {
    /// `stack`: the pointers being inlined around this node.
    fn node(&mut self, node: &Value, path: &str, stack: &mut Vec<String>, depth: usize) -> Value {
        self.nodes += 1;
        if !self.by_ref && self.nodes > MAX_NODES {
            // This pass is thrown away (see `resolve_refs`): stop early.
            return Value::Null;
        }
        let Value::Object(src) = node else {
            return node.clone();
        };
        if depth > MAX_DEPTH {
            self.notes.push((
                path.to_owned(),
                format!("nested deeper than {MAX_DEPTH} levels; taken as any value"),
            ));
            return json!({"description": "(nested too deep to describe; any value)"});
        }
        if let Some(reference) = src.get("$ref").and_then(Value::as_str) {
            return self.reference(src, reference, path, stack, depth);
        }
        // Definitions are dropped from the output (what is still referred
        // to is moved to the root `$defs`).
        let mut out = visit::map(src, Definitions::Skip, |slot, child| {
            self.node(
                child,
                &format!("{path}{}", slot.pointer()),
                stack,
                depth + 1,
            )
        });
        out.retain(|key, _| !DEFINITIONS.contains(&key.as_str()));
        // Draft-07 tuples in 2020-12 terms: `items: [..]` is `prefixItems`,
        // `additionalItems` is `items`.
        if matches!(out.get("items"), Some(Value::Array(_))) {
            let tuple = out.remove("items").unwrap_or(Value::Null);
            out.insert("prefixItems".into(), tuple);
            if let Some(rest) = out.remove("additionalItems") {
                out.insert("items".into(), rest);
            }
        }
        Value::Object(out)
    }

    fn reference(
        &mut self,
        src: &Map<String, Value>,
        reference: &str,
        path: &str,
        stack: &mut Vec<String>,
        depth: usize,
    ) -> Value {
        let siblings: Map<String, Value> = src
            .iter()
            .filter(|(k, _)| k.as_str() != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let target = reference
            .strip_prefix('#')
            .map(decode_pointer)
            .and_then(|pointer| Some((self.root.pointer(&pointer)?, pointer)));
        let Some((target, pointer)) = target else {
            self.notes.push((
                path.to_owned(),
                format!("`$ref: {reference}` points at nothing in this schema; taken as any value"),
            ));
            let mut loose = self.node(&Value::Object(siblings), path, stack, depth);
            push_note(
                &mut loose,
                &format!("refers to `{reference}`, which the schema does not define"),
            );
            return loose;
        };
        // Recursive: the target is being inlined around this node, or (when
        // nothing is being inlined, so `path` is where this node is in the
        // input) it is one of this node's ancestors.
        let ancestor = stack.len() == 1
            && (path == pointer
                || path
                    .strip_prefix(pointer.as_str())
                    .is_some_and(|rest| rest.starts_with('/')))
            && path.starts_with(stack[0].as_str());
        // A target that refers back to itself is kept behind its definition
        // everywhere (inlining it once would only repeat it).
        let recursive = stack.contains(&pointer) || ancestor || self.reaches_itself(&pointer);
        let inlined = if pointer.is_empty() && recursive {
            json!({"$ref": "#"})
        } else if recursive || (self.by_ref && !pointer.is_empty()) {
            let name = self.define(&pointer, target, depth);
            json!({"$ref": format!("#/$defs/{name}")})
        } else {
            stack.push(pointer);
            let v = self.node(target, path, stack, depth + 1);
            stack.pop();
            v
        };
        self.join(inlined, siblings, path, stack, depth)
    }

    /// Whether the input node at `pointer` refers back to itself, directly
    /// or through other references.
    fn reaches_itself(&mut self, pointer: &str) -> bool {
        if let Some(known) = self.cycles.get(pointer) {
            return *known;
        }
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![pointer.to_owned()];
        let mut found = false;
        while let Some(p) = todo.pop() {
            if !seen.insert(p.clone()) || seen.len() > 1_000 {
                continue;
            }
            let Some(node) = self.root.pointer(&p) else {
                continue;
            };
            for r in refs_in(node) {
                let target = decode_pointer(r.strip_prefix('#').unwrap_or(r));
                let inside = target == pointer
                    || pointer
                        .strip_prefix(target.as_str())
                        .is_some_and(|rest| rest.starts_with('/'));
                if inside {
                    found = true;
                    break;
                }
                todo.push(target);
            }
            if found {
                break;
            }
        }
        self.cycles.insert(pointer.to_owned(), found);
        found
    }

    /// The output definition of the input node at `pointer`, written once.
    fn define(&mut self, pointer: &str, target: &Value, depth: usize) -> String {
        if let Some(name) = self.names.get(pointer) {
            return name.clone();
        }
        let base = pointer
            .rsplit('/')
            .find(|s| !s.is_empty() && !matches!(*s, "properties" | "items" | "$defs"))
            .unwrap_or("def");
        let base = word_chars(base);
        let mut name = base.clone();
        let mut n = 2;
        while self.defs.contains_key(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.names.insert(pointer.to_owned(), name.clone());
        // A placeholder first, so a reference back to it inside ends.
        self.defs.insert(name.clone(), Value::Null);
        let mut stack = vec![pointer.to_owned()];
        let body = self.node(target, pointer, &mut stack, depth + 1);
        self.defs.insert(name.clone(), body);
        name
    }

    /// `$ref` beside other keywords: annotations overlay, the rest joins
    /// under `allOf` (both apply, as JSON Schema 2020-12 says).
    fn join(
        &mut self,
        inlined: Value,
        siblings: Map<String, Value>,
        path: &str,
        stack: &mut Vec<String>,
        depth: usize,
    ) -> Value {
        let (annotations, rest): (Map<String, Value>, Map<String, Value>) = siblings
            .into_iter()
            .filter(|(k, _)| !DEFINITIONS.contains(&k.as_str()))
            .partition(|(k, _)| ANNOTATIONS.contains(&k.as_str()));
        let mut out = if rest.is_empty() {
            inlined
        } else {
            let rest = self.node(&Value::Object(rest), path, stack, depth);
            json!({"allOf": [inlined, rest]})
        };
        if !annotations.is_empty() {
            if out.get("$ref").is_some() {
                // Keep the reference alone in its node.
                out = json!({"allOf": [out]});
            }
            if let Value::Object(map) = &mut out {
                map.extend(annotations);
            }
        }
        out
    }
}

/// `#/a~1b/c%20d` → `/a~1b/c d` (the pointer syntax `Value::pointer` reads,
/// with URI escapes undone).
fn decode_pointer(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = fragment
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| fragment.to_owned())
}

/// Every local `$ref` string inside a node (not following them).
fn refs_in(node: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut todo = vec![node];
    while let Some(Value::Object(map)) = todo.pop() {
        if let Some(r) = map.get("$ref").and_then(Value::as_str)
            && r.starts_with('#')
        {
            out.push(r);
        }
        visit::each(map, Definitions::Visit, |_, child| todo.push(child));
    }
    out
}

/// Whether a schema node or one below it has a `$ref` that `matches`.
fn any_ref(value: &Value, matches: &impl Fn(&str) -> bool) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    if map.get("$ref").and_then(Value::as_str).is_some_and(matches) {
        return true;
    }
    let mut found = false;
    visit::each(map, Definitions::Visit, |_, child| {
        found = found || any_ref(child, matches);
    });
    found
}

fn contains_root_ref(value: &Value) -> bool {
    any_ref(value, &|r| r == "#")
}

/// Appends `(note)` to a schema node's description.
pub fn push_note(node: &mut Value, note: &str) {
    if let Value::Object(map) = node {
        let description = match map.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} ({note})"),
            _ => format!("({note})"),
        };
        map.insert("description".into(), Value::String(description));
    }
}

/// Whether a schema has any `$ref` left.
pub fn has_ref(value: &Value) -> bool {
    any_ref(value, &|_| true)
}
