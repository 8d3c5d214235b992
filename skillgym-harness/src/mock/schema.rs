//! Values that satisfy a JSON schema as far as a dry run needs: for the structured replies
//! agents ask the scripted model for (titles, "who speaks next"), and for the required
//! arguments of a tool call a script says nothing about.

use serde_json::{Map, Value, json};

/// A JSON value that satisfies `schema` as far as a dry run needs: required properties of
/// objects, the first enum value, empty lists; a `title` property reads `Mock session`.
pub fn example_json(schema: &Value) -> Value {
    example(schema, None, 0)
}

/// [`example_json`] for the value of the property `name`; `Null` when the schema names no
/// type.
pub fn example_property(name: &str, schema: &Value) -> Value {
    example(schema, Some(name), 0)
}

fn example(schema: &Value, property: Option<&str>, depth: usize) -> Value {
    if depth > 16 {
        return Value::Null;
    }
    let Some(schema) = schema.as_object() else {
        return Value::Null;
    };
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|options| options.first())
        {
            return example(first, property, depth + 1);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.to_ascii_lowercase(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null")
            .to_ascii_lowercase(),
        _ if schema.contains_key("properties") => "object".to_owned(),
        _ => String::new(),
    };
    match kind.as_str() {
        "object" => {
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_else(|| properties.keys().map(String::as_str).collect());
                for name in required {
                    if let Some(property_schema) = properties.get(name) {
                        object.insert(
                            name.to_owned(),
                            example(property_schema, Some(name), depth + 1),
                        );
                    }
                }
            }
            Value::Object(object)
        }
        "array" => json!([]),
        "boolean" => json!(false),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(0)),
        "string" if property == Some("title") => json!("Mock session"),
        "string" => json!("mock"),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_json_satisfies_required_fields_and_enums() {
        let schema = json!({
            "type": "OBJECT",
            "properties": {
                "reasoning": {"type": "STRING"},
                "next_speaker": {"type": "STRING", "enum": ["user", "model"]},
                "optional": {"type": "string"},
                "title": {"type": "string"},
                "count": {"type": ["integer", "null"], "minimum": 1},
            },
            "required": ["reasoning", "next_speaker", "title", "count"],
        });
        assert_eq!(
            example_json(&schema),
            json!({"reasoning": "mock", "next_speaker": "user", "title": "Mock session", "count": 1})
        );
        assert_eq!(
            example_json(&json!({"anyOf": [{"type": "boolean"}]})),
            json!(false)
        );
        assert_eq!(example_json(&json!(true)), Value::Null);
    }
}
