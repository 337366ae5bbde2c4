//! `MachineParams`: a hierarchical scale-out accelerator (PE → cube → SIP), the presets of
//! docs/explorer-model.md §2, and validation of custom machines read from JSON.

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;

/// One fabric level: per-PE bandwidth per direction and per-message / per-ring-step latency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// β, bytes per second per PE per direction.
    #[serde(alias = "bw")]
    pub bw_bytes_per_s: f64,
    /// α, seconds per message or ring step.
    #[serde(alias = "alpha")]
    pub alpha_s: f64,
}

/// The three fabric levels, as a value (serializes as `L0`/`L1`/`L2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FabricLevel {
    /// Intra-cube.
    L0,
    /// Inter-cube, same SIP.
    L1,
    /// Inter-SIP.
    L2,
}

impl FabricLevel {
    /// `0`, `1` or `2`.
    pub const fn index(self) -> usize {
        match self {
            FabricLevel::L0 => 0,
            FabricLevel::L1 => 1,
            FabricLevel::L2 => 2,
        }
    }
}

/// A machine. JSON field names are these (the model document's short names `peak_flops`,
/// `bw_hbm`, `bw`, `alpha` are accepted as aliases). `eta_flops`, `eta_bw` default to 1,
/// `stage_overhead_s` to 0, `max_sips` to none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineParams {
    /// Display name.
    #[serde(default = "default_name")]
    pub name: String,
    /// F: dense FLOP/s per PE.
    #[serde(alias = "peak_flops")]
    pub peak_flops_per_s: f64,
    /// BW: local HBM bandwidth per PE, bytes/s.
    #[serde(alias = "bw_hbm")]
    pub bw_hbm_bytes_per_s: f64,
    /// Local HBM capacity per PE, bytes.
    pub hbm_bytes: f64,
    /// Fraction of HBM the runtime can use, in (0, 1].
    pub hbm_usable_frac: f64,
    /// PEs on one intra-cube fabric, P_c.
    pub pes_per_cube: u64,
    /// Cubes per SIP, C_s.
    pub cubes_per_sip: u64,
    /// Intra-cube fabric.
    pub l0: Level,
    /// Inter-cube fabric within a SIP.
    pub l1: Level,
    /// Inter-SIP fabric.
    pub l2: Level,
    /// Achievable fraction of peak FLOP/s.
    #[serde(default = "one")]
    pub eta_flops: f64,
    /// Achievable fraction of HBM bandwidth.
    #[serde(default = "one")]
    pub eta_bw: f64,
    /// Fixed cost per compute stage (kernel launch), seconds.
    #[serde(default)]
    pub stage_overhead_s: f64,
    /// Optional cap on SIPs a configuration may use.
    #[serde(default)]
    pub max_sips: Option<u64>,
}

fn default_name() -> String {
    "custom".to_string()
}
fn one() -> f64 {
    1.0
}

/// Names of the machine presets, in display order.
pub const MACHINE_PRESETS: &[&str] = &["h200-hgx", "h100-hgx", "tile-wafer"];

fn hgx(name: &str, bw_hbm: f64, hbm: f64) -> MachineParams {
    MachineParams {
        name: name.to_string(),
        peak_flops_per_s: 989e12,
        bw_hbm_bytes_per_s: bw_hbm,
        hbm_bytes: hbm,
        hbm_usable_frac: 0.90,
        pes_per_cube: 8,
        cubes_per_sip: 1,
        l0: Level {
            bw_bytes_per_s: 450e9,
            alpha_s: 0.7e-6,
        },
        l1: Level {
            bw_bytes_per_s: 50e9,
            alpha_s: 3e-6,
        },
        l2: Level {
            bw_bytes_per_s: 50e9,
            alpha_s: 3e-6,
        },
        eta_flops: 1.0,
        eta_bw: 1.0,
        stage_overhead_s: 0.0,
        max_sips: None,
    }
}

impl MachineParams {
    /// A preset by name (trimmed, case-insensitive).
    pub fn preset(name: &str) -> Result<MachineParams, ExplorerError> {
        let n = name.trim().to_ascii_lowercase();
        Ok(match n.as_str() {
            "h200-hgx" => hgx("h200-hgx", 4.8e12, 141e9),
            "h100-hgx" => hgx("h100-hgx", 3.35e12, 80e9),
            "tile-wafer" => MachineParams {
                name: "tile-wafer".to_string(),
                peak_flops_per_s: 250e12,
                bw_hbm_bytes_per_s: 1.6e12,
                hbm_bytes: 32e9,
                hbm_usable_frac: 0.92,
                pes_per_cube: 8,
                cubes_per_sip: 4,
                l0: Level {
                    bw_bytes_per_s: 1.0e12,
                    alpha_s: 0.25e-6,
                },
                l1: Level {
                    bw_bytes_per_s: 300e9,
                    alpha_s: 0.8e-6,
                },
                l2: Level {
                    bw_bytes_per_s: 100e9,
                    alpha_s: 2.5e-6,
                },
                eta_flops: 1.0,
                eta_bw: 1.0,
                stage_overhead_s: 0.0,
                max_sips: None,
            },
            _ => {
                return Err(ExplorerError::UnknownPreset {
                    what: "machine",
                    name: name.to_string(),
                    known: MACHINE_PRESETS.join(", "),
                })
            }
        })
    }

    /// Parse a custom machine from JSON and validate it.
    pub fn from_json(text: &str) -> Result<MachineParams, ExplorerError> {
        let m: MachineParams = serde_json::from_str(text).map_err(|e| ExplorerError::Json {
            what: "machine",
            message: e.to_string(),
            line: (e.line() > 0).then_some(e.line()),
        })?;
        m.validate()?;
        Ok(m)
    }

    /// The parameters of a fabric level.
    pub fn level(&self, l: FabricLevel) -> Level {
        match l {
            FabricLevel::L0 => self.l0,
            FabricLevel::L1 => self.l1,
            FabricLevel::L2 => self.l2,
        }
    }

    /// Usable HBM per PE: `hbm_bytes·hbm_usable_frac`.
    pub fn budget_bytes(&self) -> f64 {
        self.hbm_bytes * self.hbm_usable_frac
    }

    /// Check every field; the error names the field and why.
    pub fn validate(&self) -> Result<(), ExplorerError> {
        let positive = |field: &str, v: f64| -> Result<(), ExplorerError> {
            if !(v.is_finite() && v > 0.0) {
                return Err(ExplorerError::invalid(
                    format!("machine.{field}"),
                    format!("machine.{field} ({v}) must be a positive finite number"),
                ));
            }
            Ok(())
        };
        let fraction = |field: &str, v: f64| -> Result<(), ExplorerError> {
            if !(v.is_finite() && v > 0.0 && v <= 1.0) {
                return Err(ExplorerError::invalid(
                    format!("machine.{field}"),
                    format!("machine.{field} ({v}) must be in (0, 1]"),
                ));
            }
            Ok(())
        };
        let count = |field: &str, v: u64| -> Result<(), ExplorerError> {
            if v == 0 || v > (1 << 32) {
                return Err(ExplorerError::invalid(
                    format!("machine.{field}"),
                    format!("machine.{field} ({v}) must be between 1 and {}", 1u64 << 32),
                ));
            }
            Ok(())
        };
        if self.name.trim().is_empty() {
            return Err(ExplorerError::invalid(
                "machine.name",
                "machine.name must not be empty",
            ));
        }
        positive("peak_flops_per_s", self.peak_flops_per_s)?;
        positive("bw_hbm_bytes_per_s", self.bw_hbm_bytes_per_s)?;
        positive("hbm_bytes", self.hbm_bytes)?;
        fraction("hbm_usable_frac", self.hbm_usable_frac)?;
        count("pes_per_cube", self.pes_per_cube)?;
        count("cubes_per_sip", self.cubes_per_sip)?;
        for (name, lvl) in [("l0", self.l0), ("l1", self.l1), ("l2", self.l2)] {
            positive(&format!("{name}.bw_bytes_per_s"), lvl.bw_bytes_per_s)?;
            if !(lvl.alpha_s.is_finite() && lvl.alpha_s >= 0.0) {
                return Err(ExplorerError::invalid(
                    format!("machine.{name}.alpha_s"),
                    format!(
                        "machine.{name}.alpha_s ({}) must be a finite number of seconds >= 0",
                        lvl.alpha_s
                    ),
                ));
            }
        }
        fraction("eta_flops", self.eta_flops)?;
        fraction("eta_bw", self.eta_bw)?;
        if !(self.stage_overhead_s.is_finite() && self.stage_overhead_s >= 0.0) {
            return Err(ExplorerError::invalid(
                "machine.stage_overhead_s",
                format!(
                    "machine.stage_overhead_s ({}) must be a finite number of seconds >= 0",
                    self.stage_overhead_s
                ),
            ));
        }
        if let Some(cap) = self.max_sips {
            count("max_sips", cap)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_number_for_number() {
        let h200 = MachineParams::preset("h200-hgx").unwrap();
        assert_eq!(h200.peak_flops_per_s, 989e12);
        assert_eq!(h200.bw_hbm_bytes_per_s, 4.8e12);
        assert_eq!(h200.hbm_bytes, 141e9);
        assert_eq!((h200.pes_per_cube, h200.cubes_per_sip), (8, 1));
        assert_eq!(h200.l0.alpha_s, 0.7e-6);
        let h100 = MachineParams::preset("H100-HGX").unwrap();
        assert_eq!((h100.bw_hbm_bytes_per_s, h100.hbm_bytes), (3.35e12, 80e9));
        let t = MachineParams::preset("tile-wafer").unwrap();
        assert_eq!((t.cubes_per_sip, t.hbm_usable_frac), (4, 0.92));
        assert_eq!(t.l1.bw_bytes_per_s, 300e9);
        assert_eq!(t.l2.alpha_s, 2.5e-6);
        for n in MACHINE_PRESETS {
            MachineParams::preset(n).unwrap().validate().unwrap();
        }
        assert!(MachineParams::preset("tpu").is_err());
    }

    #[test]
    fn custom_json_validates() {
        let m = MachineParams::preset("tile-wafer").unwrap();
        let j = serde_json::to_string(&m).unwrap();
        assert_eq!(MachineParams::from_json(&j).unwrap(), m);
        let short = r#"{"peak_flops": 1e15, "bw_hbm": 2e12, "hbm_bytes": 1e11, "hbm_usable_frac": 1.0,
            "pes_per_cube": 4, "cubes_per_sip": 2,
            "l0": {"bw": 1e11, "alpha": 1e-6}, "l1": {"bw": 1e10, "alpha": 2e-6},
            "l2": {"bw_bytes_per_s": 1e9, "alpha_s": 3e-6}}"#;
        let s = MachineParams::from_json(short).unwrap();
        assert_eq!((s.eta_flops, s.max_sips), (1.0, None));
        assert_eq!(s.name, "custom");
        let bad = |text: String, field: &str| {
            let e = MachineParams::from_json(&text).unwrap_err();
            assert_eq!(e.field(), Some(field), "{e}");
        };
        bad(
            short.replace("\"hbm_usable_frac\": 1.0", "\"hbm_usable_frac\": 1.5"),
            "machine.hbm_usable_frac",
        );
        bad(
            short.replace("\"hbm_usable_frac\": 1.0", "\"hbm_usable_frac\": 0"),
            "machine.hbm_usable_frac",
        );
        bad(
            short.replace("\"pes_per_cube\": 4", "\"pes_per_cube\": 0"),
            "machine.pes_per_cube",
        );
        bad(
            short.replace("\"bw_hbm\": 2e12", "\"bw_hbm\": -2e12"),
            "machine.bw_hbm_bytes_per_s",
        );
        bad(
            short.replace("\"bw\": 1e11", "\"bw\": 0"),
            "machine.l0.bw_bytes_per_s",
        );
        let e = MachineParams::from_json("{\n\n  \"pes_per_cube\": -4}").unwrap_err();
        assert!(
            matches!(e, ExplorerError::Json { line: Some(3), .. }),
            "{e:?}"
        );
        let e =
            MachineParams::from_json(&short.replace("1e11, \"hbm_usable", "1e999, \"hbm_usable"))
                .unwrap_err();
        assert!(
            matches!(
                e,
                ExplorerError::Json {
                    what: "machine",
                    ..
                }
            ),
            "{e}"
        );
    }

    /// Every limit of `validate` at its edge: the extreme allowed value passes, the next
    /// fails and names its field.
    #[test]
    fn every_limit_holds_at_its_edge() {
        let base = MachineParams::preset("tile-wafer").unwrap();
        let field_of = |m: &MachineParams| {
            m.validate()
                .err()
                .and_then(|e| e.field().map(str::to_owned))
        };
        let check = |what: &str, set: &dyn Fn(&mut MachineParams), ok: bool| {
            let mut m = base.clone();
            set(&mut m);
            assert_eq!(field_of(&m).as_deref(), (!ok).then_some(what), "{what}");
        };
        const MAX: u64 = 1 << 32;
        check("machine.pes_per_cube", &|m| m.pes_per_cube = MAX, true);
        check("machine.pes_per_cube", &|m| m.pes_per_cube = MAX + 1, false);
        check("machine.cubes_per_sip", &|m| m.cubes_per_sip = MAX, true);
        check(
            "machine.cubes_per_sip",
            &|m| m.cubes_per_sip = MAX + 1,
            false,
        );
        check("machine.cubes_per_sip", &|m| m.cubes_per_sip = 0, false);
        check("machine.max_sips", &|m| m.max_sips = Some(MAX), true);
        check("machine.max_sips", &|m| m.max_sips = Some(1), true);
        check("machine.max_sips", &|m| m.max_sips = Some(MAX + 1), false);
        check("machine.max_sips", &|m| m.max_sips = Some(0), false);
        check(
            "machine.hbm_usable_frac",
            &|m| m.hbm_usable_frac = 1.0,
            true,
        );
        check(
            "machine.hbm_usable_frac",
            &|m| m.hbm_usable_frac = 1e-12,
            true,
        );
        check("machine.eta_flops", &|m| m.eta_flops = 1.0, true);
        check("machine.eta_flops", &|m| m.eta_flops = 1.000001, false);
        check("machine.eta_bw", &|m| m.eta_bw = 0.0, false);
        check("machine.eta_bw", &|m| m.eta_bw = f64::NAN, false);
        check(
            "machine.peak_flops_per_s",
            &|m| m.peak_flops_per_s = 0.0,
            false,
        );
        check(
            "machine.peak_flops_per_s",
            &|m| m.peak_flops_per_s = f64::INFINITY,
            false,
        );
        check("machine.hbm_bytes", &|m| m.hbm_bytes = 0.0, false);
        check(
            "machine.l1.bw_bytes_per_s",
            &|m| m.l1.bw_bytes_per_s = 0.0,
            false,
        );
        check(
            "machine.l2.bw_bytes_per_s",
            &|m| m.l2.bw_bytes_per_s = f64::NAN,
            false,
        );
        check("machine.l0.alpha_s", &|m| m.l0.alpha_s = 0.0, true);
        check("machine.l1.alpha_s", &|m| m.l1.alpha_s = -1e-9, false);
        check(
            "machine.l2.alpha_s",
            &|m| m.l2.alpha_s = f64::INFINITY,
            false,
        );
        check(
            "machine.stage_overhead_s",
            &|m| m.stage_overhead_s = 0.0,
            true,
        );
        check(
            "machine.stage_overhead_s",
            &|m| m.stage_overhead_s = -1e-9,
            false,
        );
        check(
            "machine.stage_overhead_s",
            &|m| m.stage_overhead_s = f64::NAN,
            false,
        );
        check("machine.name", &|m| m.name = "  ".into(), false);
    }
}
