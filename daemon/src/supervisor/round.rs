//! The current round and a round's pairings applied to the boards.
//!
//! Owns the round file (`round.json` in the state directory, rewritten atomically with the
//! store's helper) and the rule that matches pairings to clocks by board number
//! ([`plan`], pure): every paired board has exactly one clock, every tag is valid game
//! information, or nothing is applied and the errors name the lines. [`SupervisorHandle::
//! load_pairings`] then moves every clock to the round first (`Request::Place`: its default
//! `Round "R.B"`/`Board "B"` tags and its live file), sets each paired board's game
//! information through the clock's own `SetGameInfo` request and makes the round current.
//! Parsing the file is the game crate's (`chessclock_game::pairings`); this module must not
//! read files or know the bus.

use std::collections::BTreeMap;
use std::path::Path;

use chessclock_game::pairings::{self, Format, LineError, Pairing, PairingsError};

use super::{SupervisorError, SupervisorHandle};
use crate::device::Request;

/// The round file in the state directory.
pub const FILE: &str = "round.json";

/// The round kept in `dir` (1 when there is none, or it cannot be read: said in the log).
pub fn load(dir: &Path) -> u32 {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return 1,
        Err(e) => {
            tracing::warn!("cannot read {}: {e}; the round is 1", path.display());
            return 1;
        }
    };
    let round = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("round").and_then(serde_json::Value::as_u64))
        .and_then(|r| u32::try_from(r).ok())
        .filter(|r| *r > 0);
    round.unwrap_or_else(|| {
        tracing::warn!(
            "{} is not a round file ({{\"round\": 3}}); the round is 1",
            path.display()
        );
        1
    })
}

/// Keep `round` in `dir` (atomically: a crash leaves the old file or the new one).
pub fn save(dir: &Path, round: u32) -> std::io::Result<()> {
    let text = format!("{}\n", serde_json::json!({ "round": round }));
    crate::store::atomic::write_atomic(&dir.join(FILE), text.as_bytes())
}

/// An attached clock as the pairings see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The clock's number.
    pub index: u32,
    /// Its board number.
    pub board: u32,
    /// Its name.
    pub name: String,
}

/// What loading a round's pairings does: each clock's game information, and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Clock number and the tags it gets.
    pub apply: Vec<(u32, Vec<(String, String)>)>,
    /// One line per board, then one per clock the pairings leave out.
    pub report: Vec<String>,
}

/// Match `pairings` of round `round` to `clocks` by board number; the errors name the lines
/// (a board without a clock, a board two clocks share, a tag that is not game information).
pub fn plan(pairings: &[Pairing], clocks: &[Target], round: u32) -> Result<Plan, PairingsError> {
    let mut by_board: BTreeMap<u32, Vec<&Target>> = BTreeMap::new();
    for c in clocks {
        by_board.entry(c.board).or_default().push(c);
    }
    let boards = by_board
        .keys()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut errors = Vec::new();
    let mut plan = Plan {
        apply: Vec::new(),
        report: Vec::new(),
    };
    for p in pairings {
        let clock = match by_board.get(&p.board).map(Vec::as_slice) {
            Some([one]) => *one,
            Some(several) => {
                let who = several
                    .iter()
                    .map(|c| format!("clock {} ({:?})", c.index, c.name))
                    .collect::<Vec<_>>()
                    .join(" and ");
                errors.push(LineError {
                    line: p.line,
                    message: format!(
                        "board {} is both {who}; give each clock its own number (board = N in its \
                         [[clock]] table)",
                        p.board
                    ),
                });
                continue;
            }
            None => {
                let have = if boards.is_empty() {
                    "no clock is attached".to_owned()
                } else {
                    format!("the clocks are boards {boards}")
                };
                errors.push(LineError {
                    line: p.line,
                    message: format!(
                        "board {} has no clock ({have}, `chessclockctl list`); attach its board or \
                         set board = {} in its [[clock]] table",
                        p.board, p.board
                    ),
                });
                continue;
            }
        };
        let tags = p.tags(round);
        if let Err(e) = crate::device::check_game_info(&tags) {
            errors.push(LineError {
                line: p.line,
                message: e,
            });
            continue;
        }
        plan.report.push(format!(
            "board {}: clock {} ({:?}): {} - {}",
            p.board, clock.index, clock.name, p.white.name, p.black.name
        ));
        plan.apply.push((clock.index, tags));
    }
    if !errors.is_empty() {
        return Err(PairingsError(errors));
    }
    for c in clocks {
        if !pairings.iter().any(|p| p.board == c.board) {
            plan.report.push(format!(
                "clock {} ({:?}) is board {}, which has no game in round {round}'s pairings: its \
                 game information is unchanged",
                c.index, c.name, c.board
            ));
        }
    }
    Ok(plan)
}

impl SupervisorHandle {
    /// Load round `round`'s pairings (0: the current round) from `content` in `format`
    /// (`csv`, `pgn`, `trf`, or `auto`/empty to detect it): every paired board's clock gets
    /// its game information and the round becomes current. A bad file, a board without a
    /// clock or a board two clocks share changes nothing; the error names the lines. Returns
    /// what was done, one line per board and per clock left out.
    pub async fn load_pairings(
        &self,
        content: &str,
        format: &str,
        round: u32,
    ) -> Result<Vec<String>, SupervisorError> {
        let format: Option<Format> =
            Format::from_name(format).map_err(SupervisorError::InvalidArgument)?;
        let round = if round == 0 { self.round() } else { round };
        let nothing = |e: PairingsError| {
            SupervisorError::InvalidArgument(format!(
                "the pairings were not loaded (nothing was changed): {e}"
            ))
        };
        let pairings = pairings::parse(content, format, round).map_err(nothing)?;
        let handles = self.handles().await;
        let boards = self.boards();
        let targets: Vec<Target> = handles
            .iter()
            .map(|h| {
                let st = h.borrow_state();
                Target {
                    index: st.index,
                    board: boards
                        .get(&st.index)
                        .copied()
                        .unwrap_or(st.index.saturating_add(1)),
                    name: st.name.clone(),
                }
            })
            .collect();
        let plan = plan(&pairings, &targets, round).map_err(nothing)?;
        // Every board's game carries the round, paired or not (a clock that stopped
        // meanwhile gets it when it is attached again); first, so that the new players go
        // to the new round's live files and the last round's stay as they were.
        for t in &targets {
            if let Some(handle) = handles.iter().find(|h| h.borrow_state().index == t.index) {
                let place = Request::Place {
                    round,
                    board: t.board,
                };
                let _ = handle.request(place).await;
            }
        }
        for (index, tags) in plan.apply {
            let Some(handle) = handles.iter().find(|h| h.borrow_state().index == index) else {
                continue;
            };
            // Checked above: only a clock that stopped meanwhile refuses.
            handle
                .request(Request::SetGameInfo(tags))
                .await
                .map_err(|e| {
                    SupervisorError::PortFailed(format!(
                        "clock {index} did not take its pairing ({e}); the boards before it have \
                         theirs, so load the file again once the clock is back"
                    ))
                })?;
        }
        self.set_round(round).await?;
        Ok(plan.report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(index: u32, board: u32) -> Target {
        Target {
            index,
            board,
            name: format!("b{index}"),
        }
    }

    fn pairings(text: &str) -> Vec<Pairing> {
        pairings::parse(text, Some(Format::Csv), 1).expect("pairings")
    }

    #[test]
    fn each_board_goes_to_its_clock_and_the_rest_is_said() {
        let p = pairings("board,white,black\n2,A,B\n1,C,D\n");
        let plan = plan(&p, &[target(0, 1), target(1, 2), target(2, 7)], 4).expect("plan");
        assert_eq!(
            plan.apply.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1]
        );
        let tags = &plan.apply[1].1;
        assert!(tags.contains(&("Round".into(), "4.2".into())), "{tags:?}");
        assert!(tags.contains(&("White".into(), "A".into())), "{tags:?}");
        assert_eq!(plan.report[0], "board 1: clock 0 (\"b0\"): C - D");
        assert!(
            plan.report[2].starts_with("clock 2 (\"b2\") is board 7, which has no game"),
            "{:?}",
            plan.report
        );
    }

    #[test]
    fn a_board_without_a_clock_or_with_two_names_its_line() {
        let p = pairings("board,white,black\n1,A,B\n2,C,D\n3,E,F\n");
        let err = plan(&p, &[target(0, 1), target(1, 2), target(2, 2)], 1).expect_err("bad");
        let msg = err.to_string();
        assert!(
            msg.contains("line 3: board 2 is both clock 1 (\"b1\") and clock 2 (\"b2\")"),
            "{msg}"
        );
        assert!(
            msg.contains("line 4: board 3 has no clock (the clocks are boards 1, 2"),
            "{msg}"
        );
    }

    #[test]
    fn the_round_is_kept_in_the_state_directory() {
        let dir = std::env::temp_dir().join(format!("round-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        assert_eq!(load(&dir), 1);
        save(&dir, 5).expect("save");
        assert_eq!(load(&dir), 5);
        std::fs::write(dir.join(FILE), "{ not json").expect("write");
        assert_eq!(load(&dir), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
