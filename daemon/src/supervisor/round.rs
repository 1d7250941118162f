//! The current round and a round's pairings applied to the boards.
//!
//! Owns the round file (`round.json` in the state directory, read and rewritten by
//! `store::state_file`) and the rule that matches pairings to clocks by board number
//! ([`plan`], pure): a paired board has one clock, or none (a paper board:
//! `round_boards.rs` keeps it and its result), never two, and every tag is valid game
//! information, or nothing is applied and the errors name every bad line (the file's and
//! the clocks', in one answer). [`SupervisorHandle::
//! load_pairings`] then moves every clock to the round first (`Request::Place`: its default
//! `Round "R.B"`/`Board "B"` tags and its live file), sets each paired board's game
//! information through the clock's own `SetGameInfo` request, makes the round current and
//! keeps its sheet (its pairings and paper boards, `round_boards.rs`);
//! or, for the next round while the current one is being played, keeps the pairings
//! (`pending.rs`) for the roll-over, which applies them with the same plan.
//! Parsing the file is the game crate's (`chessclock_game::pairings`); this module must not
//! read files or know the bus.

use std::collections::BTreeMap;
use std::path::Path;

use chessclock_game::pairings::{self, Format, LineError, Pairing, PairingsError};

use super::round_boards::Sheet;
use super::{SupervisorError, SupervisorHandle, pending, reload};
use crate::device::{DeviceHandle, Request};
use crate::engine::Status;

/// The round file in the state directory.
pub const FILE: &str = "round.json";

/// The round kept in `dir` (none when there is no file, or a damaged one: set aside and
/// said, as every state file, `store::state_file`; [`first_round`] rebuilds it).
pub fn load(dir: &Path) -> Option<u32> {
    let parse = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("round").and_then(serde_json::Value::as_u64))
            .and_then(|r| u32::try_from(r).ok())
            .filter(|r| *r > 0)
            .ok_or_else(|| "not a round file ({\"round\": 3})".to_owned())
    };
    crate::store::state_file::load(
        &dir.join(FILE),
        parse,
        "the round is the one of the pairings applied to it (round-boards.json) if they are \
         kept, else 1: `chessclockctl round load FILE --round N` makes round N current again",
    )
}

/// The round the supervisor starts in: the one kept in `dir`; without it (no file, or a
/// damaged one) the round of the current round's sheet (`round_boards.rs`: it is always
/// the current round's, or none), else 1.
pub(super) fn first_round(dir: Option<&Path>, sheet: &Sheet) -> u32 {
    dir.and_then(load)
        .or_else(|| sheet.current_round())
        .unwrap_or(1)
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

/// What loading a round's pairings does: each clock's game information, the paper boards,
/// and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Clock number and the tags it gets.
    pub apply: Vec<(u32, Vec<(String, String)>)>,
    /// The boards without a clock: played on paper, their results entered by hand.
    pub paper: Vec<Pairing>,
    /// One line per board, then one per clock the pairings leave out.
    pub report: Vec<String>,
    /// Every pairing of the file, in its order.
    pub boards: Vec<Pairing>,
}

/// Match `pairings` of round `round` to `clocks` by board number; a board without a clock
/// is a paper board. The errors name the lines (a board two clocks share, a tag that is not
/// game information).
pub fn plan(pairings: &[Pairing], clocks: &[Target], round: u32) -> Result<Plan, PairingsError> {
    let mut by_board: BTreeMap<u32, Vec<&Target>> = BTreeMap::new();
    for c in clocks {
        by_board.entry(c.board).or_default().push(c);
    }
    let mut errors = Vec::new();
    let mut plan = Plan {
        apply: Vec::new(),
        paper: Vec::new(),
        report: Vec::new(),
        boards: pairings.to_vec(),
    };
    for p in pairings {
        let tags = p.tags(round);
        if let Err(e) = crate::device::check_game_info(&tags) {
            errors.push(LineError {
                line: p.line,
                message: e,
            });
            continue;
        }
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
            _ => {
                plan.report.push(format!(
                    "board {}: paper board (no clock): {} - {}; its result: `chessclockctl round \
                     result {} 1-0`",
                    p.board, p.white.name, p.black.name, p.board
                ));
                plan.paper.push(p.clone());
                continue;
            }
        };
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
    /// Every attached clock as the pairings see it, with its handle.
    pub(super) async fn targets(&self) -> Vec<(DeviceHandle, Target)> {
        let boards = self.boards();
        self.handles()
            .await
            .into_iter()
            .map(|h| {
                let st = h.borrow_state();
                let target = Target {
                    index: st.index,
                    board: boards
                        .get(&st.index)
                        .copied()
                        .unwrap_or(st.index.saturating_add(1)),
                    name: st.name.clone(),
                };
                drop(st);
                (h, target)
            })
            .collect()
    }

    /// Parse `content` in `format` as round `round`'s pairings and match them to `targets`;
    /// the error names the format or every bad line: those the file's format refuses and
    /// those the clocks refuse, in one answer.
    fn plan_pairings(
        content: &str,
        format: &str,
        round: u32,
        targets: &[(DeviceHandle, Target)],
    ) -> Result<Plan, String> {
        let format: Option<Format> = Format::from_name(format)?;
        let (pairings, mut errors) = pairings::parse_all(content, format, round);
        let targets: Vec<Target> = targets.iter().map(|(_, t)| t.clone()).collect();
        match plan(&pairings, &targets, round) {
            Ok(plan) if errors.is_empty() => return Ok(plan),
            Ok(_) => {}
            Err(PairingsError(more)) => errors.extend(more),
        }
        errors.sort_by_key(|e| e.line);
        Err(PairingsError(errors).to_string())
    }

    /// Set each planned clock's game information; a clock that stopped meanwhile is said.
    pub(super) async fn apply_plan(
        targets: &[(DeviceHandle, Target)],
        apply: Vec<(u32, Vec<(String, String)>)>,
    ) -> Result<(), SupervisorError> {
        for (index, tags) in apply {
            let Some((handle, _)) = targets.iter().find(|(_, t)| t.index == index) else {
                continue;
            };
            // Checked by the plan: only a clock that stopped meanwhile refuses.
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
        Ok(())
    }

    /// The plan of the pairings kept for round `round` (none kept: `None`), matched to the
    /// clocks attached now.
    pub(super) fn plan_kept(
        &self,
        round: u32,
        targets: &[(DeviceHandle, Target)],
    ) -> Result<Option<Plan>, SupervisorError> {
        let Some(kept) = self.pending.get(round) else {
            return Ok(None);
        };
        Self::plan_pairings(&kept.content, &kept.format, round, targets)
            .map(Some)
            .map_err(|e| {
                SupervisorError::InvalidArgument(format!(
                    "the round was not rolled over (nothing was changed): round {round}'s kept \
                     pairings do not fit the clocks: {e}; fix the boards, or load round \
                     {round}'s pairings again (`chessclockctl round load FILE --round {round}`)"
                ))
            })
    }

    /// Forget the pairings kept for round `round` (they were applied).
    pub(super) fn forget_kept(&self, round: u32) {
        self.pending.forget(round);
    }

    /// Load round `round`'s pairings (0: the current round) from `content` in `format`
    /// (`csv`, `pgn`, `trf`, or `auto`/empty to detect it). The next round's, while a game
    /// of the current round has started (any clock's game not ready), are kept for
    /// `NextRound` (in the state directory), which applies them to the new games; otherwise
    /// every paired board's clock gets its game information at once and the round becomes
    /// current. A bad file, a board without a clock or a board two clocks share changes
    /// nothing; the error names the lines. The same file again changes nothing; a file that
    /// gives a begun game or an entered result other players is refused, naming each such
    /// board, unless `force` (the results entered for the same players stay). Returns what
    /// was done, one line per board and per clock left out (the round it went to first, when
    /// `round` was 0; kept: a first line that says so).
    pub async fn load_pairings(
        &self,
        content: &str,
        format: &str,
        round: u32,
        force: bool,
    ) -> Result<Vec<String>, SupervisorError> {
        let current = self.round();
        let asked = round;
        let round = if round == 0 { current } else { round };
        let targets = self.targets().await;
        let plan = Self::plan_pairings(content, format, round, &targets).map_err(|e| {
            SupervisorError::InvalidArgument(format!(
                "the pairings were not loaded (nothing was changed): {e}"
            ))
        })?;
        let clocks: Vec<reload::ClockNow> = targets
            .iter()
            .map(|(h, t)| {
                let st = h.borrow_state();
                reload::ClockNow {
                    index: t.index,
                    board: t.board,
                    begun: st.game_state != Status::Ready || !st.moves_san.is_empty(),
                    result: st.snapshot.result.map(|r| r.to_string()),
                    plies: st.moves_san.len(),
                    tags: st.game_info.clone(),
                }
            })
            .collect();
        let begun = clocks.iter().any(|c| c.begun);
        let mut report = Vec::new();
        if asked == 0 {
            report.push(format!(
                "round {round} (the current round; `--round N` loads another)"
            ));
        }
        if begun && Some(round) == current.checked_add(1) {
            let kept = pending::Stored {
                round,
                format: format.to_owned(),
                content: content.to_owned(),
            };
            self.pending.keep(kept).map_err(|e| {
                SupervisorError::PortFailed(format!(
                    "round {round}'s pairings were not kept (nothing was changed): cannot write \
                     them to the state directory: {e}"
                ))
            })?;
            report.push(format!(
                "round {round}'s pairings are kept for `chessclockctl round next` (round \
                 {current} has begun: its games keep their players)"
            ));
            report.extend(plan.report);
            return Ok(report);
        }
        let old = self.sheet.get(round);
        let check = reload::check(&plan, &plan.boards, &clocks, old.as_ref(), round);
        if check.nothing(&plan, old.as_ref(), round) && round == current {
            report.push(format!(
                "round {round}'s pairings are loaded already: nothing was changed"
            ));
            report.extend(plan.report);
            return Ok(report);
        }
        if !check.conflicts.is_empty() {
            if !force {
                return Err(SupervisorError::NotAllowed(format!(
                    "the pairings were not loaded (nothing was changed): they give {} board(s) \
                     other players than the game played there: {}; if the file is right, load \
                     it again with --force (the games keep their moves, and a result entered \
                     stays where the players are the same)",
                    check.conflicts.len(),
                    check.conflicts.join("; ")
                )));
            }
            report.extend(
                check
                    .conflicts
                    .iter()
                    .map(|c| format!("forced: {c}: the file's players are set")),
            );
        }
        // Every board's game carries the round, paired or not (a clock that stopped
        // meanwhile gets it when it is attached again); first, so that the new players go
        // to the new round's live files and the last round's stay as they were.
        for (handle, t) in &targets {
            let place = Request::Place {
                round,
                board: t.board,
            };
            let _ = handle.request(place).await;
        }
        let apply = plan
            .apply
            .into_iter()
            .filter(|(i, _)| !check.unchanged.contains(i))
            .collect();
        Self::apply_plan(&targets, apply).await?;
        self.pending.forget(round);
        self.set_round(round).await?;
        let kept = old.filter(|o| o.round == round);
        let kept = kept.as_ref().map(|o| (o, check.kept_results.as_slice()));
        self.keep_sheet(round, format, content, &plan.paper, kept)
            .await?;
        report.extend(plan.report);
        Ok(report)
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
    fn a_board_with_two_clocks_names_its_line_and_one_without_is_a_paper_board() {
        let p = pairings("board,white,black\n1,A,B\n2,C,D\n3,E,F\n");
        let err = plan(&p, &[target(0, 1), target(1, 2), target(2, 2)], 1).expect_err("bad");
        let msg = err.to_string();
        assert_eq!(
            msg,
            "line 3: board 2 is both clock 1 (\"b1\") and clock 2 (\"b2\"); give each clock its \
             own number (board = N in its [[clock]] table)"
        );
        let plan = plan(&p, &[target(0, 1)], 1).expect("paper boards");
        assert_eq!(
            plan.paper.iter().map(|p| p.board).collect::<Vec<_>>(),
            vec![2, 3]
        );
        assert_eq!(plan.apply.len(), 1);
        assert!(
            plan.report[1].starts_with("board 2: paper board (no clock): C - D"),
            "{:?}",
            plan.report
        );
    }

    #[test]
    fn the_round_is_kept_in_the_state_directory() {
        let dir = std::env::temp_dir().join(format!("round-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let none = Sheet::load(None);
        assert_eq!(load(&dir), None);
        assert_eq!(first_round(Some(&dir), &none), 1);
        save(&dir, 5).expect("save");
        assert_eq!(first_round(Some(&dir), &none), 5);
        std::fs::write(dir.join(FILE), "{ not json").expect("write");
        assert_eq!(first_round(Some(&dir), &none), 1);
        assert!(
            !dir.join(FILE).exists(),
            "a damaged round file is set aside"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_round_file_is_rebuilt_from_the_current_rounds_sheet() {
        let dir = std::env::temp_dir().join(format!("round-rebuilt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        save(&dir, 4).expect("save");
        Sheet::load(Some(&dir))
            .set(Some(super::super::round_boards::Stored {
                round: 4,
                format: "csv".into(),
                content: "board,white,black\n1,A,B\n".into(),
                paper: [1].into(),
                results: BTreeMap::new(),
                forfeits: Default::default(),
            }))
            .expect("sheet");
        std::fs::write(dir.join(FILE), "{ \"round\": ").expect("write");
        assert_eq!(first_round(Some(&dir), &Sheet::load(Some(&dir))), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
