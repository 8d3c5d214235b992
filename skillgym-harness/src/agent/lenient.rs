//! Field types that never fail to deserialize: a JSON value of another type than the one
//! expected reads as absent (an empty list for [`List`]).
//!
//! Agent streams reuse field names across record types with different shapes (a field that
//! is a string in one record type and an object in another), and the shapes drift between
//! versions. With these types one typed record struct covers every record type of a stream,
//! read in one pass over the line, and an odd value costs that field only, never the record.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, Error, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Visitor methods that accept a JSON value of an unwanted type as `$absent`.
macro_rules! ignore {
    ($absent:expr; $($kind:ident)*) => { $(ignore!(@one $absent; $kind);)* };
    (@one $absent:expr; bool) => {
        fn visit_bool<E: Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($absent)
        }
    };
    (@one $absent:expr; number) => {
        fn visit_i64<E: Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($absent)
        }
        fn visit_u64<E: Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($absent)
        }
        fn visit_f64<E: Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($absent)
        }
    };
    (@one $absent:expr; str) => {
        fn visit_str<E: Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($absent)
        }
    };
    (@one $absent:expr; null) => {
        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok($absent)
        }
        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok($absent)
        }
    };
    (@one $absent:expr; seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok($absent)
        }
    };
    (@one $absent:expr; map) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($absent)
        }
    };
}

/// A string, borrowed from the line when it has no escapes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Text<'a>(pub Option<Cow<'a, str>>);

impl Text<'_> {
    /// The string, if there was one.
    pub(super) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The string, or `""`.
    pub(super) fn or_empty(&self) -> &str {
        self.get().unwrap_or_default()
    }

    /// The string, owned, or `""`.
    pub(super) fn into_string(self) -> String {
        self.0.map(Cow::into_owned).unwrap_or_default()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            ignore!(Text(None); bool number null seq map);
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

/// An integer (a float without fraction counts).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Int(pub Option<i64>);

impl Int {
    /// The value as a count (negative values are absent).
    pub(super) fn count(self) -> Option<u64> {
        self.0.and_then(|value| u64::try_from(value).ok())
    }

    /// The value as an HTTP status.
    pub(super) fn status(self) -> Option<u16> {
        self.0
            .and_then(|value| u64::try_from(value).ok())
            .and_then(super::api_error::status)
    }

    /// The value as an exit code.
    pub(super) fn exit_code(self) -> Option<i32> {
        self.0.and_then(|value| i32::try_from(value).ok())
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IntVisitor;
        impl<'de> Visitor<'de> for IntVisitor {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<Int, E> {
                let integral = v.fract() == 0.0 && v.abs() < 9.0e15;
                // Exact: integral and well within the range of i64.
                #[allow(clippy::cast_possible_truncation)]
                Ok(Int(integral.then_some(v as i64)))
            }
            ignore!(Int(None); bool str null seq map);
        }
        deserializer.deserialize_any(IntVisitor)
    }
}

/// A count such as a token figure: a non-negative integer up to `u64::MAX` (a float without
/// fraction counts, saturated at `u64::MAX`); negative or fractional values are absent.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Count(pub Option<u64>);

impl Count {
    /// The value, if it was a count.
    pub(super) fn count(self) -> Option<u64> {
        self.0
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl<'de> Visitor<'de> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count(u64::try_from(v).ok()))
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(Some(v)))
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<Count, E> {
                let count = v >= 0.0 && v.fract() == 0.0;
                // `as` saturates: 1e300 reads as u64::MAX.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Ok(Count(count.then_some(v as u64)))
            }
            ignore!(Count(None); bool str null seq map);
        }
        deserializer.deserialize_any(CountVisitor)
    }
}

/// `deserialize_with` for an `Option<u64>` count field: see [`Count`].
pub(super) fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    Count::deserialize(deserializer).map(|count| count.0)
}

/// `deserialize_with` for an `Option<f64>` amount field: see [`Amount`].
pub(super) fn amount<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    Amount::deserialize(deserializer).map(|amount| amount.0)
}

/// An amount such as a cost in dollars: a finite, non-negative number; anything else is absent.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(super) struct Amount(pub Option<f64>);

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AmountVisitor;
        impl<'de> Visitor<'de> for AmountVisitor {
            type Value = Amount;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<Amount, E> {
                #[allow(clippy::cast_precision_loss)]
                Ok(Amount((v >= 0).then_some(v as f64)))
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Amount, E> {
                #[allow(clippy::cast_precision_loss)]
                Ok(Amount(Some(v as f64)))
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<Amount, E> {
                Ok(Amount((v.is_finite() && v >= 0.0).then_some(v)))
            }
            ignore!(Amount(None); bool str null seq map);
        }
        deserializer.deserialize_any(AmountVisitor)
    }
}

/// A boolean.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Flag(pub Option<bool>);

impl Flag {
    /// Whether it was `true`.
    pub(super) fn is_true(self) -> bool {
        self.0 == Some(true)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;
        impl<'de> Visitor<'de> for FlagVisitor {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            ignore!(Flag(None); number str null seq map);
        }
        deserializer.deserialize_any(FlagVisitor)
    }
}

/// An object read as `T` (whose fields should be lenient themselves).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|value| Obj(Some(value)))
            }
            ignore!(Obj(None); bool number str null seq);
        }
        deserializer.deserialize_any(ObjVisitor(PhantomData))
    }
}

/// A list of `T` (whose fields should be lenient themselves); anything else is empty.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(List(items))
            }
            ignore!(List(Vec::new()); bool number str null map);
        }
        deserializer.deserialize_any(ListVisitor(PhantomData))
    }
}

/// An error's message: a string, or the `message` of an object.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct ErrorMessage<'a>(pub Option<Cow<'a, str>>);

impl ErrorMessage<'_> {
    /// The message, if there was one.
    pub(super) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ErrorMessage<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Body<'a> {
            #[serde(borrow)]
            message: Text<'a>,
        }
        struct MessageVisitor;
        impl<'de> Visitor<'de> for MessageVisitor {
            type Value = ErrorMessage<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ErrorMessage(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ErrorMessage(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ErrorMessage(Some(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let body = Body::deserialize(MapAccessDeserializer::new(map))?;
                Ok(ErrorMessage(body.message.0))
            }
            ignore!(ErrorMessage(None); bool number null seq);
        }
        deserializer.deserialize_any(MessageVisitor)
    }
}
