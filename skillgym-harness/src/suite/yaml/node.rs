//! A YAML document as a tree of [`Node`]s that remember their 1-based line and column, so the
//! loader can validate every field by hand and report every problem of a file, not the first.
//!
//! | Piece | Role |
//! |---|---|
//! | [`parse_document`] | text → [`Node`] through serde-saphyr (YAML 1.2 core schema, merge keys, anchors) |
//! | [`Node`] | a value plus the position of its YAML node (keys carry theirs too) |
//! | [`Value`] | null, bool, integer, float, string, sequence, mapping (keys in file order) |
//! | [`Node::to_json`] | the node as `serde_json::Value` (metadata, `config`, tool arguments) |
//!
//! Why a tree and not `#[derive(Deserialize)]` structs: serde stops at the first error of a
//! document, and the loader must report all the errors of a `case.yaml` at once.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::config::ConfigError;

/// A YAML value with the position of its node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub(crate) value: Value,
    /// 1-based line (0 when unknown).
    pub(crate) line: u32,
    /// 1-based column (0 when unknown).
    pub(crate) column: u32,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Keys in file order (duplicates are rejected by the parser).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The YAML type name used in "expected ..., found ..." messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A number (integer or float) as `f64`.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The node as JSON (mapping keys rendered as strings).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.key_text(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// A mapping key as text (`1` for an integer key, `true` for a boolean one).
    pub(crate) fn key_text(&self) -> String {
        match &self.value {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "null".to_owned(),
            Value::Seq(_) | Value::Map(_) => "<complex key>".to_owned(),
        }
    }

    /// Visits every node, depth first, values of mappings only (keys are left alone).
    pub(crate) fn for_each_value_mut(&mut self, f: &mut impl FnMut(&mut Node)) {
        f(self);
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.for_each_value_mut(f)),
            Value::Map(entries) => entries
                .iter_mut()
                .for_each(|(_, v)| v.for_each_value_mut(f)),
            _ => {}
        }
    }
}

/// Parses a YAML document read from `path` into a [`Node`]; `line_offset` is added to every
/// line (a JSONL line parsed on its own). An empty document is [`Value::Null`].
pub(crate) fn parse_document(
    path: &Path,
    text: &str,
    line_offset: u32,
) -> Result<Node, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Node {
            value: Value::Null,
            line: line_offset + 1,
            column: 1,
        });
    }
    let mut node: Node = crate::config::yaml::parse_yaml_1_2(path, text)?;
    if line_offset > 0 {
        node.shift(line_offset);
    }
    Ok(node)
}

impl Node {
    fn shift(&mut self, offset: u32) {
        if self.line > 0 {
            self.line += offset;
        }
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.shift(offset)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.shift(offset);
                v.shift(offset);
            }),
            _ => {}
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<Value>::deserialize(deserializer)?;
        let location = spanned.referenced;
        Ok(Node {
            value: spanned.value,
            line: u32::try_from(location.line()).unwrap_or(0),
            column: u32::try_from(location.column()).unwrap_or(0),
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        parse_document(Path::new("t.yaml"), text, 0).unwrap()
    }

    #[test]
    fn keys_and_values_carry_their_positions() {
        let node = parse("a: 1\nlist:\n  - x\n  - {k: true}\n");
        let Value::Map(entries) = &node.value else {
            panic!("{node:?}")
        };
        assert_eq!((entries[0].0.line, entries[0].0.column), (1, 1));
        assert_eq!(entries[0].1.value, Value::Int(1));
        assert_eq!((entries[1].0.line, entries[1].0.column), (2, 1));
        let Value::Seq(items) = &entries[1].1.value else {
            panic!()
        };
        assert_eq!((items[0].line, items[0].column), (3, 5));
        let Value::Map(inner) = &items[1].value else {
            panic!()
        };
        assert_eq!((inner[0].0.line, inner[0].0.column), (4, 6));
        assert_eq!(inner[0].1.value, Value::Bool(true));
    }

    #[test]
    fn yaml_1_2_core_schema_and_merge_keys() {
        let node = parse("base: &b {x: 1}\nm:\n  <<: *b\n  y: yes\n");
        let json = node.to_json();
        assert_eq!(json["m"]["x"], 1);
        assert_eq!(json["m"]["y"], "yes");
    }

    #[test]
    fn line_offset_shifts_every_node() {
        let node = parse_document(Path::new("t.jsonl"), "{\"id\": \"a\"}", 4).unwrap();
        let Value::Map(entries) = &node.value else {
            panic!()
        };
        assert_eq!((entries[0].0.line, entries[0].1.line), (5, 5));
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse("  \n").value, Value::Null);
    }
}
