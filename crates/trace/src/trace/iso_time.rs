//! Times a diagnose bundle states: Python's `datetime.fromisoformat(...).timestamp()` for
//! `created_iso`, and `time.time_ns()` where it has none.

use super::pynum::int_from_float;
use crate::json::py_strip;
use crate::py::int_true_div;

/// `time.time_ns()`. The browser build has no clock in the core (wasm32 without
/// WASI): there a bundle without a readable `created_iso` starts at 0.
pub(super) fn now_ns() -> i128 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        0
    }
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year of a day count from 1970-01-01.
fn year_of_days(z: i64) -> i64 {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(m <= 2)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
    }
}

/// Exactly `n` ASCII digits at `at`.
fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let s = b.get(at..at + n)?;
    s.iter().try_fold(0i64, |v, &c| {
        c.is_ascii_digit().then(|| v * 10 + i64::from(c - b'0'))
    })
}

/// `_find_isoformat_datetime_separator` of CPython 3.11.
fn separator_position(b: &[u8]) -> Option<usize> {
    let len = b.len();
    if len == 7 {
        return Some(7);
    }
    if b.get(4) == Some(&b'-') {
        if b.get(5) == Some(&b'W') {
            if len < 8 {
                return None;
            }
            if len > 8 && b[8] == b'-' {
                if len == 9 {
                    return None;
                }
                if len > 10 && b[10].is_ascii_digit() {
                    return Some(8);
                }
                return Some(10);
            }
            return Some(8);
        }
        return Some(10);
    }
    if b.get(4) == Some(&b'W') {
        let run = b[7.min(len)..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let idx = 7 + run;
        if idx < 9 {
            return Some(idx);
        }
        return Some(if idx % 2 == 0 { 7 } else { 8 });
    }
    Some(8)
}

/// `parse_isoformat_date`: days from the epoch.
fn parse_date(b: &[u8]) -> Option<i64> {
    let year = digits(b, 0, 4)?;
    let mut p = 4;
    let sep = b.get(p) == Some(&b'-');
    if sep {
        p += 1;
    }
    if b.get(p) == Some(&b'W') {
        p += 1;
        let week = digits(b, p, 2)?;
        p += 2;
        let day = if p < b.len() {
            if sep {
                if b.get(p) != Some(&b'-') {
                    return None;
                }
                p += 1;
            }
            digits(b, p, 1)?
        } else {
            1
        };
        if year < 1 {
            return None;
        }
        let jan1 = days_from_civil(year, 1, 1);
        let weekday = (jan1 + 3).rem_euclid(7); // Monday = 0; 1970-01-01 was a Thursday
        if !(1..53).contains(&week) {
            let long_year = weekday == 3 || (weekday == 2 && is_leap(year));
            if !(week == 53 && long_year) {
                return None;
            }
        }
        if !(1..8).contains(&day) {
            return None;
        }
        let mut monday = jan1 - weekday;
        if weekday > 3 {
            monday += 7;
        }
        let days = monday + (week - 1) * 7 + day - 1;
        return (1..=9999).contains(&year_of_days(days)).then_some(days);
    }
    let month = digits(b, p, 2)?;
    p += 2;
    if sep {
        if b.get(p) != Some(&b'-') {
            return None;
        }
        p += 1;
    }
    let day = digits(b, p, 2)?;
    if !(1..=9999).contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    if !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

/// `parse_hh_mm_ss_ff` of CPython 3.11 over `b`: (h, m, s), microseconds, and whether
/// text is left over (an error when no time zone follows).
fn parse_hms(b: &[u8]) -> Option<([i64; 3], i64, bool)> {
    let mut vals = [0i64; 3];
    let mut p = 0;
    let mut has_sep = true;
    for (i, val) in vals.iter_mut().enumerate() {
        *val = digits(b, p, 2)?;
        p += 2;
        let c = b.get(p).copied();
        p += 1;
        if i == 0 {
            has_sep = c == Some(b':');
        }
        if p >= b.len() {
            return Some((vals, 0, c.is_some()));
        }
        match c {
            Some(b':') if has_sep => continue,
            Some(b'.' | b',') => break,
            _ if !has_sep => p -= 1,
            _ => return None,
        }
    }
    // The fraction: up to six digits are read, further digits are skipped.
    let take = (b.len() - p).min(6);
    if take == 0 {
        return None;
    }
    let mut micro = digits(b, p, take)?;
    for _ in take..6 {
        micro *= 10;
    }
    p += take;
    while b.get(p).is_some_and(u8::is_ascii_digit) {
        p += 1;
    }
    Some((vals, micro, p < b.len()))
}

/// `_created_iso_to_ns`: `int(datetime.fromisoformat(text).timestamp() * 1e9)` for the
/// ISO 8601 forms CPython 3.11 accepts (calendar and week dates, any one-character
/// separator, `HH[:MM[:SS[.f…]]]` or the basic forms, `Z` or `±HH[:MM[:SS[.f]]]`).
/// A value without offset is local time for Python; it is taken as UTC here (the
/// reference machines run in UTC, and the result must not depend on where we run).
pub fn created_iso_to_ns(value: &str) -> Option<i128> {
    let text = py_strip(value);
    if text.is_empty() {
        return None;
    }
    let owned;
    let text = match text.strip_suffix('Z') {
        Some(rest) => {
            owned = format!("{rest}+00:00");
            owned.as_str()
        }
        None => text,
    };
    let b = text.as_bytes();
    if !text.is_ascii() || b.len() < 7 {
        return None;
    }
    let sep = separator_position(b)?;
    let days = parse_date(&b[..sep.min(b.len())])?;
    let (mut h, mut mi, mut s, mut micro) = (0, 0, 0, 0);
    let mut offset: Option<(i64, i64)> = None; // (seconds, microseconds)
    if b.len() > sep {
        let time = &b[sep + 1..];
        let tz_at = time
            .iter()
            .position(|&c| matches!(c, b'Z' | b'+' | b'-'))
            .unwrap_or(time.len());
        let ([hh, mm, ss], us, rest) = parse_hms(&time[..tz_at])?;
        if tz_at == time.len() {
            if rest {
                return None;
            }
        } else if time[tz_at] == b'Z' {
            if tz_at + 1 != time.len() {
                return None;
            }
            offset = Some((0, 0));
        } else {
            let sign = if time[tz_at] == b'-' { -1 } else { 1 };
            let ([th, tm, ts], tus, tz_rest) = parse_hms(&time[tz_at + 1..])?;
            if tz_rest {
                return None;
            }
            offset = Some((sign * (th * 3600 + tm * 60 + ts), sign * tus));
        }
        (h, mi, s, micro) = (hh, mm, ss, us);
    }
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let local_seconds = days * 86_400 + h * 3600 + mi * 60 + s;
    let seconds = match offset {
        None => local_seconds as f64 + micro as f64 / 1e6,
        Some((off_s, off_us)) => {
            // timezone() requires |offset| < 24 hours.
            if (off_s * 1_000_000 + off_us).abs() >= 86_400_000_000 {
                return None;
            }
            let total_us =
                i128::from(local_seconds - off_s) * 1_000_000 + i128::from(micro - off_us);
            let magnitude = int_true_div(u64::try_from(total_us.abs()).ok()?, 1_000_000);
            if total_us < 0 {
                -magnitude
            } else {
                magnitude
            }
        }
    };
    int_from_float(seconds * 1_000_000_000.0).ok()
}

// ── Events ──────────────────────────────────────────────────────────────────
