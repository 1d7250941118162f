//! What the records of one board and its clock's signals say: press → set-and-run latency,
//! when the daemon timestamped each press against when its lever change was written (so a
//! latency splits into the way in and the rest), and conservation (time charged against time
//! elapsed).
//!
//! Pure functions over the logs (tested on synthetic inputs); no IO, no clock.

use crate::board::{Half, Press};
use crate::bus::ClockSignals;

/// The latency of one press: from its lever change written to the first set-and-run read
/// before the next press that no longer runs the half that pressed (it runs the other half,
/// or holds both, as during a US delay); `None` when none came. A set-and-run for the
/// pressing half is a refresh the daemon sent before it saw the press.
pub fn press_latencies(
    presses: &[Press],
    set_and_runs: &[(u64, Option<Half>)],
) -> Vec<(u64, Option<u64>)> {
    let mut out = Vec::with_capacity(presses.len());
    let mut j = 0usize;
    for (i, p) in presses.iter().enumerate() {
        let next_press = presses.get(i + 1).map_or(u64::MAX, |n| n.t_us);
        while j < set_and_runs.len() && set_and_runs[j].0 < p.t_us {
            j += 1;
        }
        let answer = set_and_runs[j..]
            .iter()
            .take_while(|(t, _)| *t < next_press)
            .find(|(_, half)| p.expect.is_some_and(|e| *half != Some(e.other())))
            .map(|(t, _)| t - p.t_us);
        out.push((p.t_us, answer));
    }
    out
}

/// For the k-th press (1-based), the daemon's instant for it: the `as_of_us` of the first
/// snapshot with k moves made in all. Returns, per press (one entry each, in order), that
/// instant minus the instant the lever change was written, in µs (negative: the daemon read it
/// before the bench's write call returned); `None` when no snapshot has that many moves.
pub fn stamp_lags(presses: &[Press], sig: &ClockSignals) -> Vec<Option<i64>> {
    presses
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let k = i as u64 + 1;
            let at = sig
                .snaps
                .iter()
                .filter(|(_, moves)| *moves == k)
                .map(|(s, _)| s.as_of_us)
                .min()?;
            Some(at as i64 - p.t_us as i64)
        })
        .collect()
}

/// Conservation of one game: the time the engine charged for all presses (the sum of the
/// `Pressed` move times) minus the time that elapsed on the daemon's clock between the
/// game's start (first running snapshot with no move made) and the last press (first
/// snapshot with all of them made), in ms. `None` without a press or those snapshots.
pub fn conservation_ms(sig: &ClockSignals) -> Option<f64> {
    let n = sig.pressed.len() as u64;
    if n == 0 {
        return None;
    }
    let start = sig
        .snaps
        .iter()
        .filter(|(s, moves)| *moves == 0 && s.running.is_some())
        .map(|(s, _)| s.as_of_us)
        .min()?;
    let last = sig
        .snaps
        .iter()
        .filter(|(_, moves)| *moves == n)
        .map(|(s, _)| s.as_of_us)
        .min()?;
    let charged_ms: u64 = sig.pressed.iter().map(|p| p.move_ms).sum();
    let elapsed_ms = last.saturating_sub(start) as f64 / 1000.0;
    Some(charged_ms as f64 - elapsed_ms)
}

/// Sum of `(t, bytes)` entries with `from <= t < to`.
pub fn bytes_between(entries: &[(u64, u32)], from: u64, to: u64) -> u64 {
    entries
        .iter()
        .filter(|(t, _)| (from..to).contains(t))
        .map(|(_, n)| u64::from(*n))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::PressedSignal;
    use crate::fidelity::{EngineSnap, Side};

    fn press(t_us: u64, expect: Option<Half>) -> Press {
        Press { t_us, expect }
    }

    #[test]
    fn each_press_is_answered_by_the_first_matching_set_and_run() {
        let presses = [
            press(1_000, Some(Half::Right)),
            press(10_000, Some(Half::Left)),
            press(20_000, Some(Half::Right)),
        ];
        let sars = [
            (500, Some(Half::Left)),    // before the first press: not an answer
            (1_200, Some(Half::Left)),  // a refresh of the old half: skipped
            (1_900, Some(Half::Right)), // the answer: 900 µs
            (2_500, Some(Half::Right)), // a later refresh: ignored
            (25_000, Some(Half::Left)), // the wrong half for the third press
        ];
        let got = press_latencies(&presses, &sars);
        assert_eq!(
            got,
            vec![(1_000, Some(900)), (10_000, None), (20_000, None)],
            "the second press got no answer before the third"
        );
        // An answer after the next press belongs to nobody.
        let late = press_latencies(
            &presses[..2],
            &[(10_500, Some(Half::Right)), (10_600, Some(Half::Left))],
        );
        assert_eq!(late, vec![(1_000, None), (10_000, Some(600))]);
    }

    fn snap(as_of_us: u64) -> EngineSnap {
        EngineSnap {
            as_of_us,
            white_ms: 1,
            black_ms: 1,
            running: Some(Side::White),
            run: None,
        }
    }

    fn signals(move_ms: &[u64], snaps: &[(u64, u64)]) -> ClockSignals {
        ClockSignals {
            pressed: move_ms
                .iter()
                .enumerate()
                .map(|(i, &m)| PressedSignal {
                    r#move: i as u32 + 1,
                    move_ms: m,
                })
                .collect(),
            snaps: snaps.iter().map(|&(t, k)| (snap(t), k)).collect(),
        }
    }

    #[test]
    fn conservation_compares_charged_with_elapsed() {
        // Start at 1 s; presses charged 2.5 s and 3 s; the second press's snapshot at 6.5 s.
        let sig = signals(
            &[2_500, 3_000],
            &[
                (1_000_000, 0),
                (1_400_000, 0),
                (3_500_000, 1),
                (6_500_000, 2),
                (6_900_000, 2),
            ],
        );
        assert_eq!(conservation_ms(&sig), Some(0.0));
        let short = signals(&[2_500, 2_999], &[(1_000_000, 0), (6_500_000, 2)]);
        assert_eq!(conservation_ms(&short), Some(-1.0));
        assert_eq!(conservation_ms(&signals(&[], &[(1, 0)])), None);
        assert_eq!(
            conservation_ms(&signals(&[5], &[(1, 0)])),
            None,
            "no snapshot after it"
        );
    }

    #[test]
    fn stamp_lag_uses_the_first_snapshot_with_that_many_moves() {
        let sig = signals(&[1, 1], &[(100, 0), (1_300, 1), (1_900, 1), (4_990, 2)]);
        let lags = stamp_lags(
            &[
                press(1_000, Some(Half::Right)),
                press(5_000, Some(Half::Left)),
                press(9_000, Some(Half::Right)),
            ],
            &sig,
        );
        assert_eq!(
            lags,
            vec![Some(300), Some(-10), None],
            "one entry per press"
        );
    }

    #[test]
    fn bytes_are_summed_in_a_window() {
        let e = [(5, 10), (10, 20), (15, 40), (20, 80)];
        assert_eq!(bytes_between(&e, 10, 20), 60);
        assert_eq!(bytes_between(&e, 0, 100), 150);
        assert_eq!(bytes_between(&e, 30, 40), 0);
    }
}
