//! What every explorer report opens with: the settings it was made with. One type for the
//! sweep, the sensitivity and the batch sweep (flattened into each report, so their JSON
//! keeps its keys in the same order), and the one line the CLI's tables start with.

use serde::{Deserialize, Serialize};

use super::{
    EfficiencyMode, MachineParams, Mode, ModelConfig, Scope, ScoreOptions, TopologyConfig,
};

/// The settings a report was made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportHeader {
    /// Model name.
    pub model: String,
    /// Machine name.
    pub machine: String,
    /// Sequence length.
    pub s_kv: u64,
    /// Mode.
    pub mode: Mode,
    /// Batch (`None` in the batch sweep, whose rows each have their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<u32>,
    /// EP degree.
    pub ep: u32,
    /// Scope.
    pub scope: Scope,
    /// Efficiency mode.
    pub efficiency: EfficiencyMode,
}

impl ReportHeader {
    /// The header of a report on `model` and `machine` at `topo`'s s_kv, mode, batch and
    /// ep (a sweep's base topology or a sensitivity's baseline), scored with `options`.
    pub fn new(
        model: &ModelConfig,
        machine: &MachineParams,
        topo: &TopologyConfig,
        options: ScoreOptions,
    ) -> ReportHeader {
        ReportHeader {
            model: model.name.clone(),
            machine: machine.name.clone(),
            s_kv: topo.s_kv,
            mode: topo.mode,
            batch: Some(topo.batch),
            ep: topo.ep,
            scope: options.scope,
            efficiency: options.efficiency,
        }
    }

    /// The first line of the CLI's tables:
    /// `llama3.1-70b on h200-hgx · decode · s_kv 32768 · batch 1 · ep 1 · scope all · efficiency seed`.
    pub fn line(&self) -> String {
        let batch = self
            .batch
            .map(|b| format!(" · batch {b}"))
            .unwrap_or_default();
        format!(
            "{} on {} · {} · s_kv {}{batch} · ep {} · scope {} · efficiency {}",
            self.model, self.machine, self.mode, self.s_kv, self.ep, self.scope, self.efficiency
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_setting_and_the_batch_only_when_there_is_one() {
        let model = ModelConfig::preset("llama3.1-70b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let topo = TopologyConfig {
            s_kv: 32768,
            mode: Mode::Decode,
            batch: 4,
            ep: 2,
            ..TopologyConfig::default()
        };
        let h = ReportHeader::new(&model, &machine, &topo, ScoreOptions::default());
        assert_eq!(
            h.line(),
            "llama3.1-70b on h200-hgx · decode · s_kv 32768 · batch 4 · ep 2 · scope all · efficiency seed"
        );
        let none = ReportHeader { batch: None, ..h };
        assert_eq!(
            none.line(),
            "llama3.1-70b on h200-hgx · decode · s_kv 32768 · ep 2 · scope all · efficiency seed"
        );
        let json = serde_json::to_string(&none).unwrap();
        assert_eq!(
            json,
            r#"{"model":"llama3.1-70b","machine":"h200-hgx","s_kv":32768,"mode":"decode","ep":2,"scope":"all","efficiency":"seed"}"#
        );
        assert_eq!(serde_json::from_str::<ReportHeader>(&json).unwrap(), none);
    }
}
