//! The next round's pairings, kept for the roll-over.
//!
//! Owns the pairings loaded for a round after the current one while the current round is
//! being played (`LoadPairings` of round R+1 once a game of round R has started): their text
//! and format, by round, in memory and in the state directory (`pairings-round-N.json`
//! beside `round.json`, read and rewritten by `store::state_file`), so that `NextRound`
//! applies them to the new games, after a restart too. It only keeps them: parsing, matching
//! them to the clocks and applying them are `round.rs`'s; it must not know the bus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A round's pairings as they were loaded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Stored {
    /// The round they are for.
    pub(super) round: u32,
    /// The format given (`csv`, `pgn`, `trf`, `auto`).
    pub(super) format: String,
    /// The file's text.
    pub(super) content: String,
}

/// The kept pairings, shared by every handle of the supervisor.
#[derive(Debug, Clone, Default)]
pub(super) struct Pending {
    dir: Option<PathBuf>,
    rounds: Arc<Mutex<BTreeMap<u32, Stored>>>,
}

/// The file that keeps round `round`'s pairings.
fn file(dir: &Path, round: u32) -> PathBuf {
    dir.join(format!("pairings-round-{round}.json"))
}

impl Pending {
    /// The pairings kept in `dir` (none without one; a damaged file is set aside and said, as
    /// every state file: `store::state_file`).
    pub(super) fn load(dir: Option<&Path>) -> Self {
        let mut rounds = BTreeMap::new();
        if let Some(entries) = dir.and_then(|d| std::fs::read_dir(d).ok()) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !(name.starts_with("pairings-round-") && name.ends_with(".json")) {
                    continue;
                }
                let read: Option<Stored> = crate::store::state_file::load_json(
                    &entry.path(),
                    "those pairings are not kept: load them again (`chessclockctl round load \
                     FILE --round N`)",
                );
                if let Some(s) = read {
                    rounds.insert(s.round, s);
                }
            }
        }
        Pending {
            dir: dir.map(Path::to_path_buf),
            rounds: Arc::new(Mutex::new(rounds)),
        }
    }

    fn rounds(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Stored>> {
        self.rounds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keep `stored` (replacing what its round had); written to the state directory first:
    /// an error there keeps nothing.
    pub(super) fn keep(&self, stored: Stored) -> std::io::Result<()> {
        if let Some(dir) = &self.dir {
            crate::store::state_file::save_json(&file(dir, stored.round), &stored)?;
        }
        self.rounds().insert(stored.round, stored);
        Ok(())
    }

    /// Round `round`'s kept pairings.
    pub(super) fn get(&self, round: u32) -> Option<Stored> {
        self.rounds().get(&round).cloned()
    }

    /// Forget round `round`'s pairings (applied, or replaced by pairings applied at once).
    pub(super) fn forget(&self, round: u32) {
        if self.rounds().remove(&round).is_some()
            && let Some(dir) = &self.dir
            && let Err(e) = std::fs::remove_file(file(dir, round))
        {
            tracing::warn!("cannot remove round {round}'s kept pairings: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_pairings_survive_a_restart_and_are_forgotten() {
        let dir = std::env::temp_dir().join(format!("pending-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let p = Pending::load(Some(&dir));
        assert_eq!(p.get(4), None);
        let four = Stored {
            round: 4,
            format: "csv".into(),
            content: "board,white,black\n1,A,B\n".into(),
        };
        p.keep(four.clone()).expect("keep");
        std::fs::write(dir.join("pairings-round-9.json"), "{ not json").expect("write");
        let again = Pending::load(Some(&dir));
        assert_eq!(again.get(4), Some(four));
        assert_eq!(again.get(9), None, "a bad file is left out");
        assert!(
            !dir.join("pairings-round-9.json").exists(),
            "a bad file is set aside"
        );
        again.forget(4);
        assert_eq!(Pending::load(Some(&dir)).get(4), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
