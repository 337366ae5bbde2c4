//! The 3-D Pareto frontier on (latency ↓, PEs ↓, efficiency ↑) (§11).
//!
//! [`pareto_front`] runs in O(N log N): collapse to unique keys, sort by
//! (latency asc, PEs asc, efficiency desc) so every weak dominator of a key precedes it, and
//! keep a key when the best efficiency seen so far among keys with no more PEs (a Fenwick
//! tree of prefix maxima over the PE ranks) is strictly below its own.
//! [`pareto_front_naive`] is the seed's O(N²) `_dominates` loop, kept as the reference the
//! tests compare against.

use serde::{Deserialize, Serialize};

/// One candidate point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ParetoPoint {
    /// Minimised.
    pub latency: f64,
    /// Minimised.
    pub pes: u64,
    /// Maximised.
    pub efficiency: f64,
}

/// The seed's `_dominates`: no worse on all three axes and strictly better on one.
pub fn dominates(a: &ParetoPoint, b: &ParetoPoint) -> bool {
    let no_worse = a.latency <= b.latency && a.pes <= b.pes && a.efficiency >= b.efficiency;
    if !no_worse {
        return false;
    }
    a.latency < b.latency || a.pes < b.pes || a.efficiency > b.efficiency
}

fn finite(p: &ParetoPoint) -> bool {
    p.latency.is_finite() && p.efficiency.is_finite()
}

/// The seed's O(N²) frontier over the finite points: indices, ascending.
pub fn pareto_front_naive(points: &[ParetoPoint]) -> Vec<usize> {
    let live: Vec<usize> = (0..points.len()).filter(|&i| finite(&points[i])).collect();
    live.iter()
        .copied()
        .filter(|&i| {
            !live
                .iter()
                .any(|&j| j != i && dominates(&points[j], &points[i]))
        })
        .collect()
}

/// Fenwick tree of prefix maxima.
struct MaxFenwick {
    tree: Vec<f64>,
}

impl MaxFenwick {
    fn new(n: usize) -> Self {
        MaxFenwick {
            tree: vec![f64::NEG_INFINITY; n + 1],
        }
    }
    /// Max over ranks 1..=r.
    fn prefix_max(&self, mut r: usize) -> f64 {
        let mut best = f64::NEG_INFINITY;
        while r > 0 {
            if let Some(&v) = self.tree.get(r) {
                best = best.max(v);
            }
            r &= r - 1;
        }
        best
    }
    fn insert(&mut self, mut r: usize, v: f64) {
        while r < self.tree.len() {
            if let Some(slot) = self.tree.get_mut(r) {
                if v > *slot {
                    *slot = v;
                }
            }
            r += r & r.wrapping_neg();
        }
    }
}

/// Indices (ascending) of the points no other point dominates, in O(N log N).
/// Points with a non-finite latency or efficiency are excluded (and dominate nothing).
/// Identical points do not dominate each other, so duplicates stay together.
///
/// The points are ordered by (latency asc, PEs asc, index asc) on compact integer keys. Within one (latency, PEs) group every point below the group's best
/// efficiency is dominated by the best one, and the best ones (bitwise-equal triples) stay
/// exactly when no earlier group with no more PEs reached that efficiency: the Fenwick
/// prefix maximum over the PE ranks. This equals processing the unique keys in
/// (latency asc, PEs asc, efficiency desc) order.
pub fn pareto_front(points: &[ParetoPoint]) -> Vec<usize> {
    // +0.0 turns -0.0 into +0.0, so bitwise equality agrees with the seed's `<=`/`>=`.
    let mut live: Vec<(u64, u32, u32)> = points
        .iter()
        .enumerate()
        .filter(|(_, p)| finite(p))
        .map(|(i, p)| {
            (
                total_order_key(p.latency + 0.0),
                0,
                u32::try_from(i).unwrap_or(u32::MAX),
            )
        })
        .collect();
    if live.is_empty() {
        return Vec::new();
    }
    let pes_of = |i: u32| points.get(i as usize).map_or(0, |p| p.pes);
    let mut pes_values: Vec<u64> = live.iter().map(|k| pes_of(k.2)).collect();
    pes_values.sort_unstable();
    pes_values.dedup();
    // Each PE count's rank (1-based, for the Fenwick tree).
    for k in &mut live {
        let pes = pes_of(k.2);
        let rank = pes_values.partition_point(|&p| p < pes) + 1;
        k.1 = u32::try_from(rank).unwrap_or(u32::MAX);
    }
    // Indices are unique, so the unstable sort is the stable sort by (latency, PEs).
    live.sort_unstable();

    let eff_of = |i: u32| {
        points
            .get(i as usize)
            .map_or(f64::NAN, |p| p.efficiency + 0.0)
    };
    let mut tree = MaxFenwick::new(pes_values.len());
    let mut keep = vec![false; points.len()];
    let mut i = 0;
    while i < live.len() {
        let (lat, rank, _) = live[i];
        let mut j = i + 1;
        let mut best = eff_of(live[i].2);
        while j < live.len() && live[j].0 == lat && live[j].1 == rank {
            best = best.max(eff_of(live[j].2));
            j += 1;
        }
        let r = rank as usize;
        if tree.prefix_max(r) < best {
            for k in &live[i..j] {
                if eff_of(k.2).to_bits() == best.to_bits() {
                    if let Some(slot) = keep.get_mut(k.2 as usize) {
                        *slot = true;
                    }
                }
            }
        }
        tree.insert(r, best);
        i = j;
    }
    keep.iter()
        .enumerate()
        .filter_map(|(i, &k)| k.then_some(i))
        .collect()
}

/// A u64 whose unsigned order is `f64::total_cmp`'s order.
pub(crate) fn total_order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(latency: f64, pes: u64, efficiency: f64) -> ParetoPoint {
        ParetoPoint {
            latency,
            pes,
            efficiency,
        }
    }

    #[test]
    fn small_cases() {
        let pts = [
            p(1.0, 8, 0.5),
            p(1.0, 8, 0.5), // duplicate: both stay
            p(2.0, 4, 0.5),
            p(2.0, 8, 0.5), // dominated by the first
            p(3.0, 4, 0.4), // dominated by (2, 4, 0.5)
            p(0.5, 16, 0.1),
            p(f64::NAN, 1, 1.0),
            p(1.0, 1, f64::INFINITY),
            p(-0.0, 2, 0.0),
            p(0.0, 2, -0.0), // identical to the previous under <=
        ];
        let want = vec![0, 1, 2, 5, 8, 9];
        assert_eq!(pareto_front_naive(&pts), want);
        assert_eq!(pareto_front(&pts), want);
        assert!(pareto_front(&[]).is_empty());
    }
}
