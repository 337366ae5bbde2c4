//! The nine parallelism knobs by name, and what the scatter's colours mean.

use serde::{Deserialize, Serialize};

use crate::explorer::{
    FfnShardScope, KvShardMode, PlacementKind, RingVariant, CP_OPTIONS, DP_OPTIONS, PP_OPTIONS,
    TP_OPTIONS,
};

/// One of the nine parallelism knobs, in [`Points::knobs`]' column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Knob {
    Cp,
    Tp,
    Pp,
    Dp,
    Kv,
    Ffn,
    Tpp,
    Cpp,
    Ring,
}

impl Knob {
    pub const ALL: [Knob; 9] = [
        Knob::Cp,
        Knob::Tp,
        Knob::Pp,
        Knob::Dp,
        Knob::Kv,
        Knob::Ffn,
        Knob::Tpp,
        Knob::Cpp,
        Knob::Ring,
    ];

    /// Its column in [`Points::knobs`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name the colour picker, links and short keys use.
    pub fn name(self) -> &'static str {
        match self {
            Knob::Cp => "cp",
            Knob::Tp => "tp",
            Knob::Pp => "pp",
            Knob::Dp => "dp",
            Knob::Kv => "kv",
            Knob::Ffn => "ffn",
            Knob::Tpp => "tpp",
            Knob::Cpp => "cpp",
            Knob::Ring => "ring",
        }
    }

    pub fn parse(name: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The values the knob takes, as labels, in option order (its column's indices).
    pub fn labels(self) -> Vec<String> {
        fn strings<T: ToString>(all: &[T]) -> Vec<String> {
            all.iter().map(T::to_string).collect()
        }
        match self {
            Knob::Cp => strings(&CP_OPTIONS),
            Knob::Tp => strings(&TP_OPTIONS),
            Knob::Pp => strings(&PP_OPTIONS),
            Knob::Dp => strings(&DP_OPTIONS),
            Knob::Kv => strings(KvShardMode::ALL),
            Knob::Ffn => strings(FfnShardScope::ALL),
            Knob::Tpp | Knob::Cpp => strings(PlacementKind::ALL),
            Knob::Ring => strings(RingVariant::ALL),
        }
    }
}

/// What the scatter's colours mean: efficiency (a ramp) or one knob (categories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ColorBy {
    #[default]
    Efficiency,
    Knob(Knob),
}

impl ColorBy {
    pub fn name(self) -> &'static str {
        match self {
            ColorBy::Efficiency => "efficiency",
            ColorBy::Knob(k) => k.name(),
        }
    }

    pub fn parse(name: &str) -> Option<ColorBy> {
        if name == "efficiency" {
            return Some(ColorBy::Efficiency);
        }
        Knob::parse(name).map(ColorBy::Knob)
    }

    /// The values a knob takes, as labels, in option order (none for efficiency).
    pub fn labels(self) -> Vec<String> {
        match self {
            ColorBy::Efficiency => Vec::new(),
            ColorBy::Knob(k) => k.labels(),
        }
    }
}
