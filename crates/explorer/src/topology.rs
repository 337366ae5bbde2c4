//! The knobs of one configuration (`TopologyConfig`) and the enums they take.
//!
//! Every enum serializes as its command-line name (`decode`, `split`, `TP+CP`, `pe`, `qoml`, ...)
//! and parses from it with [`std::str::FromStr`]; `as_str` gives the name back.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;

macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every value, in the seed's option order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The command-line / JSON name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = ExplorerError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let t = s.trim();
                $(if t.eq_ignore_ascii_case($text) {
                    return Ok($name::$variant);
                })+
                let known: Vec<&str> = vec![$($text),+];
                Err(ExplorerError::invalid(
                    $what,
                    format!("{} `{}` is not one of {}", $what, s, known.join(", ")),
                ))
            }
        }
    };
}

named_enum!(
    /// Decode (one new token per request) or prefill (the whole prompt).
    Mode, "mode" { Decode => "decode", Prefill => "prefill" }
);
named_enum!(
    /// How the KV cache is laid out across the CP group.
    KvShardMode, "kv_shard_mode" { Split => "split", Replicate => "replicate" }
);
named_enum!(
    /// Which parallel group shards the FFN weights.
    FfnShardScope, "ffn_shard_scope" { Tp => "TP", TpCp => "TP+CP", TpCpDp => "TP+CP+DP" }
);
named_enum!(
    /// Whether a TP or CP group is laid out across PEs of one cube or across cubes.
    PlacementKind, "placement" { Pe => "pe", Cube => "cube" }
);
named_enum!(
    /// What travels around the CP ring: KV shards, or Q + running O + (m, l).
    RingVariant, "cp_ring_variant" { Kv => "kv", Qoml => "qoml" }
);
named_enum!(
    /// Which stages the latency and the efficiency count.
    Scope, "scope" { All => "all", Attention => "attention", Ffn => "ffn" }
);
named_enum!(
    /// How the efficiency score counts layers: the seed's `ceil(L/pp)` or all `L`.
    EfficiencyMode, "efficiency" { Seed => "seed", Corrected => "corrected" }
);

impl Scope {
    /// True when attention stages are counted.
    pub const fn includes_attention(self) -> bool {
        matches!(self, Scope::All | Scope::Attention)
    }
    /// True when FFN / MoE stages are counted.
    pub const fn includes_ffn(self) -> bool {
        matches!(self, Scope::All | Scope::Ffn)
    }
}

/// Largest accepted parallel degree (cp, tp, pp, dp, ep).
pub const MAX_DEGREE: u32 = 1 << 20;
/// Largest accepted batch.
pub const MAX_BATCH: u32 = 1 << 24;
/// Largest accepted sequence length.
pub const MAX_S_KV: u64 = 1 << 40;

/// One configuration: the seed's nine knobs plus `ep`, `batch`, `s_kv` and `mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TopologyConfig {
    /// Context-parallel degree.
    pub cp: u32,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline-parallel degree.
    pub pp: u32,
    /// Data-parallel degree (replicas).
    pub dp: u32,
    /// Expert-parallel degree; adds no PEs (it factors the FFN group).
    pub ep: u32,
    /// Concurrent requests B.
    pub batch: u32,
    /// Sequence length S: KV tokens for decode, prompt tokens for prefill.
    pub s_kv: u64,
    /// Decode or prefill.
    pub mode: Mode,
    /// KV layout across CP.
    pub kv_shard_mode: KvShardMode,
    /// FFN sharding group.
    pub ffn_shard_scope: FfnShardScope,
    /// TP group placement.
    pub tp_placement: PlacementKind,
    /// CP group placement.
    pub cp_placement: PlacementKind,
    /// CP ring payload.
    pub cp_ring_variant: RingVariant,
}

/// The default sensitivity baseline of the command line.
pub const DEFAULT_BASELINE: &str = "cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml";

impl Default for TopologyConfig {
    /// The worked example of the model document (G1) at `s_kv = 32768`, decode, B = 1.
    fn default() -> Self {
        TopologyConfig {
            cp: 2,
            tp: 4,
            pp: 2,
            dp: 1,
            ep: 1,
            batch: 1,
            s_kv: 32768,
            mode: Mode::Decode,
            kv_shard_mode: KvShardMode::Split,
            ffn_shard_scope: FfnShardScope::TpCp,
            tp_placement: PlacementKind::Pe,
            cp_placement: PlacementKind::Pe,
            cp_ring_variant: RingVariant::Qoml,
        }
    }
}

fn check_range(field: &str, value: u64, max: u64) -> Result<(), ExplorerError> {
    if value == 0 || value > max {
        return Err(ExplorerError::invalid(
            field,
            format!("{field} ({value}) must be between 1 and {max}"),
        ));
    }
    Ok(())
}

impl TopologyConfig {
    /// PEs the configuration occupies: `cp·tp·pp·dp` (EP adds none).
    pub fn total_pes(&self) -> u64 {
        u64::from(self.cp)
            .saturating_mul(u64::from(self.tp))
            .saturating_mul(u64::from(self.pp))
            .saturating_mul(u64::from(self.dp))
    }

    /// Check every knob is in its domain (degrees ≥ 1, bounded sizes).
    pub fn validate(&self) -> Result<(), ExplorerError> {
        let max_d = u64::from(MAX_DEGREE);
        check_range("cp", self.cp.into(), max_d)?;
        check_range("tp", self.tp.into(), max_d)?;
        check_range("pp", self.pp.into(), max_d)?;
        check_range("dp", self.dp.into(), max_d)?;
        check_range("ep", self.ep.into(), max_d)?;
        check_range("batch", self.batch.into(), u64::from(MAX_BATCH))?;
        check_range("s_kv", self.s_kv, MAX_S_KV)?;
        Ok(())
    }

    /// Apply a baseline string such as
    /// `cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml` (also `ep=`, `batch=`)
    /// on top of `self`. Keys that are absent keep `self`'s value; unknown keys, repeated keys
    /// and bad values are errors naming `baseline.<key>`.
    pub fn with_baseline(&self, spec: &str) -> Result<TopologyConfig, ExplorerError> {
        let mut out = *self;
        let mut seen: Vec<&str> = Vec::new();
        for item in spec.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((key, value)) = item.split_once('=') else {
                return Err(ExplorerError::invalid(
                    "baseline",
                    format!("baseline item `{item}` is not KEY=VALUE"),
                ));
            };
            let key = key.trim();
            let value = value.trim();
            let field = format!("baseline.{key}");
            if seen.contains(&key) {
                return Err(ExplorerError::invalid(
                    field,
                    format!("baseline key `{key}` is given twice"),
                ));
            }
            let relabel = |e: ExplorerError| match e {
                ExplorerError::Invalid { message, .. } => ExplorerError::invalid(
                    format!("baseline.{key}"),
                    format!("baseline.{key}: {message}"),
                ),
                other => other,
            };
            let int = |max: u64| -> Result<u64, ExplorerError> {
                let v: u64 = value.parse().map_err(|_| {
                    ExplorerError::invalid(
                        format!("baseline.{key}"),
                        format!("baseline.{key} (`{value}`) is not a positive integer"),
                    )
                })?;
                check_range(&format!("baseline.{key}"), v, max)?;
                Ok(v)
            };
            let max_d = u64::from(MAX_DEGREE);
            let to_u32 = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
            match key {
                "cp" => out.cp = to_u32(int(max_d)?),
                "tp" => out.tp = to_u32(int(max_d)?),
                "pp" => out.pp = to_u32(int(max_d)?),
                "dp" => out.dp = to_u32(int(max_d)?),
                "ep" => out.ep = to_u32(int(max_d)?),
                "batch" => out.batch = to_u32(int(u64::from(MAX_BATCH))?),
                "kv" => out.kv_shard_mode = value.parse().map_err(relabel)?,
                "ffn" => out.ffn_shard_scope = value.parse().map_err(relabel)?,
                "tpp" => out.tp_placement = value.parse().map_err(relabel)?,
                "cpp" => out.cp_placement = value.parse().map_err(relabel)?,
                "ring" => out.cp_ring_variant = value.parse().map_err(relabel)?,
                _ => {
                    return Err(ExplorerError::invalid(
                        field,
                        format!(
                            "unknown baseline key `{key}` (known: cp, tp, pp, dp, ep, batch, kv, ffn, tpp, cpp, ring)"
                        ),
                    ))
                }
            }
            seen.push(key);
        }
        Ok(out)
    }

    /// The baseline-string form of the knobs (round-trips through [`Self::with_baseline`]).
    pub fn baseline_string(&self) -> String {
        format!(
            "cp={},tp={},pp={},dp={},ep={},batch={},kv={},ffn={},tpp={},cpp={},ring={}",
            self.cp,
            self.tp,
            self.pp,
            self.dp,
            self.ep,
            self.batch,
            self.kv_shard_mode,
            self.ffn_shard_scope,
            self.tp_placement,
            self.cp_placement,
            self.cp_ring_variant
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_names_round_trip() {
        for m in FfnShardScope::ALL {
            assert_eq!(m.as_str().parse::<FfnShardScope>().unwrap(), *m);
            let j = serde_json::to_string(m).unwrap();
            assert_eq!(j, format!("\"{}\"", m.as_str()));
        }
        assert_eq!(
            "tp+cp".parse::<FfnShardScope>().unwrap(),
            FfnShardScope::TpCp
        );
        assert_eq!(" Decode ".parse::<Mode>().unwrap(), Mode::Decode);
        let e = "bogus".parse::<RingVariant>().unwrap_err();
        assert_eq!(e.field(), Some("cp_ring_variant"));
        assert!(e.to_string().contains("kv, qoml"), "{e}");
    }

    #[test]
    fn default_baseline_is_the_default() {
        let base = TopologyConfig {
            cp: 1,
            tp: 1,
            pp: 1,
            kv_shard_mode: KvShardMode::Replicate,
            ..TopologyConfig::default()
        };
        let t = base.with_baseline(DEFAULT_BASELINE).unwrap();
        assert_eq!(t, TopologyConfig::default());
        let s = t.baseline_string();
        assert_eq!(base.with_baseline(&s).unwrap(), t);
    }

    #[test]
    fn baseline_errors_name_the_key() {
        let b = TopologyConfig::default();
        let e = b.with_baseline("cp=2,zz=3").unwrap_err();
        assert_eq!(e.field(), Some("baseline.zz"));
        let e = b.with_baseline("cp=0").unwrap_err();
        assert_eq!(e.field(), Some("baseline.cp"));
        let e = b.with_baseline("tp=x").unwrap_err();
        assert!(e.to_string().contains("not a positive integer"));
        let e = b.with_baseline("kv=half").unwrap_err();
        assert_eq!(e.field(), Some("baseline.kv"));
        let e = b.with_baseline("cp=2,cp=4").unwrap_err();
        assert!(e.to_string().contains("twice"));
        let e = b.with_baseline("cp").unwrap_err();
        assert!(e.to_string().contains("KEY=VALUE"));
        let t = b.with_baseline("ep=4, batch=64").unwrap();
        assert_eq!((t.ep, t.batch), (4, 64));
    }

    #[test]
    fn validate_rejects_zero_and_huge() {
        let t = TopologyConfig {
            dp: 0,
            ..TopologyConfig::default()
        };
        assert_eq!(t.validate().unwrap_err().field(), Some("dp"));
        let t = TopologyConfig {
            s_kv: u64::MAX,
            ..TopologyConfig::default()
        };
        assert_eq!(t.validate().unwrap_err().field(), Some("s_kv"));
        // Each limit is inclusive.
        let at_limits = TopologyConfig {
            cp: MAX_DEGREE,
            tp: MAX_DEGREE,
            pp: MAX_DEGREE,
            dp: MAX_DEGREE,
            ep: MAX_DEGREE,
            batch: MAX_BATCH,
            s_kv: MAX_S_KV,
            ..TopologyConfig::default()
        };
        assert_eq!(at_limits.validate(), Ok(()));
        let over = TopologyConfig {
            s_kv: MAX_S_KV + 1,
            ..at_limits
        };
        assert_eq!(over.validate().unwrap_err().field(), Some("s_kv"));
        let over = TopologyConfig {
            ep: MAX_DEGREE + 1,
            ..at_limits
        };
        assert_eq!(over.validate().unwrap_err().field(), Some("ep"));
    }
}
