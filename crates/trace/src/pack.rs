//! Little-endian packing of values for `postMessage` between the browser's workers and
//! the page: every binary payload (parsed trace ranges, result rows, explorer points,
//! timeline windows and overviews) is written with [`Writer`] and read with [`Reader`],
//! so bytes travel as one transferable buffer, far cheaper than thousands of
//! JavaScript objects, and the web crate only moves them.

/// The bytes do not hold what the reader expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

/// Appends little-endian values to a byte buffer.
pub struct Writer(Vec<u8>);

impl Writer {
    pub fn with_capacity(bytes: usize) -> Writer {
        Writer(Vec::with_capacity(bytes))
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn i128(&mut self, v: i128) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Reads what a [`Writer`] wrote; every read is bounds-checked.
pub struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    pub fn new(bytes: &'b [u8]) -> Reader<'b> {
        Reader(bytes)
    }
    /// Everything was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn take(&mut self, n: usize) -> Result<&'b [u8], Malformed> {
        if self.0.len() < n {
            return Err(Malformed);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    pub fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u32(&mut self) -> Result<u32, Malformed> {
        self.array().map(u32::from_le_bytes)
    }
    pub fn u64(&mut self) -> Result<u64, Malformed> {
        self.array().map(u64::from_le_bytes)
    }
    pub fn i64(&mut self) -> Result<i64, Malformed> {
        self.array().map(i64::from_le_bytes)
    }
    pub fn i128(&mut self) -> Result<i128, Malformed> {
        self.array().map(i128::from_le_bytes)
    }
    pub fn str(&mut self) -> Result<String, Malformed> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?)
            .map(str::to_string)
            .map_err(|_| Malformed)
    }
    /// A count of items that each take at least `min_bytes`: never more than fit.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, Malformed> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes) > self.0.len() {
            return Err(Malformed);
        }
        Ok(n)
    }
}

impl Writer {
    pub fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Raw bytes, no length (the reader knows how many).
    pub fn bytes(&mut self, v: &[u8]) {
        self.0.extend_from_slice(v);
    }
    /// A column of values, no length (the reader knows how many).
    pub fn f64s(&mut self, v: &[f64]) {
        v.iter().for_each(|&x| self.f64(x));
    }
    pub fn f32s(&mut self, v: &[f32]) {
        v.iter().for_each(|&x| self.f32(x));
    }
    pub fn u32s(&mut self, v: &[u32]) {
        v.iter().for_each(|&x| self.u32(x));
    }
    pub fn u16s(&mut self, v: &[u16]) {
        v.iter().for_each(|&x| self.u16(x));
    }
}

impl Reader<'_> {
    pub fn f64(&mut self) -> Result<f64, Malformed> {
        self.array().map(f64::from_le_bytes)
    }
    pub fn f32(&mut self) -> Result<f32, Malformed> {
        self.array().map(f32::from_le_bytes)
    }
    pub fn u16(&mut self) -> Result<u16, Malformed> {
        self.array().map(u16::from_le_bytes)
    }
    /// `n` values of `N` bytes each, decoded by `f`; all of them or [`Malformed`].
    fn column<const N: usize, T>(
        &mut self,
        n: usize,
        f: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, Malformed> {
        let bytes = self.take(n.checked_mul(N).ok_or(Malformed)?)?;
        Ok(bytes
            .chunks_exact(N)
            .map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                f(a)
            })
            .collect())
    }
    /// What [`Writer::f64s`] and its siblings wrote, `n` values.
    pub fn f64s(&mut self, n: usize) -> Result<Vec<f64>, Malformed> {
        self.column(n, f64::from_le_bytes)
    }
    pub fn f32s(&mut self, n: usize) -> Result<Vec<f32>, Malformed> {
        self.column(n, f32::from_le_bytes)
    }
    pub fn u32s(&mut self, n: usize) -> Result<Vec<u32>, Malformed> {
        self.column(n, u32::from_le_bytes)
    }
    pub fn u16s(&mut self, n: usize) -> Result<Vec<u16>, Malformed> {
        self.column(n, u16::from_le_bytes)
    }
    /// `n` groups of `N` bytes.
    pub fn arrays<const N: usize>(&mut self, n: usize) -> Result<Vec<[u8; N]>, Malformed> {
        self.column(n, |a| a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_and_short_buffers_are_malformed() {
        let mut w = Writer::with_capacity(0);
        w.u8(7);
        w.u16(0xBEEF);
        w.u32(u32::MAX);
        w.u64(1 << 40);
        w.i64(-3);
        w.i128(i128::MIN);
        w.f32(-0.5);
        w.f64(f64::NEG_INFINITY);
        w.str("µs");
        w.f32s(&[1.0, f32::NAN]);
        w.u16s(&[1, 2, 3]);
        w.bytes(&[9, 8]);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u8(), Ok(7));
        assert_eq!(r.u16(), Ok(0xBEEF));
        assert_eq!(r.u32(), Ok(u32::MAX));
        assert_eq!(r.u64(), Ok(1 << 40));
        assert_eq!(r.i64(), Ok(-3));
        assert_eq!(r.i128(), Ok(i128::MIN));
        assert_eq!(r.f32(), Ok(-0.5));
        assert_eq!(r.f64(), Ok(f64::NEG_INFINITY));
        assert_eq!(r.str().as_deref(), Ok("µs"));
        let floats = r.f32s(2).unwrap_or_default();
        assert_eq!(floats[0], 1.0);
        assert!(floats[1].is_nan());
        assert_eq!(r.u16s(3), Ok(vec![1, 2, 3]));
        assert_eq!(r.arrays::<2>(1), Ok(vec![[9, 8]]));
        assert!(r.is_empty());
        assert_eq!(r.u8(), Err(Malformed));
        assert_eq!(Reader::new(&bytes[..2]).u32(), Err(Malformed));
        // A count that cannot fit in what is left.
        assert_eq!(Reader::new(&[5, 0, 0, 0, 1]).count(1), Err(Malformed));
        assert_eq!(Reader::new(&[0; 3]).u16s(usize::MAX), Err(Malformed));
    }
}
