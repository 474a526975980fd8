//! How keys may be written beyond what serde's derive reads: a value that is a text or a
//! mapping (`PFS: PFS` or `TTP: { paramcd: PFS, ... }`), and `null` for a key that has a
//! default (docs/CONFIG.md: `null` is the same as leaving the key out).
//!
//! serde's `untagged` enums try each form on a buffered copy of the value, so a mapping with a
//! misspelt key either matched a lenient form silently or failed with one generic message
//! naming no key. Here the form is chosen by what the YAML holds: a text is the short form, a
//! mapping is read by its own struct, which denies unknown keys (docs/CONFIG.md) and reports
//! the key, its line and the nearest known key as every other struct does.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

/// Reads a value that is a text (`short`) or a mapping read as `M` (`full`); anything else is
/// an error saying `expecting`.
pub(crate) fn short_or_full<'de, D, M, T>(
    deserializer: D,
    expecting: &'static str,
    short: fn(String) -> T,
    full: fn(M) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    M: Deserialize<'de>,
{
    struct Either<M, T> {
        expecting: &'static str,
        short: fn(String) -> T,
        full: fn(M) -> T,
        mapping: PhantomData<M>,
    }

    impl<'de, M: Deserialize<'de>, T> Visitor<'de> for Either<M, T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expecting)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
            Ok((self.short)(v.to_string()))
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<T, E> {
            Ok((self.short)(v))
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            M::deserialize(de::value::MapAccessDeserializer::new(map)).map(self.full)
        }
    }

    deserializer.deserialize_any(Either {
        expecting,
        short,
        full,
        mapping: PhantomData,
    })
}

/// A key with a default read so that `null` gives the default, as leaving it out does
/// (`#[serde(default, deserialize_with = "null_is_default")]`).
pub(crate) fn null_is_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::short_or_full;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Full {
        name: String,
        #[serde(default)]
        label: Option<String>,
    }

    #[derive(Debug, PartialEq)]
    enum Written {
        Short(String),
        Full(Full),
    }

    impl<'de> Deserialize<'de> for Written {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            short_or_full(
                d,
                "a name or { name, label }",
                Written::Short,
                Written::Full,
            )
        }
    }

    #[test]
    fn a_text_or_a_mapping_whose_unknown_keys_are_errors() {
        let short: Written = serde_yaml::from_str("PFS").unwrap();
        assert_eq!(short, Written::Short("PFS".into()));
        let full: Written = serde_yaml::from_str("{ name: PFS, label: x }").unwrap();
        assert_eq!(
            full,
            Written::Full(Full {
                name: "PFS".into(),
                label: Some("x".into())
            })
        );
        let misspelt = serde_yaml::from_str::<Written>("{ name: PFS, lable: x }")
            .unwrap_err()
            .to_string();
        assert!(
            misspelt.contains("unknown field `lable`, expected `name` or `label`"),
            "{misspelt}"
        );
        let number = serde_yaml::from_str::<Written>("12")
            .unwrap_err()
            .to_string();
        assert!(
            number.contains("expected a name or { name, label }"),
            "{number}"
        );
    }
}
