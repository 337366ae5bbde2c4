//! Little-endian packing of values for `postMessage` between the browser's workers and
//! the page (parsed trace ranges, result rows): bytes travel as one transferable
//! buffer, far cheaper than thousands of JavaScript objects.

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
}

impl Reader<'_> {
    pub fn f64(&mut self) -> Result<f64, Malformed> {
        self.array().map(f64::from_le_bytes)
    }
}
