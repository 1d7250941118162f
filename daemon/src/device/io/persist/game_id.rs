//! Where a game's id (its PGN `GameId`, docs/relay.md) comes from: a fresh one for a journal
//! that starts anew, from a random seed (the process's random hash keys, the store's name and
//! the wall clock), kept in the journal's start record; for a journal written before ids, one
//! derived from its start, the same at every restart. The session makes the next games' ids
//! from the seed ([`crate::device::session`]'s record), without reading a clock.
//!
//! IO layer: reads the wall clock through its callers and the process's randomness.

use std::hash::{BuildHasher, Hasher};

use super::GameStart;

/// A random seed for the ids of the games of the journal `store` (an empty store: a clock
/// without a state directory), at wall time `wall_ms`.
pub(crate) fn seed(store: &str, wall_ms: u64) -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write(store.as_bytes());
    h.write_u64(wall_ms);
    h.finish()
}

/// The id of the game that started with `start` in the journal `store`: the one it keeps,
/// or for a journal written before ids, one made of the start itself.
pub(crate) fn of_start(store: &str, start: &GameStart) -> String {
    match &start.game_id {
        Some(id) if !id.is_empty() => id.clone(),
        _ => {
            // FNV-1a over the store's name and the start's times: the same every time.
            let mut x: u64 = 0xcbf2_9ce4_8422_2325;
            for b in store
                .bytes()
                .chain(start.wall_ms.to_le_bytes())
                .chain(start.t_ms.to_le_bytes())
            {
                x = (x ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            text(x)
        }
    }
}

/// An id's text: 16 hexadecimal digits.
pub(crate) fn text(x: u64) -> String {
    format!("{x:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation;

    #[test]
    fn a_journal_without_an_id_gets_the_same_one_every_time_and_seeds_differ() {
        let start = GameStart {
            control: notation::parse("G/5").expect("notation").control,
            t_ms: 0,
            wall_ms: 1_777_000_000_000,
            game_id: None,
        };
        let a = of_start("clock-dev_ttyACM0", &start);
        assert_eq!(a, of_start("clock-dev_ttyACM0", &start));
        assert_eq!(a.len(), 16);
        assert_ne!(a, of_start("clock-dev_ttyACM1", &start));
        let kept = GameStart {
            game_id: Some("00000000000000aa".into()),
            ..start
        };
        assert_eq!(of_start("clock-dev_ttyACM0", &kept), "00000000000000aa");
        assert_ne!(seed("s", 1), seed("s", 1), "random keys each time");
    }
}
