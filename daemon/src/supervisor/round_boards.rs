//! The current round's boards: every board of its pairings, e-board or paper board, with its
//! players and its result, and what goes back to the pairing program.
//!
//! Owns the round's sheet: the pairings applied to the current round (their text and format,
//! as loaded), which of their boards had no clock when they were applied (the **paper
//! boards**: played without an e-board, their result entered by hand) and those boards'
//! results, in memory and in the state directory (`round-boards.json` beside `round.json`,
//! read and rewritten by `store::state_file`), so that a restart keeps them. A board's
//! result by its number ([`SupervisorHandle::set_board_result`]): a paper board's is kept
//! here, an e-board's is the arbiter's result through its clock's own request. Each paper
//! board's game (a result-only PGN, `chessclock_game::pairings::paper_pgn`) goes to the live
//! folder as its board's file, beside the e-boards' (the registry writes it), and to the bus
//! (`PaperGames`) for the bridge. A clock attached later with a paper board's number makes
//! it an e-board (the registry gives the clock the pairing's players, [`Sheet::paper_tags`]);
//! when that clock is detached, the board is a paper board again. The exports (CSV, the TRF with the round's results) are the
//! game crate's; this module gathers the results. It must not know the bus.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chessclock_game::pairings::{self, BoardResult, Format, Pairing};

use super::{SupervisorError, SupervisorHandle};
use crate::device::Request;
use crate::engine::GameResult;

/// The file that keeps the sheet.
const FILE: &str = "round-boards.json";

/// The current round's pairings as applied, and its paper boards.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Stored {
    /// The round.
    pub(super) round: u32,
    /// The pairings' format (`csv`, `pgn`, `trf`).
    pub(super) format: String,
    /// The pairings' text.
    pub(super) content: String,
    /// The boards that had no clock when the pairings were applied.
    pub(super) paper: BTreeSet<u32>,
    /// The paper boards' results.
    #[serde(default)]
    pub(super) results: BTreeMap<u32, GameResult>,
    /// The paper boards whose result is a forfeit (`+-`, `-+`: the game was not played).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub(super) forfeits: BTreeSet<u32>,
}

impl Stored {
    /// The pairings, as they read when they were applied.
    pub(super) fn pairings(&self) -> Vec<Pairing> {
        let format = Format::from_name(&self.format).ok().flatten();
        pairings::parse_all(&self.content, format, self.round).0
    }
}

/// The sheet, shared by every handle of the supervisor.
#[derive(Debug, Clone, Default)]
pub(super) struct Sheet {
    dir: Option<PathBuf>,
    stored: Arc<Mutex<Option<Stored>>>,
}

impl Sheet {
    /// The sheet kept in `dir` (none without one; a damaged file is set aside and said, as
    /// every state file: `store::state_file`).
    pub(super) fn load(dir: Option<&Path>) -> Self {
        let stored = dir.map(|d| d.join(FILE)).and_then(|path| {
            crate::store::state_file::load_json::<Stored>(
                &path,
                "the round's sheet is not kept: load the round's pairings again and set its \
                 paper boards' results",
            )
        });
        Sheet {
            dir: dir.map(Path::to_path_buf),
            stored: Arc::new(Mutex::new(stored)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Stored>> {
        self.stored
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The game information of `round`'s paper board `board` (its pairing's tags), if it
    /// is one: a clock attached with its number takes them.
    pub(super) fn paper_tags(&self, round: u32, board: u32) -> Option<Vec<(String, String)>> {
        let stored = self.get(round).filter(|s| s.paper.contains(&board))?;
        let pairing = stored.pairings().into_iter().find(|p| p.board == board)?;
        Some(pairing.tags(round))
    }

    /// The round of the sheet kept (the current round's, as the roll-over keeps or forgets
    /// it): what rebuilds a damaged round file.
    pub(super) fn current_round(&self) -> Option<u32> {
        self.lock().as_ref().map(|s| s.round)
    }

    /// The sheet of `round` (none: no pairings applied to it).
    pub(super) fn get(&self, round: u32) -> Option<Stored> {
        self.lock().clone().filter(|s| s.round == round)
    }

    /// Replace the sheet (the state directory first: an error there changes nothing).
    pub(super) fn set(&self, stored: Option<Stored>) -> std::io::Result<()> {
        let mut now = self.lock();
        if let Some(dir) = &self.dir {
            match &stored {
                Some(s) => crate::store::state_file::save_json(&dir.join(FILE), s)?,
                None => crate::store::state_file::remove(&dir.join(FILE))?,
            }
        }
        *now = stored;
        Ok(())
    }
}

/// One board of the current round as `round show` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundBoard {
    /// The board number.
    pub board: u32,
    /// White's name (`?` unknown).
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The result, if any.
    pub result: Option<GameResult>,
    /// The clock (number, name); `None`: a paper board.
    pub clock: Option<(u32, String)>,
    /// The (paper board's) result is a forfeit.
    pub forfeit: bool,
}

/// The result a board is given: `1-0`, `0-1`, `1/2-1/2`, a forfeit `+-` or `-+` (`true`:
/// the game was not played), or `*` (none yet).
fn parse_result(text: &str) -> Result<Option<(GameResult, bool)>, SupervisorError> {
    match text.trim() {
        "*" => return Ok(None),
        "+-" => return Ok(Some((GameResult::WhiteWins, true))),
        "-+" => return Ok(Some((GameResult::BlackWins, true))),
        _ => {}
    }
    text.trim()
        .parse::<GameResult>()
        .map(|r| Some((r, false)))
        .map_err(|_| {
            SupervisorError::InvalidArgument(format!(
                "{:?} is not a result; use 1-0, 0-1, 1/2-1/2, a forfeit +- or -+ (or * to \
                 clear a paper board's)",
                text.chars().take(20).collect::<String>()
            ))
        })
}

impl SupervisorHandle {
    /// Keep `plan`'s pairings as round `round`'s sheet, its paper boards without results
    /// but those `kept` from the sheet before (the boards whose players are the same), and
    /// write their games to the live folder.
    pub(super) async fn keep_sheet(
        &self,
        round: u32,
        format: &str,
        content: &str,
        paper: &[Pairing],
        kept: Option<(&Stored, &[u32])>,
    ) -> Result<(), SupervisorError> {
        let format = Format::from_name(format)
            .ok()
            .flatten()
            .unwrap_or_else(|| Format::detect(content));
        let mut stored = Stored {
            round,
            format: format.name().to_owned(),
            content: content.to_owned(),
            paper: paper.iter().map(|p| p.board).collect(),
            results: BTreeMap::new(),
            forfeits: BTreeSet::new(),
        };
        if let Some((before, boards)) = kept {
            for board in boards {
                if let Some(r) = before.results.get(board) {
                    stored.results.insert(*board, *r);
                }
                if before.forfeits.contains(board) {
                    stored.forfeits.insert(*board);
                }
            }
        }
        self.sheet.set(Some(stored)).map_err(|e| {
            SupervisorError::PortFailed(format!(
                "round {round}'s paper boards were not kept: cannot write {FILE} in the state \
                 directory: {e}; load the pairings again once it can be written"
            ))
        })?;
        self.write_paper().await;
        Ok(())
    }

    /// Forget the sheet (the round rolled over without pairings for the next one).
    pub(super) fn forget_sheet(&self) {
        if let Err(e) = self.sheet.set(None) {
            tracing::warn!("cannot remove {FILE} from the state directory: {e}");
        }
    }

    /// The current round's paper boards with their games' PGN, in board order: the boards
    /// that had no clock when the pairings were applied and have none now (a clock attached
    /// later with a board's number makes it an e-board; when it goes, a paper board again).
    async fn paper_list(&self, defaults: &[(String, String)]) -> Vec<(u32, String)> {
        let round = self.round();
        let Some(stored) = self.sheet.get(round) else {
            return Vec::new();
        };
        let taken: BTreeSet<u32> = self.targets().await.iter().map(|(_, t)| t.board).collect();
        stored
            .pairings()
            .iter()
            .filter(|p| stored.paper.contains(&p.board) && !taken.contains(&p.board))
            .map(|p| {
                let result = stored.results.get(&p.board).copied();
                (p.board, pairings::paper_pgn(p, round, defaults, result))
            })
            .collect()
    }

    /// The PGN of each of the current round's paper boards, by board number (none: empty).
    pub async fn paper_games(&self) -> BTreeMap<u32, String> {
        let defaults = self.tag_defaults().await;
        self.paper_list(&defaults).await.into_iter().collect()
    }

    /// Write every paper board's game to the live folder (`round-R/game-B.pgn`).
    pub(super) async fn write_paper(&self) {
        let defaults = self.tag_defaults().await;
        let round = self.round();
        for (board, text) in self.paper_list(&defaults).await {
            self.write_live(round, board, text).await;
        }
    }

    /// Every board of the current round, in board order: the pairings' boards (e-boards and
    /// paper boards) and the clocks the pairings leave out.
    pub async fn round_boards(&self) -> Vec<RoundBoard> {
        let round = self.round();
        let stored = self.sheet.get(round);
        let pairings = stored.as_ref().map(Stored::pairings).unwrap_or_default();
        let targets = self.targets().await;
        let mut rows: BTreeMap<u32, RoundBoard> = BTreeMap::new();
        for p in &pairings {
            let paper = stored.as_ref().is_some_and(|s| s.paper.contains(&p.board));
            rows.insert(
                p.board,
                RoundBoard {
                    board: p.board,
                    white: p.white.name.clone(),
                    black: p.black.name.clone(),
                    result: stored
                        .as_ref()
                        .and_then(|s| s.results.get(&p.board).copied())
                        .filter(|_| paper),
                    clock: None,
                    forfeit: paper
                        && stored
                            .as_ref()
                            .is_some_and(|s| s.forfeits.contains(&p.board)),
                },
            );
        }
        for (handle, t) in &targets {
            let st = handle.borrow_state();
            let tag = |name: &str| st.game_info.get(name).cloned();
            let row = rows.entry(t.board).or_insert_with(|| RoundBoard {
                board: t.board,
                white: "?".into(),
                black: "?".into(),
                result: None,
                clock: None,
                forfeit: false,
            });
            if row.clock.is_some() {
                continue;
            }
            if let Some(w) = tag("White") {
                row.white = w;
            }
            if let Some(b) = tag("Black") {
                row.black = b;
            }
            row.result = st.snapshot.result;
            row.clock = Some((t.index, t.name.clone()));
            row.forfeit = false;
        }
        rows.into_values().collect()
    }

    /// Set board `board`'s result (`1-0`, `0-1`, `1/2-1/2`; `*` clears a paper board's): a
    /// paper board's is kept (across restarts) and its game rewritten in the live folder; an
    /// e-board's is the arbiter's result, set through its clock. A board the round does not
    /// have, or a result that is not one, changes nothing. Returns what was done.
    pub async fn set_board_result(
        &self,
        board: u32,
        result: &str,
    ) -> Result<String, SupervisorError> {
        let result = parse_result(result)?;
        let round = self.round();
        let targets = self.targets().await;
        if let Some((handle, t)) = targets.iter().find(|(_, t)| t.board == board) {
            if let Some((_, true)) = result {
                return Err(SupervisorError::InvalidArgument(format!(
                    "board {board} is clock {} ({:?}): a forfeit (+- or -+) is the result of a \
                     board whose game was not played; set 1-0 or 0-1 on the clock, or detach \
                     it first (`chessclockctl detach {}`)",
                    t.index, t.name, t.index
                )));
            }
            let Some((result, _)) = result else {
                return Err(SupervisorError::InvalidArgument(format!(
                    "board {board} is clock {} ({:?}), whose result is its game's: set one of \
                     1-0, 0-1, 1/2-1/2, or start a new game with `chessclockctl new-game {}`",
                    t.index, t.name, t.index
                )));
            };
            handle
                .request(Request::SetResult(result))
                .await
                .map_err(|e| {
                    SupervisorError::NotAllowed(format!(
                        "board {board} (clock {}, {:?}) did not take the result {result}: {e}",
                        t.index, t.name
                    ))
                })?;
            return Ok(format!(
                "board {board}: clock {} ({:?}): {result}",
                t.index, t.name
            ));
        }
        let Some(mut stored) = self.sheet.get(round).filter(|s| s.paper.contains(&board)) else {
            let boards = self
                .round_boards()
                .await
                .iter()
                .map(|b| b.board.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(SupervisorError::InvalidArgument(format!(
                "round {round} has no board {board} (its boards are {}); `chessclockctl round \
                 show` lists them",
                if boards.is_empty() { "none" } else { &boards }
            )));
        };
        match result {
            Some((r, _)) => stored.results.insert(board, r),
            None => stored.results.remove(&board),
        };
        if matches!(result, Some((_, true))) {
            stored.forfeits.insert(board);
        } else {
            stored.forfeits.remove(&board);
        }
        self.sheet.set(Some(stored)).map_err(|e| {
            SupervisorError::PortFailed(format!(
                "board {board}'s result was not kept (nothing was changed): cannot write {FILE} \
                 in the state directory: {e}"
            ))
        })?;
        self.write_paper().await;
        Ok(format!(
            "board {board}: paper board: {}",
            result.map_or("*", |(r, forfeit)| pairings::result_word(r, forfeit))
        ))
    }

    /// The current round's results for the pairing program: `csv` (`board,white,black,
    /// result`) or `trf` (the TRF-16 file the pairings came from, with the round's results
    /// filled in).
    pub async fn export_round(&self, format: &str) -> Result<String, SupervisorError> {
        let round = self.round();
        let stored = self.sheet.get(round).ok_or_else(|| {
            SupervisorError::NotAllowed(format!(
                "round {round} has no pairings loaded: there is nothing to export; load them \
                 with `chessclockctl round load FILE`"
            ))
        })?;
        let rows = self.round_boards().await;
        let results: BTreeMap<u32, GameResult> = rows
            .iter()
            .filter_map(|r| r.result.map(|res| (r.board, res)))
            .collect();
        let forfeits: BTreeSet<u32> = rows.iter().filter(|r| r.forfeit).map(|r| r.board).collect();
        match format.trim().to_ascii_lowercase().as_str() {
            "csv" => {
                let boards: Vec<BoardResult> = stored
                    .pairings()
                    .into_iter()
                    .map(|p| BoardResult {
                        result: results.get(&p.board).copied(),
                        forfeit: forfeits.contains(&p.board),
                        pairing: p,
                    })
                    .collect();
                Ok(pairings::csv_results(&boards))
            }
            "trf" | "trf16" | "trf-16" => {
                if stored.format != Format::Trf.name() {
                    return Err(SupervisorError::NotAllowed(format!(
                        "round {round}'s pairings came from {}, not TRF: a TRF export fills in \
                         the TRF file they came from; export csv instead",
                        stored.format.to_ascii_uppercase()
                    )));
                }
                pairings::trf_results(&stored.content, round, &results, &forfeits).map_err(|e| {
                    SupervisorError::InvalidArgument(format!(
                        "round {round}'s TRF file cannot take the results: {e}"
                    ))
                })
            }
            other => Err(SupervisorError::InvalidArgument(format!(
                "{:?} is not an export format; use csv or trf",
                other.chars().take(20).collect::<String>()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sheet_survives_a_restart_and_a_damaged_one_is_set_aside() {
        let dir = std::env::temp_dir().join(format!("sheet-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let sheet = Stored {
            round: 2,
            format: "csv".into(),
            content: "board,white,black\n1,A,B\n".into(),
            paper: [1].into(),
            results: BTreeMap::new(),
            forfeits: Default::default(),
        };
        Sheet::load(Some(&dir))
            .set(Some(sheet.clone()))
            .expect("set");
        assert_eq!(Sheet::load(Some(&dir)).get(2), Some(sheet));
        std::fs::write(dir.join(FILE), "{ not json").expect("write");
        assert_eq!(Sheet::load(Some(&dir)).get(2), None);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.len() == 1 && names[0].starts_with("round-boards.json.damaged-"),
            "{names:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
