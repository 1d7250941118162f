//! The Lichess round id of each round, given at the roll-over (`NextRoundBroadcast`,
//! `chessclockctl round next --lichess-round ID`), for the bridge's push (`BroadcastRounds`).
//!
//! Owns the ids by round, in memory and in the state directory (`broadcast-rounds.json`
//! beside `round.json`, read and rewritten by `store::state_file`), and the check of an
//! id (`chessclock_api::broadcast`). It must not know the bus or Lichess.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chessclock_api::broadcast::{ROUND_ID_HELP, round_id_ok};

use super::{SupervisorError, SupervisorHandle};

/// The file that keeps the ids.
const FILE: &str = "broadcast-rounds.json";

/// The ids by round, shared by every handle of the supervisor.
#[derive(Debug, Clone, Default)]
pub(super) struct Broadcast {
    dir: Option<PathBuf>,
    ids: Arc<Mutex<BTreeMap<u32, String>>>,
}

impl Broadcast {
    /// The ids kept in `dir` (none without one; a damaged file is set aside and said, as every
    /// state file: `store::state_file`; an id that is not one is left out).
    pub(super) fn load(dir: Option<&Path>) -> Self {
        let mut ids = BTreeMap::new();
        if let Some(path) = dir.map(|d| d.join(FILE)) {
            let read: Option<BTreeMap<u32, String>> = crate::store::state_file::load_json(
                &path,
                "no Lichess round id is kept: give them again (`chessclockctl round next \
                 --lichess-round ID`, or `[[lichess]] rounds` in the bridge's configuration)",
            );
            ids.extend(
                read.unwrap_or_default()
                    .into_iter()
                    .filter(|(_, id)| round_id_ok(id)),
            );
        }
        Broadcast {
            dir: dir.map(Path::to_path_buf),
            ids: Arc::new(Mutex::new(ids)),
        }
    }

    fn ids(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, String>> {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every round's id.
    pub(super) fn all(&self) -> BTreeMap<u32, String> {
        self.ids().clone()
    }

    /// Keep `id` for `round` (the state directory first: an error there keeps nothing).
    pub(super) fn keep(&self, round: u32, id: &str) -> std::io::Result<()> {
        let mut ids = self.ids();
        let mut next = ids.clone();
        next.insert(round, id.to_owned());
        if let Some(dir) = &self.dir {
            crate::store::state_file::save_json(&dir.join(FILE), &next)?;
        }
        *ids = next;
        Ok(())
    }
}

/// `id`, if it is a Lichess round id; else the error that names it.
pub(super) fn check(id: &str) -> Result<(), SupervisorError> {
    if round_id_ok(id) {
        return Ok(());
    }
    let shown: String = id.chars().take(40).collect();
    Err(SupervisorError::InvalidArgument(format!(
        "{shown:?} is not a Lichess round id: {ROUND_ID_HELP} (nothing was changed)"
    )))
}

impl SupervisorHandle {
    /// The Lichess round id given for each round.
    pub fn broadcast_rounds(&self) -> BTreeMap<u32, String> {
        self.broadcast.all()
    }

    /// Roll the round over as [`SupervisorHandle::next_round`] and keep `lichess_round` as
    /// the new round's Lichess round id. A malformed id is refused, naming it, before
    /// anything changes.
    pub async fn next_round_broadcast(
        &self,
        force: bool,
        lichess_round: &str,
    ) -> Result<Vec<String>, SupervisorError> {
        check(lichess_round)?;
        let mut report = self.next_round(force).await?;
        let round = self.round();
        report.push(match self.broadcast.keep(round, lichess_round) {
            Ok(()) => format!("round {round} is Lichess round {lichess_round}"),
            Err(e) => format!(
                "round {round}'s Lichess round {lichess_round} was not kept ({e}); name it in \
                 the bridge's [[lichess]] rounds"
            ),
        });
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_and_kept_across_a_restart() {
        let dir = std::env::temp_dir().join(format!("broadcast-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let b = Broadcast::load(Some(&dir));
        assert!(b.all().is_empty());
        b.keep(4, "EfGh5678").expect("keep");
        assert_eq!(
            Broadcast::load(Some(&dir)).all(),
            [(4, "EfGh5678".to_owned())].into()
        );
        let err = check("EfGh-567").expect_err("bad").to_string();
        assert!(
            err.starts_with("\"EfGh-567\" is not a Lichess round id: 8 letters and digits"),
            "{err}"
        );
        std::fs::write(dir.join(FILE), "{ not json").expect("write");
        assert!(Broadcast::load(Some(&dir)).all().is_empty());
        assert!(!dir.join(FILE).exists(), "a damaged file is set aside");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
