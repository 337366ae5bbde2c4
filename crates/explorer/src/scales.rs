//! The factors a calibration puts on the model's three kinds of time (compute, HBM
//! traffic, the fabric): what the scorer multiplies by and the fit solves for
//! (`calibrate.rs`). Its own module so that the scorer and the stages depend on it and
//! not on the fit, which depends on them.

use serde::{Deserialize, Serialize};

/// Smallest and largest factor a fit may use.
pub const SCALE_MIN: f64 = 0.1;
pub const SCALE_MAX: f64 = 10.0;

/// Factors on the model's compute, memory and network times.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimeScales {
    pub compute: f64,
    pub memory: f64,
    pub network: f64,
}

impl Default for TimeScales {
    fn default() -> Self {
        TimeScales::uniform(1.0)
    }
}

impl TimeScales {
    pub fn uniform(s: f64) -> TimeScales {
        TimeScales {
            compute: s,
            memory: s,
            network: s,
        }
    }

    /// The model as specified.
    pub fn is_identity(&self) -> bool {
        *self == TimeScales::default()
    }

    /// The factors e^t, each clamped to the bounds.
    pub(super) fn from_logs(t: [f64; 3]) -> TimeScales {
        let f = |v: f64| v.exp().clamp(SCALE_MIN, SCALE_MAX);
        TimeScales {
            compute: f(t[0]),
            memory: f(t[1]),
            network: f(t[2]),
        }
    }
}
