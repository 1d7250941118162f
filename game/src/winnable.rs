//! Who can still checkmate in a position, and what a flag decides there (FIDE 5.2.2, 6.9;
//! USCF 14D, 14E; docs/rules.md): the one place of the workspace that says so.
//!
//! Two depths of one verdict. [`quick`] reads the material alone (shakmaty's static check:
//! a lone king, a lone minor piece, bishops of one colour): nanoseconds, fit to run inline
//! after every move; it says `cannot_mate` or `undetermined`, never `can_mate`. [`search`]
//! asks the Chess Unwinnability Analyzer's solver (the `chasolver` crate, built on the
//! `chess` crate: the seam hands it the position as FEN) for a helpmate of each side: a
//! series of legal moves ending in that side's mate exists (`can_mate`), provably none does
//! (`cannot_mate`, locked pawn walls and forced sequences included), or the solver gave up
//! within its own node limits (`undetermined`; it takes no budget of ours, and bounds
//! itself: about a second at worst). [`judge_quick`] and [`judge`] turn either into what a
//! flag by each side decides under a [`Rulebook`]; US Chess's "no forced win" (14E2, 14E3)
//! is a bounded forced-mate search ([`forced_mate`]) whose budget the caller passes in.
//!
//! Pure and deterministic: no IO, no clock, no threads; the same position gives the same
//! verdict every time (a journal replayed judges alike). It must not write a solver of its
//! own: the helpmate search is chasolver's, the move generator shakmaty's. How long a
//! search may take is the caller's to bound (the daemon runs it off the device thread and
//! waits a bounded time for it).

pub mod forced_mate;

use chessclock_engine::{Mating, Side, WhoCanMate};
use shakmaty::fen::Fen;
use shakmaty::{Chess, Color, EnPassantMode, Position, Role};

pub use forced_mate::{ForcedMate, MateBudget, forced_mate};

/// Which rules judge a flag against the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rulebook {
    /// FIDE 6.9: the flag loses unless the opponent cannot checkmate by any series of legal
    /// moves.
    #[default]
    Fide,
    /// US Chess 14E: the flag draws against a lone king; against a lone king and minor
    /// piece, or (the flagger without pawns) a king and two knights, unless the opponent has
    /// a forced win; otherwise it loses. A dead position draws under both (5.2.2, 14D).
    Uscf,
}

/// What a flag decides, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagWhy {
    /// FIDE 6.9: the opponent can checkmate by some series of legal moves: the flag loses.
    CanMate,
    /// FIDE 6.9: the opponent cannot checkmate by any series of legal moves: a draw.
    CannotMate,
    /// FIDE 6.9: the search neither found the opponent's mate nor excluded it: the flag
    /// loses, as the rule scores a flag unless mate is impossible; the arbiter is told.
    Undetermined,
    /// Neither side can checkmate: the position is dead, and was before the flag (FIDE
    /// 5.2.2, USCF 14D): a draw.
    Dead,
    /// USCF 14E1: the opponent has only the king: a draw.
    LoneKing,
    /// USCF 14E2 (a king and a bishop or a knight) or 14E3 (a king and two knights, the
    /// flagger without pawns): the opponent forces mate in `moves`: the flag loses.
    ForcedWin {
        /// The rule the material falls under (`14E2`, `14E3`).
        rule: &'static str,
        /// The forced mate's length, in the opponent's moves.
        moves: u32,
    },
    /// USCF 14E2 / 14E3: the opponent has no forced win: a draw. `proved`: the opponent
    /// cannot mate at all; otherwise no forced mate was found within `within` moves (not
    /// decided is no forced win, and the arbiter is told).
    NoForcedWin {
        /// The rule the material falls under (`14E2`, `14E3`).
        rule: &'static str,
        /// The opponent cannot mate by any series of moves.
        proved: bool,
        /// How many of the opponent's moves the forced-mate search covered in full.
        within: u32,
    },
    /// USCF 14E does not apply (the opponent has more than its material, or the flagger has
    /// pawns against two knights): the flag loses.
    MaterialToWin,
}

/// What a flag by one side decides in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnFlag {
    /// The flagging side loses (else: a draw).
    pub loses: bool,
    /// Why.
    pub why: FlagWhy,
}

impl OnFlag {
    fn new(why: FlagWhy) -> OnFlag {
        let loses = matches!(
            why,
            FlagWhy::CanMate
                | FlagWhy::Undetermined
                | FlagWhy::ForcedWin { .. }
                | FlagWhy::MaterialToWin
        );
        OnFlag { loses, why }
    }

    /// The verdict rests on a search that did not decide: the arbiter should review it.
    pub fn undecided(self) -> bool {
        matches!(
            self.why,
            FlagWhy::Undetermined | FlagWhy::NoForcedWin { proved: false, .. }
        )
    }

    /// A sentence for the arbiter: the result of `flagger`'s flag and the rule behind it.
    pub fn explain(self, flagger: Side) -> String {
        let name = |s: Side| match s {
            Side::White => "White",
            Side::Black => "Black",
        };
        let opponent = name(flagger.other());
        let flagger = name(flagger);
        match self.why {
            FlagWhy::CanMate => {
                format!("{flagger}'s flag loses: {opponent} can still checkmate (FIDE 6.9)")
            }
            FlagWhy::CannotMate => format!(
                "{flagger}'s flag draws: {opponent} cannot checkmate by any series of legal \
                 moves (FIDE 6.9)"
            ),
            FlagWhy::Undetermined => format!(
                "{flagger}'s flag loses: the search could not decide whether {opponent} can \
                 still checkmate, and FIDE 6.9 scores a flag as lost unless mate is \
                 impossible; the arbiter may review the position"
            ),
            FlagWhy::Dead => format!(
                "{flagger}'s flag draws: neither side can checkmate, the position is dead \
                 (FIDE 5.2.2, USCF 14D)"
            ),
            FlagWhy::LoneKing => {
                format!("{flagger}'s flag draws: {opponent} has only the king (USCF 14E1)")
            }
            FlagWhy::ForcedWin { rule, moves } => {
                format!("{flagger}'s flag loses: {opponent} forces mate in {moves} (USCF {rule})")
            }
            FlagWhy::NoForcedWin {
                rule, proved: true, ..
            } => format!(
                "{flagger}'s flag draws: {opponent} cannot checkmate at all, so has no forced \
                 win (USCF {rule})"
            ),
            FlagWhy::NoForcedWin { rule, within, .. } => format!(
                "{flagger}'s flag draws: no forced mate by {opponent} was found within \
                 {within} moves, and not decided counts as no forced win (USCF {rule}); the \
                 arbiter may review the position"
            ),
            FlagWhy::MaterialToWin => format!(
                "{flagger}'s flag loses: {opponent} has more than USCF 14E's material (a \
                 lone king, a king and a minor piece, two knights against no pawns)"
            ),
        }
    }
}

/// The verdict on a position: who can still mate, and what each side's flag decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    /// Who can still checkmate.
    pub who: WhoCanMate,
    /// What White's flag decides; `None`: not without the search ([`judge_quick`]).
    pub white_flag: Option<OnFlag>,
    /// What Black's flag decides; `None`: not without the search.
    pub black_flag: Option<OnFlag>,
}

impl Judgement {
    /// What `flagger`'s flag decides, if known.
    pub fn on_flag(&self, flagger: Side) -> Option<OnFlag> {
        match flagger {
            Side::White => self.white_flag,
            Side::Black => self.black_flag,
        }
    }

    /// Neither side can mate: the game is over (FIDE 5.2.2, USCF 14D).
    pub fn dead(&self) -> bool {
        self.who.dead()
    }

    /// The engine's `mating_material`: whether White wins on Black's flag and Black on
    /// White's (`None`: not known yet).
    pub fn wins_on_flag(&self) -> (Option<bool>, Option<bool>) {
        (
            self.black_flag.map(|f| f.loses),
            self.white_flag.map(|f| f.loses),
        )
    }
}

/// Who can still mate by the material alone (shakmaty's static check): `cannot_mate` for a
/// side whose material can never mate, `undetermined` otherwise. Constant time.
pub fn quick(pos: &Chess) -> WhoCanMate {
    let by_material = |c: Color| {
        if pos.has_insufficient_material(c) {
            Mating::CannotMate
        } else {
            Mating::Undetermined
        }
    };
    WhoCanMate {
        white: by_material(Color::White),
        black: by_material(Color::Black),
    }
}

/// Who can still mate, by chasolver's helpmate search for each side the material leaves
/// open. Up to about a second on a pathological position (microseconds usually): run it
/// off any thread that must answer quickly.
pub fn search(pos: &Chess) -> WhoCanMate {
    let quick = quick(pos);
    let board = to_solver(pos);
    let side = |c: Color, q: Mating| match (&board, q) {
        (_, Mating::CannotMate) => Mating::CannotMate,
        (Some(board), _) => helpmate(board, c),
        (None, _) => Mating::Undetermined,
    };
    WhoCanMate {
        white: side(Color::White, quick.white),
        black: side(Color::Black, quick.black),
    }
}

/// The verdict from the material alone: a flag is decided where the material decides it,
/// `None` where it needs the search.
pub fn judge_quick(pos: &Chess, rulebook: Rulebook) -> Judgement {
    let who = quick(pos);
    let flag = |flagger: Side| -> Option<OnFlag> {
        if who.dead() {
            return Some(OnFlag::new(FlagWhy::Dead));
        }
        let opponent = who.of(flagger.other());
        match rulebook {
            Rulebook::Fide => {
                (opponent == Mating::CannotMate).then(|| OnFlag::new(FlagWhy::CannotMate))
            }
            Rulebook::Uscf => match uscf_material(pos, flagger) {
                UscfMaterial::LoneKing => Some(OnFlag::new(FlagWhy::LoneKing)),
                UscfMaterial::NeedsForcedWin(rule) if opponent == Mating::CannotMate => {
                    Some(OnFlag::new(FlagWhy::NoForcedWin {
                        rule,
                        proved: true,
                        within: 0,
                    }))
                }
                // A forced mate, or a dead position, is the search's to find.
                UscfMaterial::NeedsForcedWin(_) | UscfMaterial::ToWin => None,
            },
        }
    };
    Judgement {
        who,
        white_flag: flag(Side::White),
        black_flag: flag(Side::Black),
    }
}

/// The full verdict: [`search`] for who can mate, and under US Chess rules the forced-mate
/// search within `budget` where 14E2 or 14E3 asks for it. Every flag is decided.
pub fn judge(pos: &Chess, rulebook: Rulebook, budget: MateBudget) -> Judgement {
    judge_with(pos, rulebook, search(pos), Some(budget))
}

/// The verdict when the search did not answer (in time): every flag decided as the rules
/// decide it for a position not decided beyond its material (FIDE 6.9: lost unless the
/// material cannot mate; USCF 14E2, 14E3: no forced win found, drawn). The arbiter should
/// be told ([`OnFlag::undecided`]).
pub fn judge_unsearched(pos: &Chess, rulebook: Rulebook) -> Judgement {
    judge_with(pos, rulebook, quick(pos), None)
}

fn judge_with(
    pos: &Chess,
    rulebook: Rulebook,
    who: WhoCanMate,
    budget: Option<MateBudget>,
) -> Judgement {
    let flag = |flagger: Side| -> OnFlag {
        if who.dead() {
            return OnFlag::new(FlagWhy::Dead);
        }
        let opponent = who.of(flagger.other());
        match rulebook {
            Rulebook::Fide => OnFlag::new(match opponent {
                Mating::CanMate => FlagWhy::CanMate,
                Mating::CannotMate => FlagWhy::CannotMate,
                Mating::Undetermined => FlagWhy::Undetermined,
            }),
            Rulebook::Uscf => OnFlag::new(match uscf_material(pos, flagger) {
                UscfMaterial::LoneKing => FlagWhy::LoneKing,
                UscfMaterial::ToWin => FlagWhy::MaterialToWin,
                UscfMaterial::NeedsForcedWin(rule) if opponent == Mating::CannotMate => {
                    FlagWhy::NoForcedWin {
                        rule,
                        proved: true,
                        within: 0,
                    }
                }
                UscfMaterial::NeedsForcedWin(rule) => {
                    let found = budget.map(|b| forced_mate(pos, color(flagger.other()), b));
                    match found {
                        Some(ForcedMate::Found { moves }) => FlagWhy::ForcedWin { rule, moves },
                        Some(ForcedMate::NotFound { within }) => FlagWhy::NoForcedWin {
                            rule,
                            proved: false,
                            within,
                        },
                        None => FlagWhy::NoForcedWin {
                            rule,
                            proved: false,
                            within: 0,
                        },
                    }
                }
            }),
        }
    };
    Judgement {
        who,
        white_flag: Some(flag(Side::White)),
        black_flag: Some(flag(Side::Black)),
    }
}

/// What USCF 14E makes of the opponent's material when `flagger`'s flag falls.
enum UscfMaterial {
    /// 14E1: only the king.
    LoneKing,
    /// 14E2 / 14E3: a draw unless the opponent has a forced win.
    NeedsForcedWin(&'static str),
    /// 14E does not apply.
    ToWin,
}

fn uscf_material(pos: &Chess, flagger: Side) -> UscfMaterial {
    let board = pos.board();
    let theirs = board.by_color(color(flagger.other()));
    let count = |role: Role| (theirs & board.by_role(role)).count();
    let pieces = theirs.count() - 1;
    let (knights, bishops) = (count(Role::Knight), count(Role::Bishop));
    let flagger_pawns = (board.by_color(color(flagger)) & board.by_role(Role::Pawn)).count();
    match (pieces, knights, bishops) {
        (0, _, _) => UscfMaterial::LoneKing,
        (1, 1, 0) | (1, 0, 1) => UscfMaterial::NeedsForcedWin("14E2"),
        (2, 2, 0) if flagger_pawns == 0 => UscfMaterial::NeedsForcedWin("14E3"),
        _ => UscfMaterial::ToWin,
    }
}

/// The board's colour of a side.
fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

/// The position as the solver's board, through its FEN (`None`: the `chess` crate refuses
/// it, e.g. castling rights its validation does not accept).
fn to_solver(pos: &Chess) -> Option<chess::Board> {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    std::panic::catch_unwind(|| fen.parse::<chess::Board>().ok())
        .ok()
        .flatten()
}

/// chasolver's verdict for `winner`; a solver that panics is `undetermined` (the daemon
/// never panics on a position).
fn helpmate(board: &chess::Board, winner: Color) -> Mating {
    let winner = match winner {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    };
    let board = *board;
    match std::panic::catch_unwind(move || chasolver::winnability(&board, winner)) {
        Ok(Some(chasolver::Winnability::Winnable { .. })) => Mating::CanMate,
        Ok(Some(chasolver::Winnability::Unwinnable)) => Mating::CannotMate,
        Ok(None) | Err(_) => Mating::Undetermined,
    }
}

#[cfg(test)]
mod tests;
