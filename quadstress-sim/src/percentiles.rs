//! A record of many durations in bounded memory, for percentiles over runs of any length: the
//! demo's reports take the number of frames from the user, so their storage must not grow
//! with it.

use super::percentile;

/// Mantissa bits kept by a bucket: each bucket spans `2^-8` of its value, so a bucket's
/// midpoint is within `2^-9` (about 0.2%) of every value in it.
const MANTISSA_BITS: u32 = 8;
/// Binary exponents covered by the buckets: values from `2^-32` up to `2^32`.
const MIN_EXPONENT: i32 = -32;
const EXPONENTS: usize = 64;
const BUCKETS: usize = EXPONENTS << MANTISSA_BITS;

/// Non-negative values (durations in any unit), recorded one by one, with their count, mean
/// and nearest-rank percentiles, in memory that never grows past a fixed bound however many
/// values arrive.
///
/// The first [`EXACT_LIMIT`](Self::EXACT_LIMIT) values are kept as they are, and the
/// percentiles are exact ([`percentile`]'s rule). Past that the values move into a fixed
/// log-scale histogram (16,384 buckets, 128 KiB): a percentile is then the midpoint of the
/// bucket holding the nearest-rank value, within 0.2% of it for values between `2^-32` and
/// `2^32`, and never outside the smallest and largest values recorded. NaN and negative
/// values count as 0; the count saturates at `u64::MAX`.
///
/// # Runtime
/// [`record`](Self::record) is O(1) (amortised while the exact values grow; once, when they
/// move into the histogram, O(`EXACT_LIMIT`)). A percentile sorts the exact values, or walks
/// the histogram's buckets.
///
/// ```
/// use quadstress_sim::Percentiles;
/// let mut times = Percentiles::with_capacity(5);
/// for ms in [5.0, 1.0, 4.0, 2.0, 3.0] {
///     times.record(ms);
/// }
/// assert_eq!(times.len(), 5);
/// assert_eq!(times.percentile(0.5), Some(3.0));
/// assert_eq!(times.percentile(0.99), Some(5.0));
/// assert_eq!(times.mean(), Some(3.0));
/// assert_eq!(Percentiles::new().percentile(0.5), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Percentiles {
    /// The values while there are at most `EXACT_LIMIT`; empty once `buckets` holds them.
    exact: Vec<f64>,
    /// Counts by bucket; empty until the exact values overflow.
    buckets: Vec<u64>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Percentiles {
    /// How many values are kept exactly (8 bytes each) before the histogram takes over.
    pub const EXACT_LIMIT: usize = 1 << 16;

    /// An empty record; allocates nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty record with room for `expected` values, up to
    /// [`EXACT_LIMIT`](Self::EXACT_LIMIT) of them: a count the user typed reserves at most
    /// 512 KiB.
    ///
    /// ```
    /// let huge = quadstress_sim::Percentiles::with_capacity(u64::MAX);
    /// assert!(huge.is_empty());
    /// ```
    pub fn with_capacity(expected: u64) -> Self {
        let room =
            usize::try_from(expected).map_or(Self::EXACT_LIMIT, |n| n.min(Self::EXACT_LIMIT));
        Percentiles {
            exact: Vec::with_capacity(room),
            ..Self::default()
        }
    }

    /// Records one value; NaN and negative values count as 0, infinity as `f64::MAX`.
    pub fn record(&mut self, value: f64) {
        let value = if value > 0.0 {
            value.min(f64::MAX)
        } else {
            0.0
        };
        if self.count == 0 {
            (self.min, self.max) = (value, value);
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count = self.count.saturating_add(1);
        self.sum += value;
        if self.buckets.is_empty() {
            if self.exact.len() < Self::EXACT_LIMIT {
                self.exact.push(value);
                return;
            }
            self.buckets = vec![0; BUCKETS];
            for v in std::mem::take(&mut self.exact) {
                self.buckets[bucket_of(v)] += 1;
            }
        }
        let b = &mut self.buckets[bucket_of(value)];
        *b = b.saturating_add(1);
    }

    /// Number of values recorded.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The mean of the values; `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// The `p`-th percentile (`0.5` for the median) by the nearest-rank rule, exact or within
    /// the histogram's precision (see the [type docs](Self)); `None` when empty.
    ///
    /// ```
    /// use quadstress_sim::Percentiles;
    /// let mut times = Percentiles::new();
    /// // Past the exact limit: 0.5% of the values are 100, the rest 1 to 2.
    /// for i in 0..200_000u32 {
    ///     times.record(if i % 200 == 0 { 100.0 } else { 1.0 + f64::from(i % 1000) / 1000.0 });
    /// }
    /// let median = times.percentile(0.5).unwrap();
    /// assert!((median - 1.5).abs() <= 1.5 * 0.002, "{median}");
    /// assert_eq!(times.percentile(1.0), Some(100.0));
    /// ```
    pub fn percentile(&mut self, p: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        if self.buckets.is_empty() {
            return percentile(&mut self.exact, p);
        }
        let rank = (self.count as f64 * p.clamp(0.0, 1.0)).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen = seen.saturating_add(n);
            if seen >= rank {
                return Some(bucket_midpoint(i).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

/// The bucket of a non-negative value: its binary exponent and top mantissa bits, clamped
/// into the covered range.
fn bucket_of(value: f64) -> usize {
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exponent < MIN_EXPONENT {
        return 0;
    }
    let e = (exponent - MIN_EXPONENT) as usize;
    if e >= EXPONENTS {
        return BUCKETS - 1;
    }
    let mantissa = ((bits >> (52 - MANTISSA_BITS)) & ((1 << MANTISSA_BITS) - 1)) as usize;
    (e << MANTISSA_BITS) | mantissa
}

/// The middle of a bucket's range of values.
fn bucket_midpoint(bucket: usize) -> f64 {
    let e = (bucket >> MANTISSA_BITS) as i32 + MIN_EXPONENT;
    let mantissa = (bucket & ((1 << MANTISSA_BITS) - 1)) as f64;
    let scale = 2f64.powi(e);
    scale * (1.0 + (mantissa + 0.5) / f64::from(1u32 << MANTISSA_BITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_midpoint_lies_in_its_bucket() {
        for b in 1..BUCKETS - 1 {
            assert_eq!(bucket_of(bucket_midpoint(b)), b);
        }
    }

    #[test]
    fn histogram_percentiles_stay_within_their_precision_of_the_exact_ones() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut all = Vec::new();
        let mut record = Percentiles::new();
        for _ in 0..3 * Percentiles::EXACT_LIMIT {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            // Spread over six decades, as frame times of tiny and huge runs are.
            let v = 10f64.powf((rng >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0);
            all.push(v);
            record.record(v);
        }
        assert!(!record.buckets.is_empty() && record.exact.capacity() == 0);
        for p in [0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let exact = percentile(&mut all, p).unwrap();
            let got = record.percentile(p).unwrap();
            assert!(
                (got - exact).abs() <= exact / 512.0,
                "p{p}: {got} against {exact}"
            );
        }
        assert_eq!(record.len(), all.len() as u64);
    }

    #[test]
    fn odd_values_are_counted_without_harm() {
        let mut record = Percentiles::new();
        for v in [f64::NAN, -1.0, f64::INFINITY, 0.0, 1e-300, 1e300] {
            record.record(v);
        }
        assert_eq!(record.len(), 6);
        assert_eq!(record.percentile(0.0), Some(0.0));
        assert_eq!(record.percentile(1.0), Some(f64::MAX));
    }
}
