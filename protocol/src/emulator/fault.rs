//! The fault layer: a deterministic, seeded corrupter of the board → host byte stream.
//!
//! Owns what can go wrong on a link: lost bytes, corrupted bytes, duplicated messages, messages
//! split in two chunks, and stalls where nothing arrives for a while. It sees whole messages as
//! the emulator releases them and keeps the stream first-in first-out (a stalled or split
//! message holds back everything behind it, as on a real wire). It must not know what the
//! bytes mean, and it never reads a clock or an OS random source: the same seed and the same
//! inputs give the same output.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// What the fault layer does, as probabilities per released message (0.0 = never).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultConfig {
    /// Drop one byte of the message.
    pub drop: f64,
    /// Replace one byte of the message by a different value.
    pub corrupt: f64,
    /// Send the message twice.
    pub duplicate: f64,
    /// Send the message in two chunks, the second `split_gap_ms` later.
    pub split: f64,
    /// Hold the message (and everything behind it) back for `stall_ms`.
    pub stall: f64,
    /// Gap between the two chunks of a split message.
    pub split_gap_ms: u64,
    /// Length of a stall.
    pub stall_ms: u64,
    /// Seed of the pseudo-random sequence.
    pub seed: u64,
}

impl Default for FaultConfig {
    fn default() -> Self {
        FaultConfig {
            drop: 0.0,
            corrupt: 0.0,
            duplicate: 0.0,
            split: 0.0,
            stall: 0.0,
            split_gap_ms: 20,
            stall_ms: 1500,
            seed: 1,
        }
    }
}

impl FaultConfig {
    /// True if no fault can ever happen.
    pub fn is_clean(&self) -> bool {
        [
            self.drop,
            self.corrupt,
            self.duplicate,
            self.split,
            self.stall,
        ]
        .iter()
        .all(|p| *p <= 0.0)
    }
}

/// A fault specification that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad fault spec {spec:?}: {reason} (expected e.g. \"drop=0.01,corrupt=0.005,seed=7\"; keys: drop, corrupt, duplicate, split, stall (probabilities 0..1), split_gap_ms, stall_ms, seed)"
)]
pub struct FaultSpecError {
    /// The whole specification given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for FaultConfig {
    type Err = FaultSpecError;

    /// Parse `key=value` pairs separated by commas, e.g. `drop=0.01,corrupt=0.005,seed=7`.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| FaultSpecError {
            spec: spec.to_owned(),
            reason,
        };
        let mut cfg = FaultConfig::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| err(format!("{item:?} is not key=value")))?;
            let prob = |v: &str| -> Result<f64, FaultSpecError> {
                let p: f64 = v
                    .parse()
                    .map_err(|_| err(format!("{key}={v}: not a number")))?;
                if (0.0..=1.0).contains(&p) {
                    Ok(p)
                } else {
                    Err(err(format!(
                        "{key}={v}: a probability must be within 0..=1"
                    )))
                }
            };
            let int = |v: &str| -> Result<u64, FaultSpecError> {
                v.parse()
                    .map_err(|_| err(format!("{key}={v}: not a whole number")))
            };
            match key {
                "drop" => cfg.drop = prob(value)?,
                "corrupt" => cfg.corrupt = prob(value)?,
                "duplicate" => cfg.duplicate = prob(value)?,
                "split" => cfg.split = prob(value)?,
                "stall" => cfg.stall = prob(value)?,
                "split_gap_ms" => cfg.split_gap_ms = int(value)?,
                "stall_ms" => cfg.stall_ms = int(value)?,
                "seed" => cfg.seed = int(value)?,
                other => return Err(err(format!("unknown key {other:?}"))),
            }
        }
        Ok(cfg)
    }
}

impl fmt::Display for FaultConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "drop={},corrupt={},duplicate={},split={},stall={},split_gap_ms={},stall_ms={},seed={}",
            self.drop,
            self.corrupt,
            self.duplicate,
            self.split,
            self.stall,
            self.split_gap_ms,
            self.stall_ms,
            self.seed
        )
    }
}

/// Counts of the faults applied so far (for tests and logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FaultStats {
    /// Bytes dropped.
    pub dropped: u64,
    /// Bytes corrupted.
    pub corrupted: u64,
    /// Messages duplicated.
    pub duplicated: u64,
    /// Messages split.
    pub split: u64,
    /// Stalls.
    pub stalled: u64,
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants), high bits used: the one
/// seeded generator of the emulator and of the seeded tests (the same seed, the same run).
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        f64::from(self.next_u32()) / (f64::from(u32::MAX) + 1.0)
    }

    /// In 0..n (0 for n = 0).
    pub fn below(&mut self, n: u64) -> u64 {
        u64::from(self.next_u32()) % n.max(1)
    }

    /// `n` bytes below 0x80: line noise that starts no DGT message.
    pub fn noise(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next_u32() >> 25) as u8).collect()
    }
}

/// The fault layer between the emulator and the wire.
#[derive(Debug, Clone)]
pub struct FaultLayer {
    cfg: FaultConfig,
    rng: Lcg,
    queue: VecDeque<(u64, Vec<u8>)>,
    stats: FaultStats,
}

impl FaultLayer {
    /// A layer applying `cfg`.
    pub fn new(cfg: FaultConfig) -> FaultLayer {
        FaultLayer {
            cfg,
            rng: Lcg::new(cfg.seed),
            queue: VecDeque::new(),
            stats: FaultStats::default(),
        }
    }

    /// Faults applied so far.
    pub fn stats(&self) -> FaultStats {
        self.stats
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.unit() < p
    }

    fn enqueue(&mut self, at: u64, bytes: Vec<u8>) {
        // First in, first out: nothing overtakes a message that is held back.
        let at = self.queue.back().map_or(at, |(last, _)| at.max(*last));
        if !bytes.is_empty() {
            self.queue.push_back((at, bytes));
        }
    }

    /// Hand one message released by the emulator at `now` to the wire.
    pub fn push(&mut self, now_ms: u64, mut bytes: Vec<u8>) {
        if self.cfg.is_clean() {
            self.enqueue(now_ms, bytes);
            return;
        }
        let mut at = now_ms;
        if self.roll(self.cfg.stall) {
            self.stats.stalled += 1;
            at = now_ms.saturating_add(self.cfg.stall_ms);
        }
        if !bytes.is_empty() && self.roll(self.cfg.drop) {
            let i = self.rng.below(bytes.len() as u64) as usize;
            bytes.remove(i);
            self.stats.dropped += 1;
        }
        if !bytes.is_empty() && self.roll(self.cfg.corrupt) {
            let i = self.rng.below(bytes.len() as u64) as usize;
            // XOR with a non-zero value always changes the byte.
            let x = u8::try_from(self.rng.below(255) + 1).unwrap_or(0xFF);
            bytes[i] ^= x;
            self.stats.corrupted += 1;
        }
        let copies = if self.roll(self.cfg.duplicate) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            if bytes.len() > 1 && self.roll(self.cfg.split) {
                self.stats.split += 1;
                let cut = 1 + self.rng.below(bytes.len() as u64 - 1) as usize;
                self.enqueue(at, bytes[..cut].to_vec());
                self.enqueue(
                    at.saturating_add(self.cfg.split_gap_ms),
                    bytes[cut..].to_vec(),
                );
            } else {
                self.enqueue(at, bytes.clone());
            }
        }
    }

    /// Bytes that reach the host by `now`.
    pub fn poll(&mut self, now_ms: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some((at, _)) = self.queue.front() {
            if *at > now_ms {
                break;
            }
            if let Some((_, bytes)) = self.queue.pop_front() {
                out.extend_from_slice(&bytes);
            }
        }
        out
    }

    /// Forget bytes not yet delivered (the link went down); the random sequence goes on.
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// When bytes held back become due, if any are.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.queue.front().map(|(at, _)| *at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_and_rejects() {
        let cfg: FaultConfig = "drop=0.01, corrupt=0.5,seed=9,stall_ms=300"
            .parse()
            .expect("valid spec");
        assert_eq!((cfg.drop, cfg.corrupt, cfg.seed), (0.01, 0.5, 9));
        assert_eq!(cfg.stall_ms, 300);
        assert_eq!(cfg.to_string().parse::<FaultConfig>(), Ok(cfg));
        for bad in ["drop", "drop=2", "drop=x", "wobble=0.1", "seed=-1"] {
            let e = bad.parse::<FaultConfig>().expect_err(bad);
            assert!(e.to_string().contains("keys:"), "{e}");
        }
    }

    #[test]
    fn clean_layer_passes_bytes_through() {
        let mut f = FaultLayer::new(FaultConfig::default());
        f.push(5, vec![1, 2, 3]);
        assert_eq!(f.poll(4), Vec::<u8>::new());
        assert_eq!(f.poll(5), vec![1, 2, 3]);
        assert_eq!(f.poll_timeout(), None);
    }

    #[test]
    fn stall_holds_back_later_messages() {
        let cfg = FaultConfig {
            stall: 1.0,
            stall_ms: 100,
            ..FaultConfig::default()
        };
        let mut f = FaultLayer::new(cfg);
        f.push(0, vec![1]);
        assert_eq!(f.poll_timeout(), Some(100));
        assert!(f.poll(99).is_empty());
        assert_eq!(f.poll(100), vec![1]);
    }
}
