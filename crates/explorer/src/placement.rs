//! Placement of one configuration on the PE → cube → SIP hierarchy (docs/explorer-model.md §3):
//! the intra-cube demand, cubes and SIPs used, the fabric level of every group, the PP hop
//! split, and `placement_valid` with the reasons it fails.

use serde::{Deserialize, Serialize};

use super::machine::{FabricLevel, MachineParams};
use super::model::ModelConfig;
use super::topology::{FfnShardScope, PlacementKind, TopologyConfig};

/// `ceil(a/b)` on integers; 0 when `b` is 0 (never reached with validated inputs).
/// Powers of two (most enumerated degrees) take a shift instead of a division.
#[inline(always)]
pub(crate) fn ceil_div(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else if b.is_power_of_two() {
        (a >> b.trailing_zeros()) + u64::from(a & (b - 1) != 0)
    } else {
        a.div_ceil(b)
    }
}

/// Why a placement is invalid. Every failed check is recorded; `reason()` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementCheck {
    /// `a = tp_in·cp_in`, the PEs one block needs inside a cube.
    pub intra_cube_dims: u64,
    /// P_c.
    pub pes_per_cube: u64,
    /// The requested EP degree.
    pub ep: u64,
    /// E of the model.
    pub n_experts: u64,
    /// g, the FFN group size of the scope.
    pub ffn_group: u64,
    /// SIPs used.
    pub sips_used: u64,
    /// The machine's SIP cap, if any.
    pub max_sips: Option<u64>,
    /// `a ≤ P_c`.
    pub intra_cube_ok: bool,
    /// ep > 1 on a dense model.
    pub ep_needs_moe: bool,
    /// ep > 1 and `E % ep != 0`.
    pub ep_experts_indivisible: bool,
    /// ep > 1 and `g % ep != 0`.
    pub ep_group_indivisible: bool,
    /// `sips_used ≤ max_sips` (true without a cap).
    pub sips_ok: bool,
}

impl PlacementCheck {
    /// True when every placement check holds.
    pub fn valid(&self) -> bool {
        self.intra_cube_ok
            && !self.ep_needs_moe
            && !self.ep_experts_indivisible
            && !self.ep_group_indivisible
            && self.sips_ok
    }

    /// The reasons the placement fails, joined with `; ` (empty when valid). The seed's
    /// intra-cube text comes first; the EP and SIP-cap reasons are appended.
    pub fn reason(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.intra_cube_ok {
            parts.push(format!(
                "intra-cube demand ({}) exceeds PEs/cube ({})",
                self.intra_cube_dims, self.pes_per_cube
            ));
        }
        if self.ep_needs_moe {
            parts.push(format!(
                "ep ({}) > 1 needs an MoE model (n_experts = 0)",
                self.ep
            ));
        }
        if self.ep_experts_indivisible {
            parts.push(format!(
                "n_experts ({}) is not a multiple of ep ({})",
                self.n_experts, self.ep
            ));
        }
        if self.ep_group_indivisible {
            parts.push(format!(
                "FFN group size ({}) is not a multiple of ep ({})",
                self.ffn_group, self.ep
            ));
        }
        if !self.sips_ok {
            if let Some(cap) = self.max_sips {
                parts.push(format!(
                    "sips_used ({}) exceeds max_sips ({})",
                    self.sips_used, cap
                ));
            }
        }
        parts.join("; ")
    }
}

/// The layout of one configuration (§3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// TP ranks inside one cube.
    pub tp_in: u64,
    /// Cubes the TP group spans.
    pub tp_x: u64,
    /// CP ranks inside one cube.
    pub cp_in: u64,
    /// Cubes the CP group spans (per TP block).
    pub cp_x: u64,
    /// a = tp_in·cp_in.
    pub intra_cube_dims: u64,
    /// x = tp_x·cp_x, cubes one block spans.
    pub cubes_per_block: u64,
    /// Blocks packed per cube-set: `max(1, floor(P_c/a))`.
    pub pack: u64,
    /// `x·ceil(pp·dp/pack)`.
    pub cubes_used: u64,
    /// `ceil(cubes_used/C_s)`.
    pub sips_used: u64,
    /// g: FFN group size of the scope (tp, tp·cp or tp·cp·dp).
    pub ffn_group: u64,
    /// Level of the TP group.
    pub level_tp: FabricLevel,
    /// Level of the CP group.
    pub level_cp: FabricLevel,
    /// Level of the DP group.
    pub level_dp: FabricLevel,
    /// Level of the FFN group.
    pub level_ffn: FabricLevel,
    /// PP hops that cross cube-sets.
    pub pp_cross_hops: u64,
    /// PP hops inside a cube (at L0).
    pub pp_intra_hops: u64,
    /// Level of the cross hops, `lvl(2x)`.
    pub pp_cross_level: FabricLevel,
    /// The validity checks.
    pub check: PlacementCheck,
}

/// `lvl(span)`: L0 within one cube, L1 within one SIP, L2 beyond.
pub fn level_for_span(span: u64, cubes_per_sip: u64) -> FabricLevel {
    if span <= 1 {
        FabricLevel::L0
    } else if span <= cubes_per_sip {
        FabricLevel::L1
    } else {
        FabricLevel::L2
    }
}

impl Placement {
    /// Lay out `topo` on `machine` for `model` (the model decides the EP checks).
    pub fn new(topo: &TopologyConfig, machine: &MachineParams, model: &ModelConfig) -> Placement {
        let tp = u64::from(topo.tp);
        let cp = u64::from(topo.cp);
        let pp = u64::from(topo.pp);
        let dp = u64::from(topo.dp);
        let ep = u64::from(topo.ep);
        let p_c = machine.pes_per_cube;
        let c_s = machine.cubes_per_sip;

        // tp_in = tp (pe) or 1 (cube), and tp_x = tp/tp_in; the same for CP.
        let (tp_in, tp_x) = match topo.tp_placement {
            PlacementKind::Pe => (tp, 1),
            PlacementKind::Cube => (1, tp),
        };
        let (cp_in, cp_x) = match topo.cp_placement {
            PlacementKind::Pe => (cp, 1),
            PlacementKind::Cube => (1, cp),
        };
        let a = tp_in.saturating_mul(cp_in);
        let x = tp_x.saturating_mul(cp_x);
        let pack = if a == 0 || a > p_c {
            1
        } else {
            (p_c / a).max(1)
        };
        let blocks = pp.saturating_mul(dp);
        let cubes_used = x.saturating_mul(ceil_div(blocks, pack));
        let sips_used = ceil_div(cubes_used, c_s);

        let lvl = |span: u64| level_for_span(span, c_s);
        let level_tp = lvl(tp_x);
        let level_cp = lvl(if cp_x > 1 {
            tp_x.saturating_mul(cp_x)
        } else {
            1
        });
        let level_dp = lvl(if blocks <= pack { x } else { cubes_used });
        let (ffn_group, level_ffn) = match topo.ffn_shard_scope {
            FfnShardScope::Tp => (tp, level_tp),
            FfnShardScope::TpCp => (tp.saturating_mul(cp), level_tp.max(level_cp)),
            FfnShardScope::TpCpDp => (
                tp.saturating_mul(cp).saturating_mul(dp),
                level_tp.max(level_cp).max(level_dp),
            ),
        };
        let pp_cross_hops = if pack < pp {
            ceil_div(pp, pack).saturating_sub(1)
        } else {
            0
        };
        let pp_intra_hops = pp.saturating_sub(1).saturating_sub(pp_cross_hops);
        let pp_cross_level = lvl(x.saturating_mul(2));

        let moe = model.is_moe();
        let e = model.n_experts;
        let check = PlacementCheck {
            intra_cube_dims: a,
            pes_per_cube: p_c,
            ep,
            n_experts: e,
            ffn_group,
            sips_used,
            max_sips: machine.max_sips,
            intra_cube_ok: a <= p_c,
            ep_needs_moe: ep > 1 && !moe,
            ep_experts_indivisible: ep > 1 && moe && !e.is_multiple_of(ep),
            ep_group_indivisible: ep > 1 && moe && !ffn_group.is_multiple_of(ep),
            sips_ok: machine.max_sips.is_none_or(|cap| sips_used <= cap),
        };
        Placement {
            tp_in,
            tp_x,
            cp_in,
            cp_x,
            intra_cube_dims: a,
            cubes_per_block: x,
            pack,
            cubes_used,
            sips_used,
            ffn_group,
            level_tp,
            level_cp,
            level_dp,
            level_ffn,
            pp_cross_hops,
            pp_intra_hops,
            pp_cross_level,
            check,
        }
    }

    /// `placement_valid` of the seed, extended with the EP and SIP-cap checks.
    pub fn valid(&self) -> bool {
        self.check.valid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::KvShardMode;

    #[test]
    fn worked_example_placement() {
        let m = ModelConfig::preset("llama3.1-70b").unwrap();
        let h = MachineParams::preset("h200-hgx").unwrap();
        let p = Placement::new(&TopologyConfig::default(), &h, &m);
        assert_eq!((p.intra_cube_dims, p.cubes_per_block, p.pack), (8, 1, 1));
        assert_eq!((p.cubes_used, p.sips_used, p.ffn_group), (2, 2, 8));
        assert_eq!(
            (p.level_tp, p.level_cp, p.level_ffn),
            (FabricLevel::L0, FabricLevel::L0, FabricLevel::L0)
        );
        assert_eq!((p.pp_cross_hops, p.pp_intra_hops), (1, 0));
        assert_eq!(p.pp_cross_level, FabricLevel::L2);
        assert!(p.valid());
        assert_eq!(p.check.reason(), "");
    }

    #[test]
    fn invalid_reasons() {
        let m = ModelConfig::preset("llama3.1-70b").unwrap();
        let mut h = MachineParams::preset("tile-wafer").unwrap();
        h.max_sips = Some(1);
        let t = TopologyConfig {
            cp: 4,
            tp: 8,
            ep: 2,
            kv_shard_mode: KvShardMode::Split,
            cp_placement: PlacementKind::Pe,
            ..TopologyConfig::default()
        };
        let p = Placement::new(&t, &h, &m);
        assert!(!p.valid());
        assert_eq!(
            p.check.reason(),
            "intra-cube demand (32) exceeds PEs/cube (8); ep (2) > 1 needs an MoE model (n_experts = 0)"
        );
        let mix = ModelConfig::preset("mixtral-8x7b").unwrap();
        let t = TopologyConfig {
            cp: 1,
            tp: 2,
            pp: 16,
            dp: 4,
            ep: 4,
            ffn_shard_scope: FfnShardScope::Tp,
            ..TopologyConfig::default()
        };
        let p = Placement::new(&t, &h, &mix);
        assert_eq!(
            p.check.reason(),
            "FFN group size (2) is not a multiple of ep (4); sips_used (4) exceeds max_sips (1)"
        );
        // tile-wafer: 4 cubes per SIP, so spans of 2..4 cubes are L1 and beyond are L2.
        assert_eq!(level_for_span(1, 4), FabricLevel::L0);
        assert_eq!(level_for_span(4, 4), FabricLevel::L1);
        assert_eq!(level_for_span(5, 4), FabricLevel::L2);
    }
}
