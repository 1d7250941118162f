//! Loading a round's pairings again: what a file would change on the boards, so that the
//! same file is a no-op and a file that gives a begun game (or an entered result) other
//! players is refused unless forced ([`check`], pure).
//!
//! Owns the rule; applying the pairings is `round.rs`'s, the paper boards' sheet
//! `round_boards.rs`'s. A game "has begun" once its clock is not ready, or it has moves, or a
//! result. It must not read files or know the bus.

use std::collections::BTreeMap;

use chessclock_game::pairings::Pairing;

use super::round::Plan;
use super::round_boards::Stored;

/// A clock as a reload sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClockNow {
    /// The clock's number.
    pub(super) index: u32,
    /// Its board number.
    pub(super) board: u32,
    /// Its game has begun: running, paused, ended, or with moves.
    pub(super) begun: bool,
    /// Its game's result, if any.
    pub(super) result: Option<String>,
    /// Its game's moves so far.
    pub(super) plies: usize,
    /// Its game information (the tags it has now).
    pub(super) tags: BTreeMap<String, String>,
}

/// What loading a file would do to the boards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Check {
    /// The boards whose begun game, or entered result, the file gives other players: one
    /// line each, naming the board, what it has and the players before and after.
    pub(super) conflicts: Vec<String>,
    /// The clocks whose game information already is what the file says (nothing to set).
    pub(super) unchanged: Vec<u32>,
    /// The paper boards whose entered result stays (their players are the same).
    pub(super) kept_results: Vec<u32>,
}

impl Check {
    /// Whether the file changes nothing at all: every clock has its pairing already, and
    /// the round's sheet has the same paper boards with the same players.
    pub(super) fn nothing(&self, plan: &Plan, old: Option<&Stored>, round: u32) -> bool {
        self.conflicts.is_empty()
            && plan.apply.iter().all(|(i, _)| self.unchanged.contains(i))
            && old.filter(|o| o.round == round).is_some_and(|o| {
                let was: Vec<u32> = o.paper.iter().copied().collect();
                let now: Vec<u32> = plan.paper.iter().map(|p| p.board).collect();
                let before = o.pairings();
                was == now
                    && plan.paper.iter().all(|p| {
                        before
                            .iter()
                            .any(|q| q.board == p.board && same_players(q, p))
                    })
            })
    }
}

/// The players a pairing names (White, Black, each with FIDE id).
fn players_of_tags(tags: &BTreeMap<String, String>) -> (String, String) {
    let get = |k: &str| tags.get(k).cloned().unwrap_or_default();
    (
        player(&get("White"), &get("WhiteFideId")),
        player(&get("Black"), &get("BlackFideId")),
    )
}

fn player(name: &str, fide: &str) -> String {
    let name = name.trim();
    let name = if name.is_empty() || name == "?" {
        "?"
    } else {
        name
    };
    if fide.trim().is_empty() {
        name.to_owned()
    } else {
        format!("{name} ({fide})")
    }
}

fn players_of(p: &Pairing) -> (String, String) {
    let fide = |id: Option<u64>| id.map(|v| v.to_string()).unwrap_or_default();
    (
        player(&p.white.name, &fide(p.white.fide_id)),
        player(&p.black.name, &fide(p.black.fide_id)),
    )
}

fn same_players(a: &Pairing, b: &Pairing) -> bool {
    players_of(a) == players_of(b)
}

/// What loading `plan` (round `round`'s `pairings`) over the clocks `clocks` and the
/// round's sheet `old` (if the round has one) would change.
pub(super) fn check(
    plan: &Plan,
    pairings: &[Pairing],
    clocks: &[ClockNow],
    old: Option<&Stored>,
    round: u32,
) -> Check {
    let mut out = Check::default();
    for (index, tags) in &plan.apply {
        let Some(clock) = clocks.iter().find(|c| c.index == *index) else {
            continue;
        };
        let differs = tags.iter().any(|(k, v)| {
            let now = clock.tags.get(k).map(String::as_str).unwrap_or_default();
            now != v.as_str()
        });
        if !differs {
            out.unchanged.push(*index);
            continue;
        }
        let before = players_of_tags(&clock.tags);
        let after = players_of_tags(&tags.iter().cloned().collect());
        let named = before != ("?".to_owned(), "?".to_owned());
        if before != after && named && (clock.begun || clock.result.is_some()) {
            let what = match &clock.result {
                Some(r) => format!("its game ended {r}"),
                None => format!("its game has begun ({} moves)", clock.plies),
            };
            out.conflicts.push(format!(
                "board {} (clock {index}): {what} with {} - {}; the file says {} - {}",
                clock.board, before.0, before.1, after.0, after.1
            ));
        }
    }
    let Some(old) = old.filter(|o| o.round == round) else {
        return out;
    };
    let before = old.pairings();
    for (board, result) in &old.results {
        if !old.paper.contains(board) {
            continue;
        }
        let Some(was) = before.iter().find(|p| p.board == *board) else {
            continue;
        };
        match pairings.iter().find(|p| p.board == *board) {
            Some(p) if same_players(was, p) => out.kept_results.push(*board),
            Some(p) => {
                let (w, b) = players_of(was);
                let (nw, nb) = players_of(p);
                out.conflicts.push(format!(
                    "board {board} (paper board): its result {result} is entered for {w} - {b}; \
                     the file says {nw} - {nb}"
                ));
            }
            None => {
                let (w, b) = players_of(was);
                out.conflicts.push(format!(
                    "board {board} (paper board): its result {result} is entered for {w} - {b}; \
                     the file has no board {board}"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
