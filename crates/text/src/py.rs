//! Python and numpy arithmetic, reproduced bit for bit.
//!
//! stormlog computes with Python ints (exact), Python floats, `round()` and numpy
//! reductions. Parity to the last rounding needs the same operations in the same
//! order: correctly rounded int/int division, round-half-even on the exact binary
//! value, and numpy's pairwise summation.

/// Python's `round(x, ndigits)` for a float: the exact binary value rounded half to
/// even at `ndigits` decimals, read back as the nearest float. Rust's `{:.N}`
/// formatting rounds the exact value half to even, like CPython's `_Py_dg_dtoa`.
pub fn py_round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// Python's `a / b` for two non-negative ints: the exact quotient rounded to the
/// nearest float (ties to even). `b` must be non-zero; 0 gives `inf` like a float would.
pub fn int_true_div(a: u64, b: u64) -> f64 {
    const EXACT: u64 = 1 << 53;
    if b == 0 {
        return f64::INFINITY;
    }
    if a < EXACT && b < EXACT {
        return a as f64 / b as f64;
    }
    // Long division, one bit at a time, until 55 significant bits are known; the
    // remainder then decides the sticky bit. Values stay below 2^65 in a u128.
    let (a, b) = (a as u128, b as u128);
    let mut quotient = a / b;
    let mut rem = a % b;
    let mut exp: i32 = 0; // value = quotient * 2^exp (+ remainder)
    while quotient < (1u128 << 55) {
        rem <<= 1;
        quotient <<= 1;
        exp -= 1;
        if rem >= b {
            rem -= b;
            quotient |= 1;
        }
        if quotient == 0 && rem == 0 {
            return 0.0;
        }
    }
    let sticky = rem != 0;
    // Reduce to 53 bits with round-half-even.
    let bits = 128 - quotient.leading_zeros() as i32;
    let drop = bits - 53;
    let kept = quotient >> drop;
    let dropped = quotient & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    let round_up = dropped > half || (dropped == half && (sticky || kept & 1 == 1));
    let mantissa = kept + u128::from(round_up);
    // mantissa < 2^54 fits exactly in an f64; scaling by a power of two is exact.
    (mantissa as f64) * 2f64.powi(exp + drop)
}

/// numpy's pairwise summation of a contiguous float64 array (`np.add.reduce`),
/// including its 8-way unrolled blocks of at most 128 elements.
pub fn numpy_sum(values: &[f64]) -> f64 {
    // numpy starts from the identity 0.0 and adds the pairwise sum of all elements.
    0.0 + pairwise(values)
}

fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

/// `np.mean` of a float64 array (NaN when empty).
pub fn numpy_mean(values: &[f64]) -> f64 {
    numpy_sum(values) / values.len() as f64
}

/// `np.std(values, ddof=1)`.
pub fn numpy_std_ddof1(values: &[f64]) -> f64 {
    let n = values.len();
    let mean = numpy_mean(values);
    let squares: Vec<f64> = values
        .iter()
        .map(|&x| {
            let d = x - mean;
            d * d
        })
        .collect();
    (numpy_sum(&squares) / (n as f64 - 1.0)).sqrt()
}

/// `np.median` of values already sorted ascending (NaN when empty).
pub fn numpy_median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        // np.mean of the two middle elements: (0.0 + a + b) / 2.
        (0.0 + sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Python's `repr()` of a string (quote choice and escapes).
pub fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut text = String::new();
    text.push(quote);
    for c in s.chars() {
        match c {
            '\\' => text.push_str("\\\\"),
            '\t' => text.push_str("\\t"),
            '\n' => text.push_str("\\n"),
            '\r' => text.push_str("\\r"),
            c if c == quote => {
                text.push('\\');
                text.push(c);
            }
            c if py_printable(c) => text.push(c),
            c if (c as u32) < 0x100 => text.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => text.push_str(&format!("\\u{:04x}", c as u32)),
            c => text.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    text.push(quote);
    text
}

/// An approximation of Python's `str.isprintable()` per character: control and
/// format characters, separators other than space, and unassigned/private planes
/// are not printable.
pub fn py_printable(c: char) -> bool {
    let u = c as u32;
    !(u < 0x20
        || (0x7f..0xa1).contains(&u)
        || u == 0xad
        || (0x2000..=0x200f).contains(&u)
        || (0x2028..=0x202f).contains(&u)
        || (0x205f..=0x206f).contains(&u)
        || u == 0x1680
        || u == 0x180e
        || u == 0x3000
        || u == 0xfeff
        || (0xfff9..=0xfffb).contains(&u)
        || (0xe000..=0xf8ff).contains(&u)
        || u >= 0xf0000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_matches_python_half_even_on_exact_values() {
        // Values checked against CPython 3.11.
        assert_eq!(py_round(0.125, 2), 0.12);
        assert_eq!(py_round(0.375, 2), 0.38);
        assert_eq!(py_round(2.5, 0), 2.0);
        assert_eq!(py_round(0.0625, 3), 0.062);
        assert_eq!(py_round(0.5125, 3), 0.512);
        assert_eq!(py_round(683.01355, 4), 683.0136);
        assert_eq!(py_round(0.1 + 0.2, 3), 0.3);
        assert_eq!(py_round(0.51, 3), 0.51);
        assert!(py_round(f64::NAN, 3).is_nan());
    }

    #[test]
    fn repr_of_strings_matches_python() {
        assert_eq!(py_repr_str("extreme"), "'extreme'");
        assert_eq!(py_repr_str("it's"), "\"it's\"");
        assert_eq!(py_repr_str("a\tb\u{1c}"), "'a\\tb\\x1c'");
    }

    #[test]
    fn int_division_is_correctly_rounded_beyond_2_pow_53() {
        assert_eq!(int_true_div(1, 3), 1.0 / 3.0);
        assert_eq!(int_true_div(1_610_612_736, 17_179_869_184), 0.09375);
        // (2^60 + 1) / 3 and friends, checked against CPython 3.11.
        assert_eq!(int_true_div((1 << 60) + 1, 3), 3.843071682022823e17);
        assert_eq!(int_true_div(i64::MAX as u64, (1 << 62) + 1), 2.0);
        // Exact halves round to even.
        assert_eq!(int_true_div((1 << 54) + 2, 1), 1.8014398509481984e16);
        assert_eq!(int_true_div((1 << 54) + 1, 1), 1.8014398509481984e16);
        assert_eq!(int_true_div((1 << 54) + 3, 1), 1.8014398509481988e16);
        assert_eq!(int_true_div((1 << 54) + 6, 1), 1.801439850948199e16);
        assert_eq!(int_true_div(0, 5), 0.0);
    }

    #[test]
    fn sums_match_numpy_not_naive_summation() {
        // Expected values computed with numpy 2.4 (np.sum / np.std(ddof=1)).
        let values: Vec<f64> = (0..200)
            .map(|i| 0.1 * f64::from(i) + 1e16 * f64::from(i % 3))
            .collect();
        assert_eq!(numpy_sum(&values), 1.990000000000002e18);
        assert_ne!(values.iter().sum::<f64>(), numpy_sum(&values));
        let values: Vec<f64> = (0..1000)
            .map(|i| f64::from(i * i % 97) * 1e-3 + 1e8)
            .collect();
        assert_eq!(numpy_sum(&values), 100000000047.84);
        assert_eq!(numpy_std_ddof1(&values), 0.030373193109349376);
        assert_eq!(numpy_median_sorted(&[1.0, 2.0, 4.0, 8.0]), 3.0);
        assert_eq!(numpy_median_sorted(&[1.0, 2.0, 4.0]), 2.0);
        assert_eq!(
            numpy_std_ddof1(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),
            2.138089935299395
        );
    }
}
