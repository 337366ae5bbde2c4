//! The all-configurations table's virtual scrolling and search: which rows of the
//! fastest-first order are in the DOM for a scroll position, how tall the spacers above
//! and below them are, and where a found configuration is scrolled to. The page only
//! reads the scroll position and writes what these return.

use crate::explorer::SweepRequest;

use super::explore::{find_config, short_key, FieldError, Points};

/// Row height of the table body, CSS px (kept in step with `.all-table` in the CSS).
pub const ROW_PX: f64 = 28.0;
/// Visible height of the table body, CSS px (the scroller's `max-height`).
pub const VIEW_PX: f64 = 420.0;
/// Rows rendered above and below the visible ones, so a fast scroll never shows a gap.
pub const SPARE_ROWS: usize = 8;

/// The rows `order[first..first + count]` rendered for one scroll position, and the
/// spacer heights that keep the scrollbar true to every row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowWindow {
    pub first: usize,
    pub count: usize,
    pub before_px: f64,
    pub after_px: f64,
}

/// The window of `total` rows rendered when the body is scrolled to `scroll_top_px`.
/// A negative or non-finite scroll position (an overscroll bounce) counts as the top.
pub fn row_window(scroll_top_px: f64, total: usize) -> RowWindow {
    let top_row = if scroll_top_px.is_finite() && scroll_top_px > 0.0 {
        (scroll_top_px / ROW_PX) as usize
    } else {
        0
    };
    let first = top_row.saturating_sub(SPARE_ROWS).min(total);
    let count = ((VIEW_PX / ROW_PX) as usize + 2 * SPARE_ROWS).min(total - first);
    RowWindow {
        first,
        count,
        before_px: first as f64 * ROW_PX,
        after_px: (total - first - count) as f64 * ROW_PX,
    }
}

/// The scroll position that shows row `position` (of the display order) in the middle
/// of the visible body.
pub fn scroll_top_to_show(position: usize) -> f64 {
    (position as f64 * ROW_PX - VIEW_PX / 2.0).max(0.0)
}

/// A configuration a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its index into the points.
    pub index: usize,
    /// Its short key (what the selection holds).
    pub key: String,
    /// Its row in the fastest-first display order.
    pub position: usize,
}

/// The configuration `text` names (the CLI's baseline syntax or a short key), with its
/// key and its row in `points.order`.
pub fn locate_config(points: &Points, req: &SweepRequest, text: &str) -> Result<Found, FieldError> {
    let index = find_config(points, req, text)?;
    let key = points
        .topology(index, req)
        .map(|t| short_key(&t))
        .ok_or_else(|| FieldError::new("config", "that configuration has no topology"))?;
    let position = points
        .order
        .iter()
        .position(|&x| x as usize == index)
        .unwrap_or(0);
    Ok(Found {
        index,
        key,
        position,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOWN: usize = 15 + 2 * SPARE_ROWS; // 420 / 28 visible rows, plus spares

    #[test]
    fn the_top_renders_the_first_rows_and_one_spacer_below() {
        let w = row_window(0.0, 1000);
        assert_eq!((w.first, w.count), (0, SHOWN));
        assert_eq!(w.before_px, 0.0);
        assert_eq!(w.after_px, (1000 - SHOWN) as f64 * ROW_PX);
    }

    #[test]
    fn a_scrolled_body_keeps_spare_rows_above_and_the_full_height() {
        let w = row_window(100.0 * ROW_PX + 5.0, 1000);
        assert_eq!((w.first, w.count), (100 - SPARE_ROWS, SHOWN));
        assert_eq!(w.before_px, (100 - SPARE_ROWS) as f64 * ROW_PX);
        assert_eq!(
            w.before_px + w.count as f64 * ROW_PX + w.after_px,
            1000.0 * ROW_PX
        );
    }

    #[test]
    fn short_tables_and_overscroll_never_underflow() {
        assert_eq!(
            row_window(0.0, 3),
            RowWindow {
                first: 0,
                count: 3,
                before_px: 0.0,
                after_px: 0.0
            }
        );
        let w = row_window(1.0e9, 10);
        assert_eq!(w.first + w.count, 10);
        assert_eq!(w.after_px, 0.0);
        assert_eq!(row_window(-40.0, 10).first, 0);
        assert_eq!(row_window(f64::NAN, 10).first, 0);
        assert_eq!(row_window(0.0, 0).count, 0);
    }

    #[test]
    fn a_found_row_is_scrolled_to_the_middle() {
        assert_eq!(scroll_top_to_show(0), 0.0);
        assert_eq!(scroll_top_to_show(5), 0.0);
        assert_eq!(scroll_top_to_show(100), 100.0 * ROW_PX - VIEW_PX / 2.0);
    }

    #[test]
    fn a_search_finds_the_key_and_the_display_row() {
        use super::super::explore::{resolve, ExploreSettings};
        let req = resolve(&ExploreSettings::default()).unwrap();
        let sw = crate::explorer::sweep(&req.model, &req.machine, &req.sweep).unwrap();
        let points = Points::from_sweep(&sw);
        let key = "cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml";
        let found = locate_config(&points, &req.sweep, key).unwrap();
        assert_eq!(found.key, key);
        assert_eq!(points.order[found.position] as usize, found.index);
        let by_knobs = locate_config(
            &points,
            &req.sweep,
            "cp=2,tp=4,pp=1,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml",
        );
        assert_eq!(by_knobs, Ok(found));
        let err = locate_config(&points, &req.sweep, "cp=3").unwrap_err();
        assert_eq!(err.field, "config");
    }
}
