//! Every configuration of a sweep as compact columns for the scatter (packed to bytes for
//! the worker's answer): flags, knobs, colour keys.

use super::*;

/// Every configuration of a sweep, in enumeration order, as columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Points {
    pub latency_ns: Vec<f64>,
    pub pes: Vec<u32>,
    pub efficiency: Vec<f32>,
    /// Bit 0: feasible; bit 1: on the frontier; bit 2: meets the SLA (or no SLA).
    pub flags: Vec<u8>,
    /// Per configuration: indices into the sweep's options of cp, tp, pp, dp, kv, ffn,
    /// tpp, cpp, ring.
    pub knobs: Vec<[u8; 9]>,
    /// `log2(pes)` and `log10(latency_ns)`, the scatter's axes: computed once where the
    /// sweep runs (the worker), so the page's every paint and hover is arithmetic only
    /// (two logarithms per config were 17 ms of a paint before the browser optimised).
    pub lg_pes: Vec<f32>,
    pub lg_latency: Vec<f32>,
    /// Every index, fastest first ([`Sweep::latency_order`], `shardscope explore --all`).
    pub order: Vec<u32>,
}

/// The size of one configuration in [`Points::to_bytes`].
pub(super) const BYTES_PER_POINT: usize = 8 + 4 + 4 + 1 + 9 + 4 + 4 + 4;

pub const FEASIBLE: u8 = 1;
pub const FRONTIER: u8 = 2;
pub const WITHIN_SLA: u8 = 4;
/// Fits in the memory budget (an infeasible config without it is over budget).
pub const FITS_MEMORY: u8 = 8;
/// Its placement is valid.
pub const PLACES: u8 = 16;

/// Why a point is not feasible, in a few words (the full reason is the config's).
pub fn why_not(flags: u8) -> Option<&'static str> {
    match (flags & FITS_MEMORY != 0, flags & PLACES != 0) {
        (true, true) => None,
        (false, true) => Some("over the memory budget"),
        (true, false) => Some("does not place on the machine"),
        (false, false) => Some("over the memory budget and does not place"),
    }
}

/// A categorical colour for value `i` of a knob (Okabe–Ito, then repeated darker).
pub fn category_color(i: usize) -> Rgba {
    const COLORS: [u32; 8] = [
        0x0072B2, 0xE69F00, 0x009E73, 0xCC79A7, 0x56B4E9, 0xD55E00, 0xF0E442, 0x000000,
    ];
    Rgba::hex(COLORS[i % COLORS.len()])
}

pub(super) fn index_of<T: PartialEq>(all: &[T], v: &T) -> u8 {
    all.iter().position(|x| x == v).unwrap_or(0) as u8
}

impl Points {
    pub fn from_sweep(sw: &Sweep) -> Points {
        let n = sw.scores.len();
        let mut p = Points {
            latency_ns: Vec::with_capacity(n),
            pes: Vec::with_capacity(n),
            efficiency: Vec::with_capacity(n),
            flags: Vec::with_capacity(n),
            knobs: Vec::with_capacity(n),
            lg_pes: Vec::with_capacity(n),
            lg_latency: Vec::with_capacity(n),
            order: sw.latency_order(),
        };
        for (i, s) in sw.scores.iter().enumerate() {
            p.latency_ns.push(s.total_latency_ns);
            p.pes.push(u32::try_from(s.pes_used).unwrap_or(u32::MAX));
            p.lg_pes.push((s.pes_used.max(1) as f64).log2() as f32);
            p.lg_latency
                .push(s.total_latency_ns.max(1e-9).log10() as f32);
            p.efficiency.push(s.efficiency_score as f32);
            let sla_ok = sw.sla.get(i).is_none_or(|o| o.ok);
            p.flags.push(
                (u8::from(s.feasible()) * FEASIBLE)
                    | (u8::from(sla_ok) * WITHIN_SLA)
                    | (u8::from(s.fits_memory) * FITS_MEMORY)
                    | (u8::from(s.placement_valid) * PLACES),
            );
            let t = &s.topo;
            p.knobs.push([
                index_of(&CP_OPTIONS, &t.cp),
                index_of(&TP_OPTIONS, &t.tp),
                index_of(&PP_OPTIONS, &t.pp),
                index_of(&DP_OPTIONS, &t.dp),
                index_of(KvShardMode::ALL, &t.kv_shard_mode),
                index_of(FfnShardScope::ALL, &t.ffn_shard_scope),
                index_of(PlacementKind::ALL, &t.tp_placement),
                index_of(PlacementKind::ALL, &t.cp_placement),
                index_of(RingVariant::ALL, &t.cp_ring_variant),
            ]);
        }
        for &i in &sw.frontier {
            if let Some(f) = p.flags.get_mut(i as usize) {
                *f |= FRONTIER;
            }
        }
        p
    }

    pub fn len(&self) -> usize {
        self.latency_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.latency_ns.is_empty()
    }

    /// The knobs of point `i` as a topology (with the request's shared values).
    pub fn topology(&self, i: usize, req: &SweepRequest) -> Option<TopologyConfig> {
        let k = self.knobs.get(i)?;
        let pick = |all_len: usize, idx: u8| (idx as usize).min(all_len.saturating_sub(1));
        Some(TopologyConfig {
            cp: CP_OPTIONS[pick(CP_OPTIONS.len(), k[0])],
            tp: TP_OPTIONS[pick(TP_OPTIONS.len(), k[1])],
            pp: PP_OPTIONS[pick(PP_OPTIONS.len(), k[2])],
            dp: DP_OPTIONS[pick(DP_OPTIONS.len(), k[3])],
            ep: req.ep,
            batch: req.batch,
            s_kv: req.s_kv,
            mode: req.mode,
            kv_shard_mode: KvShardMode::ALL[pick(KvShardMode::ALL.len(), k[4])],
            ffn_shard_scope: FfnShardScope::ALL[pick(FfnShardScope::ALL.len(), k[5])],
            tp_placement: PlacementKind::ALL[pick(PlacementKind::ALL.len(), k[6])],
            cp_placement: PlacementKind::ALL[pick(PlacementKind::ALL.len(), k[7])],
            cp_ring_variant: RingVariant::ALL[pick(RingVariant::ALL.len(), k[8])],
        })
    }

    /// 38 bytes per configuration, little-endian ([`crate::pack`]), column after column.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(4 + self.len() * BYTES_PER_POINT);
        w.u32(self.len() as u32);
        w.f64s(&self.latency_ns);
        w.u32s(&self.pes);
        w.f32s(&self.efficiency);
        w.bytes(&self.flags);
        self.knobs.iter().for_each(|k| w.bytes(k));
        w.f32s(&self.lg_pes);
        w.f32s(&self.lg_latency);
        w.u32s(&self.order);
        w.into_bytes()
    }

    /// Back from [`Points::to_bytes`]; `None` for a buffer of the wrong size or an
    /// order that names a configuration it does not hold.
    pub fn from_bytes(bytes: &[u8]) -> Option<Points> {
        let mut r = Reader::new(bytes);
        let read = |r: &mut Reader<'_>| -> Result<Points, Malformed> {
            let n = r.count(BYTES_PER_POINT)?;
            Ok(Points {
                latency_ns: r.f64s(n)?,
                pes: r.u32s(n)?,
                efficiency: r.f32s(n)?,
                flags: r.take(n)?.to_vec(),
                knobs: r.arrays(n)?,
                lg_pes: r.f32s(n)?,
                lg_latency: r.f32s(n)?,
                order: r.u32s(n)?,
            })
        };
        let points = read(&mut r).ok()?;
        let n = points.len();
        (r.is_empty() && points.order.iter().all(|&i| (i as usize) < n)).then_some(points)
    }
}
