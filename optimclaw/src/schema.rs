//! The canonical JSON Schema of a tool: made by schemars, then cleaned of
//! what no provider wants (`$schema`, the generated root `title`,
//! non-standard integer/float `format`s).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// `format` values schemars emits for Rust number types; they are not JSON
/// Schema formats and several providers reject them. The bounds schemars
/// emits beside them (`minimum: 0` for unsigned types) are kept.
const NUMBER_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The canonical schema of `T`, cleaned.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    clean_root(&mut value);
    value
}

/// Cleans a root schema in place: drops `$schema` and `title`, drops
/// number formats everywhere, and gives an object without properties an
/// empty `properties` map.
pub fn clean_root(schema: &mut Value) {
    if let Value::Object(map) = schema {
        map.remove("$schema");
        map.remove("title");
    }
    drop_number_formats(schema);
    if let Value::Object(map) = schema {
        let is_object = map.get("type").and_then(Value::as_str) == Some("object");
        if is_object && !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
    }
}

fn drop_number_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| NUMBER_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            map.values_mut().for_each(drop_number_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_number_formats),
        _ => {}
    }
}

/// The top-level property names a schema lists, in schema order.
pub fn property_names(schema: &Value) -> impl Iterator<Item = &str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.keys().map(String::as_str))
}

/// Whether a schema lists `name` in `required`.
pub fn is_required(schema: &Value, name: &str) -> bool {
    schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|v| v.as_str() == Some(name)))
}
