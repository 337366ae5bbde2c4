//! `ModelConfig`: transformer shape, MoE and MLA options, data widths; the presets of
//! docs/explorer-model.md §1; validation of custom models read from JSON.

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;
use super::topology::Mode;

/// DeepSeek multi-head latent attention dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    /// Query low-rank dimension r_q.
    pub r_q: u64,
    /// KV latent dimension r_kv.
    pub r_kv: u64,
    /// Non-rotary query/key head dimension.
    pub d_nope: u64,
    /// Rotary head dimension.
    pub d_rope: u64,
    /// Value head dimension.
    pub d_vh: u64,
}

fn default_name() -> String {
    "custom".to_string()
}
fn default_width() -> f64 {
    2.0
}

/// A transformer's shape. Field names are the model document's; widths are bytes per element.
///
/// JSON form (custom models): every field below; `name`, `d_ff` (for MoE models without dense
/// layers), the MoE fields, `n_dense_layers`, `tied_embeddings`, `mla` and the byte widths
/// (default 2) may be omitted. Unknown fields are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Display name.
    #[serde(default = "default_name")]
    pub name: String,
    /// Transformer blocks L.
    pub layers: u64,
    /// Hidden size d.
    pub d_model: u64,
    /// Query heads.
    pub h_q: u64,
    /// KV heads (GQA).
    pub h_kv: u64,
    /// Head dimension.
    pub d_head: u64,
    /// Dense SwiGLU intermediate size (3 matrices).
    #[serde(default)]
    pub d_ff: u64,
    /// Vocabulary size.
    pub vocab: u64,
    /// Routed experts E; 0 means dense.
    #[serde(default)]
    pub n_experts: u64,
    /// Experts per token k.
    #[serde(default)]
    pub top_k: u64,
    /// Expert intermediate size d_e.
    #[serde(default)]
    pub d_ff_expert: u64,
    /// Shared experts E_s.
    #[serde(default)]
    pub n_shared: u64,
    /// Leading dense layers of an MoE model L_d.
    #[serde(default)]
    pub n_dense_layers: u64,
    /// Input embedding and LM head share one matrix.
    #[serde(default)]
    pub tied_embeddings: bool,
    /// Multi-head latent attention, when used.
    #[serde(default)]
    pub mla: Option<Mla>,
    /// Bytes per weight.
    #[serde(default = "default_width")]
    pub b_w: f64,
    /// Bytes per KV element.
    #[serde(default = "default_width")]
    pub b_kv: f64,
    /// Bytes per activation element.
    #[serde(default = "default_width")]
    pub b_a: f64,
}

/// Names of the model presets, in display order.
pub const MODEL_PRESETS: &[&str] = &[
    "llama3.1-8b",
    "llama3.1-70b",
    "llama3.1-405b",
    "mixtral-8x7b",
    "qwen2.5-72b",
    "deepseek-v3",
];

/// Largest accepted dimension or count in a custom model.
pub const MAX_MODEL_DIM: u64 = 1 << 32;

/// The dimensions that set a dense preset apart (the rest are [`dense`]'s defaults).
struct DenseShape {
    layers: u64,
    d_model: u64,
    h_q: u64,
    h_kv: u64,
    d_ff: u64,
    vocab: u64,
}

fn dense(name: &str, shape: DenseShape) -> ModelConfig {
    let DenseShape {
        layers,
        d_model,
        h_q,
        h_kv,
        d_ff,
        vocab,
    } = shape;
    ModelConfig {
        name: name.to_string(),
        layers,
        d_model,
        h_q,
        h_kv,
        d_head: 128,
        d_ff,
        vocab,
        n_experts: 0,
        top_k: 0,
        d_ff_expert: 0,
        n_shared: 0,
        n_dense_layers: 0,
        tied_embeddings: false,
        mla: None,
        b_w: 2.0,
        b_kv: 2.0,
        b_a: 2.0,
    }
}

impl ModelConfig {
    /// A preset by name (trimmed, case-insensitive).
    pub fn preset(name: &str) -> Result<ModelConfig, ExplorerError> {
        let n = name.trim().to_ascii_lowercase();
        let m = match n.as_str() {
            "llama3.1-8b" => dense(
                "llama3.1-8b",
                DenseShape {
                    layers: 32,
                    d_model: 4096,
                    h_q: 32,
                    h_kv: 8,
                    d_ff: 14336,
                    vocab: 128256,
                },
            ),
            "llama3.1-70b" => dense(
                "llama3.1-70b",
                DenseShape {
                    layers: 80,
                    d_model: 8192,
                    h_q: 64,
                    h_kv: 8,
                    d_ff: 28672,
                    vocab: 128256,
                },
            ),
            "llama3.1-405b" => dense(
                "llama3.1-405b",
                DenseShape {
                    layers: 126,
                    d_model: 16384,
                    h_q: 128,
                    h_kv: 8,
                    d_ff: 53248,
                    vocab: 128256,
                },
            ),
            "qwen2.5-72b" => dense(
                "qwen2.5-72b",
                DenseShape {
                    layers: 80,
                    d_model: 8192,
                    h_q: 64,
                    h_kv: 8,
                    d_ff: 29568,
                    vocab: 152064,
                },
            ),
            "mixtral-8x7b" => ModelConfig {
                n_experts: 8,
                top_k: 2,
                d_ff_expert: 14336,
                ..dense(
                    "mixtral-8x7b",
                    DenseShape {
                        layers: 32,
                        d_model: 4096,
                        h_q: 32,
                        h_kv: 8,
                        d_ff: 14336,
                        vocab: 32000,
                    },
                )
            },
            "deepseek-v3" => ModelConfig {
                n_experts: 256,
                top_k: 8,
                d_ff_expert: 2048,
                n_shared: 1,
                n_dense_layers: 3,
                mla: Some(Mla {
                    r_q: 1536,
                    r_kv: 512,
                    d_nope: 128,
                    d_rope: 64,
                    d_vh: 128,
                }),
                b_w: 1.0,
                ..dense(
                    "deepseek-v3",
                    DenseShape {
                        layers: 61,
                        d_model: 7168,
                        h_q: 128,
                        h_kv: 128,
                        d_ff: 18432,
                        vocab: 129280,
                    },
                )
            },
            _ => {
                return Err(ExplorerError::UnknownPreset {
                    what: "model",
                    name: name.to_string(),
                    known: MODEL_PRESETS.join(", "),
                })
            }
        };
        Ok(m)
    }

    /// Parse a custom model from JSON and validate it.
    pub fn from_json(text: &str) -> Result<ModelConfig, ExplorerError> {
        let m: ModelConfig = serde_json::from_str(text).map_err(|e| ExplorerError::Json {
            what: "model",
            message: e.to_string(),
            line: (e.line() > 0).then_some(e.line()),
        })?;
        m.validate()?;
        Ok(m)
    }

    /// True for mixture-of-experts models (`n_experts > 0`).
    pub fn is_moe(&self) -> bool {
        self.n_experts > 0
    }

    /// Check every field; the error names the field and why.
    pub fn validate(&self) -> Result<(), ExplorerError> {
        let pos = |field: &str, v: u64| -> Result<(), ExplorerError> {
            if v == 0 {
                return Err(ExplorerError::invalid(
                    format!("model.{field}"),
                    format!("model.{field} (0) must be positive"),
                ));
            }
            if v > MAX_MODEL_DIM {
                return Err(ExplorerError::invalid(
                    format!("model.{field}"),
                    format!("model.{field} ({v}) must be at most {MAX_MODEL_DIM}"),
                ));
            }
            Ok(())
        };
        let cap = |field: &str, v: u64| -> Result<(), ExplorerError> {
            if v > MAX_MODEL_DIM {
                return Err(ExplorerError::invalid(
                    format!("model.{field}"),
                    format!("model.{field} ({v}) must be at most {MAX_MODEL_DIM}"),
                ));
            }
            Ok(())
        };
        if self.name.trim().is_empty() {
            return Err(ExplorerError::invalid(
                "model.name",
                "model.name must not be empty",
            ));
        }
        pos("layers", self.layers)?;
        pos("d_model", self.d_model)?;
        pos("h_q", self.h_q)?;
        pos("h_kv", self.h_kv)?;
        pos("d_head", self.d_head)?;
        pos("vocab", self.vocab)?;
        for (f, v) in [
            ("d_ff", self.d_ff),
            ("n_experts", self.n_experts),
            ("top_k", self.top_k),
            ("d_ff_expert", self.d_ff_expert),
            ("n_shared", self.n_shared),
            ("n_dense_layers", self.n_dense_layers),
        ] {
            cap(f, v)?;
        }
        if !self.h_q.is_multiple_of(self.h_kv) {
            return Err(ExplorerError::invalid(
                "model.h_q",
                format!(
                    "model.h_q ({}) must be a multiple of h_kv ({})",
                    self.h_q, self.h_kv
                ),
            ));
        }
        if self.top_k > self.n_experts {
            return Err(ExplorerError::invalid(
                "model.top_k",
                format!(
                    "model.top_k ({}) must not exceed n_experts ({})",
                    self.top_k, self.n_experts
                ),
            ));
        }
        if self.is_moe() {
            pos("top_k", self.top_k)?;
            pos("d_ff_expert", self.d_ff_expert)?;
            if self.n_dense_layers > self.layers {
                return Err(ExplorerError::invalid(
                    "model.n_dense_layers",
                    format!(
                        "model.n_dense_layers ({}) must not exceed layers ({})",
                        self.n_dense_layers, self.layers
                    ),
                ));
            }
            if self.n_dense_layers > 0 {
                pos("d_ff", self.d_ff)?;
            }
        } else {
            pos("d_ff", self.d_ff)?;
        }
        for (f, v) in [("b_w", self.b_w), ("b_kv", self.b_kv), ("b_a", self.b_a)] {
            if !(v.is_finite() && v > 0.0 && v <= 64.0) {
                return Err(ExplorerError::invalid(
                    format!("model.{f}"),
                    format!("model.{f} ({v}) must be a number of bytes in (0, 64]"),
                ));
            }
        }
        if let Some(mla) = &self.mla {
            let pos_mla = |field: &str, v: u64| -> Result<(), ExplorerError> {
                if v == 0 || v > MAX_MODEL_DIM {
                    return Err(ExplorerError::invalid(
                        format!("model.mla.{field}"),
                        format!("model.mla.{field} ({v}) must be between 1 and {MAX_MODEL_DIM}"),
                    ));
                }
                Ok(())
            };
            pos_mla("r_q", mla.r_q)?;
            pos_mla("r_kv", mla.r_kv)?;
            pos_mla("d_nope", mla.d_nope)?;
            pos_mla("d_vh", mla.d_vh)?;
            if mla.d_rope > MAX_MODEL_DIM {
                return Err(ExplorerError::invalid(
                    "model.mla.d_rope",
                    format!(
                        "model.mla.d_rope ({}) must be at most {MAX_MODEL_DIM}",
                        mla.d_rope
                    ),
                ));
            }
        }
        Ok(())
    }

    /// KV elements per token per layer: `2·h_kv·d_h` (GQA) or `r_kv + d_rope` (MLA).
    pub fn kv_el(&self) -> f64 {
        match &self.mla {
            Some(m) => m.r_kv as f64 + m.d_rope as f64,
            None => 2.0 * self.h_kv as f64 * self.d_head as f64,
        }
    }

    /// Attention dot widths `(d_qk, d_v)` for a mode.
    pub fn dot_widths(&self, mode: Mode) -> (f64, f64) {
        match (&self.mla, mode) {
            (None, _) => (self.d_head as f64, self.d_head as f64),
            (Some(m), Mode::Decode) => (m.r_kv as f64 + m.d_rope as f64, m.r_kv as f64),
            (Some(m), Mode::Prefill) => (m.d_nope as f64 + m.d_rope as f64, m.d_vh as f64),
        }
    }

    /// Attention parameters per layer `W_attn`.
    pub fn attn_params_per_layer(&self) -> f64 {
        let d = self.d_model as f64;
        let hq = self.h_q as f64;
        match &self.mla {
            None => {
                let dh = self.d_head as f64;
                2.0 * d * hq * dh + 2.0 * d * self.h_kv as f64 * dh
            }
            Some(m) => {
                let (rq, rkv, dn, dr, dv) = (
                    m.r_q as f64,
                    m.r_kv as f64,
                    m.d_nope as f64,
                    m.d_rope as f64,
                    m.d_vh as f64,
                );
                d * rq + rq * hq * (dn + dr) + d * (rkv + dr) + rkv * hq * (dn + dv) + hq * dv * d
            }
        }
    }

    /// Dense FFN parameters per layer `3·d·d_ff`.
    pub fn dense_ffn_params_per_layer(&self) -> f64 {
        3.0 * self.d_model as f64 * self.d_ff as f64
    }

    /// MoE FFN parameters per layer with `n_routed` routed experts counted:
    /// `(n_routed + E_s)·3·d·d_e + d·E` (the last term is the router).
    fn moe_params(&self, n_routed: f64) -> f64 {
        let d = self.d_model as f64;
        (n_routed + self.n_shared as f64) * 3.0 * d * self.d_ff_expert as f64
            + d * self.n_experts as f64
    }

    fn params_with_moe(&self, w_moe: f64) -> f64 {
        let l = self.layers as f64;
        let d = self.d_model as f64;
        let l_moe = if self.is_moe() {
            (self.layers.saturating_sub(self.n_dense_layers)) as f64
        } else {
            0.0
        };
        let l_dense = l - l_moe;
        let tables = if self.tied_embeddings { 1.0 } else { 2.0 };
        l * (self.attn_params_per_layer() + 2.0 * d)
            + l_dense * self.dense_ffn_params_per_layer()
            + l_moe * w_moe
            + self.vocab as f64 * d * tables
            + d
    }

    /// Total parameters (§1).
    pub fn total_params(&self) -> f64 {
        self.params_with_moe(self.moe_params(self.n_experts as f64))
    }

    /// Parameters active per token: routed experts counted `top_k` times (router included).
    pub fn active_params(&self) -> f64 {
        self.params_with_moe(self.moe_params(self.top_k as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_totals_match_the_document() {
        let cases = [
            ("llama3.1-8b", 8.030, 8.030),
            ("llama3.1-70b", 70.554, 70.554),
            ("llama3.1-405b", 405.853, 405.853),
            ("mixtral-8x7b", 46.703, 12.880),
            ("qwen2.5-72b", 72.705, 72.705),
            ("deepseek-v3", 671.026, 37.552),
        ];
        for (name, total_b, active_b) in cases {
            let m = ModelConfig::preset(name).unwrap();
            m.validate().unwrap();
            let t = (m.total_params() / 1e9 * 1000.0).round() / 1000.0;
            let a = (m.active_params() / 1e9 * 1000.0).round() / 1000.0;
            assert_eq!(t, total_b, "{name} total");
            assert_eq!(a, active_b, "{name} active");
        }
        assert_eq!(
            ModelConfig::preset("llama3.1-8b").unwrap().total_params(),
            8_030_261_248.0
        );
        assert_eq!(ModelConfig::preset("deepseek-v3").unwrap().kv_el(), 576.0);
        assert_eq!(
            ModelConfig::preset(" LLAMA3.1-70B ").unwrap().name,
            "llama3.1-70b"
        );
        assert!(ModelConfig::preset("gpt-5").is_err());
    }

    #[test]
    fn custom_json_round_trips_and_validates() {
        let m = ModelConfig::preset("deepseek-v3").unwrap();
        let j = serde_json::to_string(&m).unwrap();
        assert_eq!(ModelConfig::from_json(&j).unwrap(), m);

        let small = r#"{"layers": 2, "d_model": 64, "h_q": 4, "h_kv": 2, "d_head": 16,
                        "d_ff": 128, "vocab": 100}"#;
        let s = ModelConfig::from_json(small).unwrap();
        assert_eq!((s.name.as_str(), s.b_w), ("custom", 2.0));

        let bad = |text: &str, field: &str, words: &str| {
            let e = ModelConfig::from_json(text).unwrap_err();
            assert_eq!(e.field(), Some(field), "{e}");
            assert!(e.to_string().contains(words), "{e}");
        };
        bad(
            r#"{"layers": 2, "d_model": 64, "h_q": 60, "h_kv": 8, "d_head": 16, "d_ff": 1, "vocab": 1}"#,
            "model.h_q",
            "model.h_q (60) must be a multiple of h_kv (8)",
        );
        bad(
            r#"{"layers": 0, "d_model": 64, "h_q": 4, "h_kv": 2, "d_head": 16, "d_ff": 1, "vocab": 1}"#,
            "model.layers",
            "must be positive",
        );
        bad(
            r#"{"layers": 2, "d_model": 64, "h_q": 4, "h_kv": 2, "d_head": 16, "vocab": 1,
                "n_experts": 4, "top_k": 5, "d_ff_expert": 8}"#,
            "model.top_k",
            "must not exceed n_experts (4)",
        );
        bad(
            r#"{"layers": 2, "d_model": 64, "h_q": 4, "h_kv": 2, "d_head": 16, "vocab": 1, "d_ff": 8,
                "b_w": 0}"#,
            "model.b_w",
            "(0, 64]",
        );
        bad(
            r#"{"layers": 2, "d_model": 64, "h_q": 4, "h_kv": 2, "d_head": 16, "vocab": 1}"#,
            "model.d_ff",
            "must be positive",
        );
        bad(
            r#"{"layers": 2, "d_model": 99999999999999, "h_q": 4, "h_kv": 2, "d_head": 16, "vocab": 1, "d_ff": 1}"#,
            "model.d_model",
            "at most",
        );
        let e = ModelConfig::from_json("{\n  \"layers\": -1}").unwrap_err();
        assert!(
            matches!(e, ExplorerError::Json { line: Some(2), .. }),
            "{e:?}"
        );
        let e = ModelConfig::from_json(r#"{"layerz": 1}"#).unwrap_err();
        assert!(e.to_string().contains("layerz"), "{e}");
    }

    /// Every limit of `validate` at its edge: the largest allowed value passes, one more
    /// fails and names its field.
    #[test]
    fn every_limit_holds_at_its_edge() {
        let base = ModelConfig::preset("deepseek-v3").unwrap();
        base.validate().unwrap();
        let field_of = |m: &ModelConfig| {
            m.validate()
                .err()
                .and_then(|e| e.field().map(str::to_owned))
        };
        let check = |what: &str, set: &dyn Fn(&mut ModelConfig, u64), ok: u64, bad: u64| {
            let mut m = base.clone();
            set(&mut m, ok);
            assert_eq!(field_of(&m), None, "{what} = {ok}");
            set(&mut m, bad);
            assert_eq!(field_of(&m).as_deref(), Some(what), "{what} = {bad}");
        };
        const MAX: u64 = MAX_MODEL_DIM;
        check("model.layers", &|m, v| m.layers = v, MAX, MAX + 1);
        check("model.layers", &|m, v| m.layers = v, 3, 0);
        check("model.d_model", &|m, v| m.d_model = v, MAX, MAX + 1);
        check("model.h_q", &|m, v| m.h_q = v, MAX, MAX + 1);
        check(
            "model.h_kv",
            &|m, v| {
                m.h_q = MAX;
                m.h_kv = v
            },
            MAX,
            MAX + 1,
        );
        check("model.d_head", &|m, v| m.d_head = v, MAX, MAX + 1);
        check("model.vocab", &|m, v| m.vocab = v, MAX, MAX + 1);
        check("model.d_ff", &|m, v| m.d_ff = v, MAX, MAX + 1);
        check("model.n_experts", &|m, v| m.n_experts = v, MAX, MAX + 1);
        check(
            "model.top_k",
            &|m, v| m.top_k = v,
            base.n_experts,
            base.n_experts + 1,
        );
        check("model.d_ff_expert", &|m, v| m.d_ff_expert = v, MAX, MAX + 1);
        check("model.n_shared", &|m, v| m.n_shared = v, MAX, MAX + 1);
        check(
            "model.n_dense_layers",
            &|m, v| m.n_dense_layers = v,
            base.layers,
            base.layers + 1,
        );
        // An MoE model needs d_ff only for its dense layers.
        check(
            "model.d_ff",
            &|m, v| {
                m.d_ff = 0;
                m.n_dense_layers = v
            },
            0,
            1,
        );
        check("model.d_ff_expert", &|m, v| m.d_ff_expert = v, 1, 0);
        check("model.top_k", &|m, v| m.top_k = v, 1, 0);
        // A dense model needs d_ff, and no expert fields.
        let mut dense = ModelConfig::preset("llama3.1-8b").unwrap();
        dense.d_ff = 0;
        assert_eq!(field_of(&dense).as_deref(), Some("model.d_ff"));
        dense.d_ff = 1;
        assert_eq!(field_of(&dense), None);
        // Bytes per element: (0, 64].
        for (f, set) in [
            (
                "model.b_w",
                (|m: &mut ModelConfig, v| m.b_w = v) as fn(&mut ModelConfig, f64),
            ),
            ("model.b_kv", |m, v| m.b_kv = v),
            ("model.b_a", |m, v| m.b_a = v),
        ] {
            for (v, ok) in [
                (64.0, true),
                (1e-9, true),
                (64.000001, false),
                (0.0, false),
                (-1.0, false),
                (f64::NAN, false),
                (f64::INFINITY, false),
            ] {
                let mut m = base.clone();
                set(&mut m, v);
                assert_eq!(field_of(&m).as_deref(), (!ok).then_some(f), "{f} = {v}");
            }
        }
        // MLA dimensions: 1..=MAX, d_rope 0..=MAX.
        fn mla(m: &mut ModelConfig) -> &mut Mla {
            m.mla.as_mut().unwrap()
        }
        check("model.mla.r_q", &|m, v| mla(m).r_q = v, MAX, MAX + 1);
        check("model.mla.r_q", &|m, v| mla(m).r_q = v, 1, 0);
        check("model.mla.r_kv", &|m, v| mla(m).r_kv = v, MAX, 0);
        check("model.mla.d_nope", &|m, v| mla(m).d_nope = v, MAX, 0);
        check("model.mla.d_vh", &|m, v| mla(m).d_vh = v, MAX, 0);
        check("model.mla.d_rope", &|m, v| mla(m).d_rope = v, MAX, MAX + 1);
        check("model.mla.d_rope", &|m, v| mla(m).d_rope = v, 0, MAX + 1);
        let mut unnamed = base.clone();
        unnamed.name = " \t".into();
        assert_eq!(field_of(&unnamed).as_deref(), Some("model.name"));
    }
}
