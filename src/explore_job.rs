//! The worker's explorer job: one sweep per request (the page sends a new one for every
//! settings change and shows only the newest answer), kept so that a config's full
//! breakdown and the exports need no second sweep.

use shardscope_explorer::{
    batch_sweep, evaluate, explore_csv, explore_json, sensitivity, BatchSweepReport, Evaluation,
    SensitivityReport,
};
use shardscope_session::explore_settings::{parse_short_key, ExploreRequest, FieldError};
use shardscope_session::scenarios::{run_scenarios, Scenario, ScenarioReport};
use shardscope_view::explore::Points;

use crate::clock::now_ms;
use crate::protocol::{ExploreAnswer, ExportFormat};

/// The last sweep's inputs (the report is recomputed for exports with `--all`).
pub struct ExploreJob {
    request: ExploreRequest,
}

impl ExploreJob {
    /// Sweep every configuration; the answer carries the frontier as records and every
    /// configuration as packed columns.
    pub fn run(request: ExploreRequest) -> Result<(ExploreJob, ExploreAnswer), FieldError> {
        let started = now_ms();
        let (report, sweep) = request.explore(false)?;
        let points = Points::from_sweep(&sweep).to_bytes();
        let answer = ExploreAnswer {
            report,
            points,
            elapsed_ms: now_ms() - started,
        };
        Ok((ExploreJob { request }, answer))
    }

    /// The full breakdown of one configuration of the kept sweep (`key`: a short key).
    pub fn evaluate(&self, key: &str) -> Result<Evaluation, FieldError> {
        let base = self.request.sweep.base_topology();
        let topo = parse_short_key(key, &base)?;
        evaluate(
            &self.request.model,
            &self.request.machine,
            &topo,
            self.request.sweep.options,
        )
        .map_err(|e| FieldError::from_explorer(e, "config"))
    }

    /// `shardscope sensitivity --baseline <key>` for the kept settings.
    pub fn sensitivity(&self, key: &str) -> Result<SensitivityReport, FieldError> {
        let r = &self.request;
        let topo = parse_short_key(key, &r.sweep.base_topology())?;
        sensitivity(&r.model, &r.machine, &topo, r.sweep.options)
            .map_err(|e| FieldError::from_explorer(e, "config"))
    }

    /// `shardscope explore --batch-sweep …` for `r`'s settings.
    pub fn batch_sweep(
        r: &ExploreRequest,
        batches: &[u32],
    ) -> Result<BatchSweepReport, FieldError> {
        Ok(batch_sweep(&r.model, &r.machine, &r.sweep, batches)?)
    }

    /// `shardscope explore --scenario … --format json` for these scenarios.
    pub fn scenarios(list: &[Scenario]) -> Result<ScenarioReport, FieldError> {
        run_scenarios(list)
    }

    /// `shardscope explore --format json|csv [--all]` for the kept settings.
    pub fn export(&self, format: ExportFormat, all: bool) -> Result<String, FieldError> {
        let (report, _) = self.request.explore(all)?;
        Ok(match format {
            ExportFormat::Json => explore_json(&report),
            ExportFormat::Csv => explore_csv(&report),
        })
    }
}
