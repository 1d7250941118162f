//! Order statistics of a sample (p50, p99, max) as the report shows them.
//!
//! Owns the percentile definition (nearest rank) only; it does no IO and reads no clock.

use serde::Serialize;

/// p50 / p99 / max of a sample, in the sample's unit; `count` says how many values it has.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Number of values.
    pub count: usize,
    /// Median (nearest rank); `None` for an empty sample.
    pub p50: Option<f64>,
    /// 99th percentile (nearest rank).
    pub p99: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

/// The value at percentile `p` (0-100] of `sorted` by the nearest-rank method: the smallest
/// value with at least `p` % of the sample at or below it. `None` for an empty sample.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    // rank = ceil(p/100 * n), at least 1; computed in integers where possible.
    let rank = ((p / 100.0) * n as f64).ceil().max(1.0) as usize;
    sorted.get(rank.min(n) - 1).copied()
}

/// Summarise `values` (any order; NaNs are dropped).
pub fn summarize(values: &[f64]) -> Summary {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    Summary {
        count: v.len(),
        p50: percentile(&v, 50.0),
        p99: percentile(&v, 99.0),
        max: v.last().copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&v, 0.1), Some(1.0));
        // Small samples: p99 of 10 values is the largest, p50 the 5th.
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&ten, 99.0), Some(10.0));
        assert_eq!(percentile(&ten, 50.0), Some(5.0));
        assert_eq!(percentile(&[7.0], 50.0), Some(7.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn summary_sorts_and_ignores_nan() {
        let s = summarize(&[3.0, f64::NAN, 1.0, 2.0, 100.0]);
        assert_eq!(s.count, 4);
        assert_eq!(s.p50, Some(2.0));
        assert_eq!(s.p99, Some(100.0));
        assert_eq!(s.max, Some(100.0));
        let empty = summarize(&[]);
        assert_eq!((empty.count, empty.p50, empty.max), (0, None, None));
    }
}
