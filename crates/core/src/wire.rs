//! Values that cross between threads (the page and its workers) as one byte buffer:
//! MessagePack of their serde form, field names included.
//!
//! Why not JavaScript objects (serde-wasm-bindgen)? Decoding an object costs a property
//! lookup per field across the wasm boundary: a sweep's frontier of ~60 records took the
//! page 7–17 ms to decode before the browser had optimised its code, a batch view 12 ms.
//! The same answers as bytes decode inside wasm in well under a millisecond, and every
//! value survives exactly (`f64` bit for bit, NaN and infinities included; `u64`
//! beyond 2^53), which JSON would not promise.
//!
//! Self-describing (maps with field names) on purpose: the report types carry
//! `skip_serializing_if` for the CLI's JSON, which a schema-less format such as postcard
//! cannot read back.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Bytes that do not hold the value the reader expects.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("could not encode {what}: {source}")]
    Encode {
        what: &'static str,
        #[source]
        source: rmp_serde::encode::Error,
    },
    #[error("could not decode {what}: {source}")]
    Decode {
        what: &'static str,
        #[source]
        source: rmp_serde::decode::Error,
    },
}

/// `value` as bytes; `what` names it in the error.
pub fn encode<T: Serialize + ?Sized>(what: &'static str, value: &T) -> Result<Vec<u8>, WireError> {
    rmp_serde::to_vec_named(value).map_err(|source| WireError::Encode { what, source })
}

/// The value [`encode`] wrote; `what` names it in the error.
pub fn decode<T: DeserializeOwned>(what: &'static str, bytes: &[u8]) -> Result<T, WireError> {
    rmp_serde::from_slice(bytes).map_err(|source| WireError::Decode { what, source })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        name: String,
        big: u64,
        neg: i64,
        values: Vec<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maybe: Option<u32>,
        pair: Option<(String, f64)>,
        #[serde(with = "serde_bytes_like")]
        bytes: Vec<u8>,
    }

    /// Bytes as MessagePack `bin`, as the protocol's packed fields are.
    mod serde_bytes_like {
        use serde::{Deserializer, Serializer};
        pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
            struct V;
            impl serde::de::Visitor<'_> for V {
                type Value = Vec<u8>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                    Ok(v.to_vec())
                }
            }
            d.deserialize_bytes(V)
        }
    }

    #[test]
    fn every_value_survives_exactly() {
        let v = Sample {
            name: "µ-batch ≤ 8".into(),
            big: u64::MAX,
            neg: i64::MIN + 1,
            values: vec![
                0.1 + 0.2,
                f64::MIN_POSITIVE,
                5e-324,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -0.0,
                1.797_693_134_862_315_7e308,
            ],
            maybe: None,
            pair: Some(("TPOT ≤ 6 ms".into(), 1000.0 / 6.0)),
            bytes: vec![0, 255, 7],
        };
        let back: Sample = decode("sample", &encode("sample", &v).unwrap()).unwrap();
        assert_eq!(back.name, v.name);
        assert_eq!(back.big, u64::MAX);
        assert_eq!(back.neg, i64::MIN + 1);
        let bits = |xs: &[f64]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back.values), bits(&v.values));
        assert_eq!(back, v);
        let nan: Vec<f64> = decode("nan", &encode("nan", &vec![f64::NAN]).unwrap()).unwrap();
        assert!(nan[0].is_nan());
    }

    /// The explorer's answers, as the worker sends them, come back equal (NaN-free
    /// reports compare with `==`; every `f64` is compared bit for bit through it).
    #[test]
    fn the_explorers_answers_survive() {
        use crate::explorer::{batch_sweep, evaluate, explore, sensitivity};
        use crate::view::charts::BatchPlane;
        use crate::view::explore::{resolve, ExploreSettings};
        let settings = ExploreSettings {
            sla_tpot_ms: "6".into(),
            ..ExploreSettings::default()
        };
        let req = resolve(&settings).unwrap();
        let (report, sweep) = explore(&req.model, &req.machine, &req.sweep, true).unwrap();
        assert!(report.sla.is_some() && report.all.is_some());
        let back: crate::explorer::ExploreReport =
            decode("report", &encode("report", &report).unwrap()).unwrap();
        assert_eq!(back, report);
        let topo = report.pareto[0].as_topology(req.sweep.s_kv, req.sweep.mode);
        let e = evaluate(&req.model, &req.machine, &topo, req.sweep.options).unwrap();
        let back: crate::explorer::Evaluation = decode("e", &encode("e", &e).unwrap()).unwrap();
        assert_eq!(back, e);
        let s = sensitivity(&req.model, &req.machine, &topo, req.sweep.options).unwrap();
        let back: crate::explorer::SensitivityReport =
            decode("s", &encode("s", &s).unwrap()).unwrap();
        assert_eq!(back, s);
        let plane = BatchPlane::from_report(
            &batch_sweep(&req.model, &req.machine, &req.sweep, &[1, 8]).unwrap(),
        );
        let back: BatchPlane = decode("b", &encode("b", &plane).unwrap()).unwrap();
        assert_eq!(back, plane);
        assert_eq!(sweep.scores.len(), report.total_enumerated);
    }

    #[test]
    fn damaged_bytes_are_an_error_naming_the_value() {
        let bytes = encode("sample", &vec![1u32, 2, 3]).unwrap();
        let err = decode::<Sample>("a sweep's answer", &bytes[..2]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("could not decode a sweep's answer: "),
            "{err}"
        );
        assert!(decode::<Vec<u32>>("x", &[]).is_err());
    }
}
