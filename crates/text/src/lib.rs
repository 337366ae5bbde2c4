//! The bottom layer: arithmetic and text every other crate shares, importing nothing of
//! Shardscope's.
//!
//! - [`py`]: Python and numpy arithmetic reproduced bit for bit (stormlog's rounding).
//! - [`format`]: numbers as people read them (bytes, durations, the hooks' decimals).
//! - [`csv_text`]: CSV as every export writes it.

pub mod csv_text;
pub mod format;
pub mod py;
