//! Numbers as people read them: bytes in binary units (memory is counted in GiB),
//! durations in the unit that fits, and the decimal strings the page's test hooks carry.

/// `1610612736` → `1.50 GiB`; negative values keep their sign.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let sign = if bytes < 0 { "−" } else { "" };
    let mut value = bytes.unsigned_abs() as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{sign}{} B", bytes.unsigned_abs())
    } else {
        let digits = if value >= 100.0 {
            0
        } else if value >= 10.0 {
            1
        } else {
            2
        };
        format!("{sign}{value:.digits$} {}", UNITS[unit])
    }
}

/// File sizes in decimal units, as file managers show them (`1.2 MB`).
pub fn format_file_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `245_000_000` → `245 ms`, `1_500_000_000` → `1.50 s`, `350_000` → `350 µs`.
pub fn format_duration(ns: i64) -> String {
    let abs = ns.unsigned_abs() as f64;
    let sign = if ns < 0 { "−" } else { "" };
    let (value, unit) = if abs >= 1e9 {
        (abs / 1e9, "s")
    } else if abs >= 1e6 {
        (abs / 1e6, "ms")
    } else if abs >= 1e3 {
        (abs / 1e3, "µs")
    } else {
        return format!("{sign}{} ns", ns.unsigned_abs());
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{sign}{value:.digits$} {unit}")
}

/// A float as the shortest decimal that reads back as the same value, never in
/// exponent form (test hooks compare it with Python's output by value).
pub fn plain_decimal(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    // Rust's Display for f64 is the shortest round-trip form and never uses exponents.
    let s = x.to_string();
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_durations_and_decimals() {
        assert_eq!(format_bytes(1_610_612_736), "1.50 GiB");
        assert_eq!(format_bytes(134_217_728), "128 MiB");
        assert_eq!(format_bytes(-20 * 1024 * 1024), "−20.0 MiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_file_size(391_410), "391.4 kB");
        assert_eq!(format_duration(245_000_000), "245 ms");
        assert_eq!(format_duration(1_500_000_000), "1.50 s");
        assert_eq!(format_duration(350_000), "350 µs");
        assert_eq!(format_duration(12), "12 ns");
        assert_eq!(plain_decimal(0.09375), "0.09375");
        assert_eq!(plain_decimal(1e-7), "0.0000001");
        assert_eq!(plain_decimal(1.0), "1");
    }
}
