//! Round roll-over (`NextRound`): every board's next game in the next round.
//!
//! Owns the rule that a round under way is not rolled over ([`under_way`], pure: the boards
//! whose game is running, paused or flagged without a result are named, and nothing is
//! changed unless forced) and the roll-over, one `NextRound` request per clock: a new game
//! on the clock's control, the tags a pairing set cleared, the clock's place in the next
//! round (its live file `round-R+1/game-B.pgn`; round R's files stay); then the next
//! round's pairings kept by `LoadPairings` (`pending.rs`), if any, are applied to the new
//! games with `round.rs`'s plan (checked against the clocks before anything changes; a kept
//! board without a clock is a paper board of the new round), and the round becomes current
//! with their sheet (`round_boards.rs`; none without kept pairings). It must not read files or know the bus.

use crate::device::Request;
use crate::engine::Status;

use super::{SupervisorError, SupervisorHandle};

/// A clock as the roll-over sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Board {
    /// The clock's number.
    pub(super) index: u32,
    /// Its board number.
    pub(super) board: u32,
    /// Its name.
    pub(super) name: String,
    /// Its game's state.
    pub(super) status: Status,
}

/// The boards whose game is still under way, in board order, as `board 2 (clock 1, "two")`.
pub(super) fn under_way(boards: &[Board]) -> Vec<String> {
    let mut running: Vec<&Board> = boards
        .iter()
        .filter(|b| matches!(b.status, Status::Running | Status::Paused | Status::Flagged))
        .collect();
    running.sort_by_key(|b| (b.board, b.index));
    running
        .iter()
        .map(|b| format!("board {} (clock {}, {:?})", b.board, b.index, b.name))
        .collect()
}

impl SupervisorHandle {
    /// Roll the round over: every clock starts a new game on its control as its board in the
    /// next round (the players of the last round's pairings cleared, then the next round's
    /// kept pairings applied; a kept board without a clock refuses the roll-over as
    /// `LoadPairings` refuses it), and the next round becomes current. Refused, naming the boards
    /// and changing nothing, while a game is under way, unless `force` (those games are
    /// discarded as by a new game). Returns one line per clock.
    pub async fn next_round(&self, force: bool) -> Result<Vec<String>, SupervisorError> {
        let round = self.round();
        let next = round.checked_add(1).ok_or_else(|| {
            SupervisorError::InvalidArgument(format!("round {round} is the last there can be"))
        })?;
        let targets = self.targets().await;
        let boards: Vec<Board> = targets
            .iter()
            .map(|(h, t)| Board {
                index: t.index,
                board: t.board,
                name: t.name.clone(),
                status: h.borrow_state().game_state,
            })
            .collect();
        let running = under_way(&boards);
        if !running.is_empty() && !force {
            return Err(SupervisorError::NotAllowed(format!(
                "round {round} is still under way on {} (nothing was changed); wait for the \
                 results or set them (`chessclockctl result N 1-0`), or end those games with \
                 `chessclockctl round next --force`",
                running.join(", ")
            )));
        }
        // The next round's kept pairings must fit the clocks before anything changes.
        let plan = self.plan_kept(next, &targets)?;
        let mut report = Vec::new();
        for ((handle, _), b) in targets.iter().zip(&boards) {
            // One request: the live file is written once, the new game in the new round's
            // folder, round R's left as it was.
            let step = Request::NextRound {
                round: next,
                board: b.board,
            };
            report.push(match handle.request(step).await.err() {
                None => format!(
                    "board {}: clock {} ({:?}): a new game, live/round-{next}/game-{}.pgn",
                    b.board, b.index, b.name, b.board
                ),
                Some(e) => format!(
                    "board {}: clock {} ({:?}) did not start its next game ({e}); start it \
                     with `chessclockctl new-game {}`",
                    b.board, b.index, b.name, b.index
                ),
            });
        }
        let kept = self.pending.get(next);
        if let Some(plan) = plan {
            Self::apply_plan(&targets, plan.apply).await?;
            report.extend(plan.report);
            self.set_round(next).await?;
            if let Some(kept) = kept {
                self.keep_sheet(next, &kept.format, &kept.content, &plan.paper, None)
                    .await?;
            }
            self.forget_kept(next);
        } else {
            self.set_round(next).await?;
            self.forget_sheet();
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(index: u32, board: u32, status: Status) -> Board {
        Board {
            index,
            board,
            name: format!("b{index}"),
            status,
        }
    }

    #[test]
    fn the_boards_under_way_are_named_in_board_order() {
        let boards = [
            board(0, 3, Status::Running),
            board(1, 1, Status::Ended),
            board(2, 2, Status::Paused),
            board(3, 4, Status::Ready),
            board(4, 5, Status::Flagged),
        ];
        assert_eq!(
            under_way(&boards),
            vec![
                "board 2 (clock 2, \"b2\")",
                "board 3 (clock 0, \"b0\")",
                "board 5 (clock 4, \"b4\")"
            ]
        );
        assert!(under_way(&[board(0, 1, Status::Ended), board(1, 2, Status::Ready)]).is_empty());
    }
}
