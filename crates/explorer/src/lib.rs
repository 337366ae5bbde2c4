//! The parallelism explorer: analytical model, sweep, Pareto frontier, sensitivity.
//!
//! The physics is docs/explorer-model.md (v1); the search and the ranking are the seed
//! `auto_explore`'s. Everything here is pure: no I/O (custom models and machines are parsed
//! from `&str`), no panics on any input, no allocation per configuration in the sweep.
//!
//! - [`ModelConfig`], [`MachineParams`], [`TopologyConfig`]: inputs, presets, validation.
//! - [`Placement`], [`Scorer::evaluate`]: the full per-stage breakdown of one config.
//! - [`sweep`] / [`explore`]: the seed's enumeration, scoring, latency order and frontier.
//! - [`pareto_front`]: the O(N log N) frontier, equal to [`pareto_front_naive`] (the seed's).
//! - [`sensitivity`]: the seed's one-knob sweep.
//! - [`batch_sweep`], [`Sla`]: serving questions beyond the seed.
//! - [`calibrate`]: the model's time scales fitted to measurements, beyond every explorer.
//! - [`compare_frontiers`]: several scenarios' frontiers compared, beyond every explorer.

// The CSV writer every export shares (the bottom layer's).
use shardscope_text::csv_text;

mod batch;
mod calibrate;
mod emit;
mod error;
mod export;
mod header;
mod json;
mod machine;
mod memory;
mod model;
mod pareto;
mod placement;
mod scales;
mod scenarios;
mod score;
mod sensitivity;
mod stages;
mod sweep;
mod topology;
#[cfg(test)]
mod worked_example_tests;

pub use batch::{batch_sweep, BatchResult, BatchSweepReport, ServingScore};
pub use calibrate::{calibrate, Calibration, CalibrationRow, Measured, Measurement};
pub use error::ExplorerError;
pub use export::{csv_config, explore_csv, explore_json, CSV_HEADER};
pub use header::ReportHeader;
pub use json::{f64_nan_as_null, vec_f64_nan_as_null};
pub use machine::{FabricLevel, Level, MachineParams, MACHINE_PRESETS};
pub use memory::MemoryLayout;
pub use model::{Mla, ModelConfig, MAX_MODEL_DIM, MODEL_PRESETS};
pub use pareto::{dominates, pareto_front, pareto_front_naive, ParetoPoint};
pub use placement::{level_for_span, Placement, PlacementCheck};
pub use scales::{TimeScales, SCALE_MAX, SCALE_MIN};
pub use scenarios::{
    compare_frontiers, Band, Comparison, FrontierLine, Pair, ScenarioRow, Verdict, MAX_SCENARIOS,
    PE_BUDGETS,
};
pub use score::{
    evaluate, memory_reason, score_config, ConfigScore, EfficiencyBreakdown, Evaluation, Score,
    ScoreOptions, Scorer,
};
pub use sensitivity::{sensitivity, Knob, SensitivityReport, SensitivityRow, SENSITIVITY_SWEEP};
pub use stages::{
    all_gather_s, all_reduce_s, all_to_all_s, p2p_s, Stage, StageGroup, StageName, Tokens,
};
pub use sweep::{
    enumerate_configs, explore, for_each_config, sweep, validate_batches, ExploreReport, Sla,
    SlaOutcome, Sweep, SweepRequest, CP_OPTIONS, CP_PLACEMENTS, CP_RING_VARIANTS, DP_OPTIONS,
    FFN_SHARD_SCOPES, KV_SHARD_MODES, PP_OPTIONS, TP_OPTIONS, TP_PLACEMENTS,
};
pub use topology::{
    EfficiencyMode, FfnShardScope, KvShardMode, Mode, PlacementKind, RingVariant, Scope,
    TopologyConfig, DEFAULT_BASELINE, MAX_BATCH, MAX_DEGREE, MAX_S_KV,
};
