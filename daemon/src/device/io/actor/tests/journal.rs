//! The journal is the game's record, in virtual time against the emulated board: random
//! games (moves on the pieces with presses, waits, takebacks by the operator, forced moves,
//! positions set) are played twice, once without a stop and once with restarts at random
//! points, where a new session is rebuilt from the journal entries alone, as the actor does
//! on start (`persist::restore`, then the actor's fold of the replay). Both runs must end
//! with the same live PGN and the same archived record (PGN and JSON, folded from each run's
//! journal), and be the same game right after every restart.

use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{CastlingMode, Chess, Position};
use chessclock_game::{Correction, GameLog, Rendered};
use chessclock_protocol::board::{Board, Piece, Square};
use chessclock_protocol::emulator::{EmuConfig, MoveOrder, PieceAction, PieceMove};
use proptest::prelude::*;

use crate::device::io::persist::{Archive, Entry, GameStart, Journaled, Now, restore};
use chessclock_device::link::driver::DriverConfig;
use chessclock_device::session::interface::Request;
use chessclock_device::session::testing::{Rig, config};
use chessclock_device::session::{Restored, Session, SessionOutput, ShellEvent};

/// Wall time of virtual time 0.
const WALL0: u64 = 1_795_428_000_000;

/// Positions the operator sets (White to move, so that the lever stays with the game).
const POSITIONS: [&str; 3] = [
    "4k3/8/8/8/8/8/8/3QK3 w - - 0 60",
    "r3k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 30",
    "4k3/3p4/8/8/8/8/3P4/4K3 w - - 0 40",
];

#[derive(Debug, Clone)]
enum Action {
    /// The player to move makes the `n`-th legal move on the pieces and presses.
    Ply(usize),
    /// Time passes.
    Wait(u64),
    /// The operator takes back the last ply, then the pieces too.
    Undo,
    /// The operator forces the `n`-th legal move, then makes it on the pieces.
    Force(usize),
    /// The operator sets a position, then the pieces.
    Position(usize),
    /// The daemon is restarted (in the restarting run only).
    Restart,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => any::<usize>().prop_map(Action::Ply),
        2 => (100u64..8_000).prop_map(Action::Wait),
        1 => Just(Action::Undo),
        1 => any::<usize>().prop_map(Action::Force),
        1 => (0..POSITIONS.len()).prop_map(Action::Position),
        3 => Just(Action::Restart),
    ]
}

/// One run: the rig and its journal (the current game's start and records since).
struct Run {
    rig: Rig,
    start: Entry,
    records: Vec<Entry>,
    /// The game's events as the session said them, kept beside the journal as the actor
    /// once did: what the record folded from the journal must say.
    said: GameLog,
    restarts: usize,
}

impl Run {
    fn new() -> Run {
        let rig = Rig::ready("G/3 inc/2", EmuConfig::default());
        let start = Entry {
            rec: Journaled::Start(Box::new(GameStart {
                control: rig.session.engine().control().clone(),
                t_ms: 0,
                wall_ms: WALL0,
                game_id: None,
            })),
            boot: None,
        };
        let said = GameLog::new(rig.session.name(), rig.session.port(), "G/3 inc/2", WALL0);
        let mut run = Run {
            rig,
            start,
            records: Vec::new(),
            said,
            restarts: 0,
        };
        run.journal();
        run.rig.start();
        run.journal();
        run
    }

    /// Journal what the session said, as the actor does (a new game compacts).
    fn journal(&mut self) {
        for (now, ev) in std::mem::take(&mut self.rig.events) {
            let wall_ms = WALL0 + now;
            if let SessionOutput::NewGame { control, t_ms, .. } = &ev {
                self.records.clear();
                self.start = Entry {
                    rec: Journaled::Start(Box::new(GameStart {
                        control: (**control).clone(),
                        t_ms: *t_ms,
                        wall_ms,
                        game_id: None,
                    })),
                    boot: None,
                };
            }
            match &ev {
                SessionOutput::Clock { t_ms, event } => {
                    self.said.event(*t_ms, wall_ms, event.clone());
                }
                SessionOutput::Note {
                    t_ms,
                    note,
                    record: true,
                } => self.said.note(*t_ms, wall_ms, &note.to_string()),
                _ => {}
            }
            if let Some(rec) = Journaled::of(&ev, wall_ms) {
                self.records.push(Entry { rec, boot: None });
            }
        }
    }

    fn fen(&mut self) -> String {
        self.rig.published().clock.fen
    }

    /// The `n`-th legal move of the game's position (no castling or en passant: the pieces
    /// make those in more steps), in UCI.
    fn legal(&mut self, n: usize) -> Option<String> {
        let fen: Fen = self.fen().parse().ok()?;
        let pos: Chess = fen.into_position(CastlingMode::Standard).ok()?;
        let moves: Vec<_> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !m.is_castle() && !m.is_en_passant())
            .collect();
        let m = moves.get(n % moves.len().max(1))?;
        Some(m.to_uci(CastlingMode::Standard).to_string())
    }

    /// Move the pieces of `uci` (the host hears it).
    fn pieces(&mut self, uci: &str) {
        if let Ok(mv) = PieceMove::parse(uci, self.rig.emu.pieces()) {
            let now = self.rig.now;
            let _ = self
                .rig
                .emu
                .piece_action(now, PieceAction::Move(mv, MoveOrder::MoverFirst));
        }
        self.wait(500);
    }

    /// Set the pieces as `fen` places them, square by square.
    fn set_pieces(&mut self, fen: &str) {
        for (field, want) in (0u8..64).zip(squares(fen)) {
            let Some(sq) = Square::from_field(field) else {
                continue;
            };
            let board: &Board = self.rig.emu.pieces();
            if board.get(sq) == want {
                continue;
            }
            let action = match want {
                Some(p) => PieceAction::Place(sq, p),
                None => PieceAction::Lift(sq),
            };
            let now = self.rig.now;
            let _ = self.rig.emu.piece_action(now, action);
            self.wait(50);
        }
        self.wait(1_000);
    }

    fn wait(&mut self, ms: u64) {
        let until = self.rig.now + ms;
        self.rig.run_until(until);
    }

    /// Whether the pieces show the game's position with no board problem (a restart then
    /// carries on; else the pieces, not the journal, decide what the rebuilt game is).
    fn pieces_agree(&mut self) -> bool {
        let fen = self.fen();
        let placement: String = squares(&fen)
            .into_iter()
            .map(|p| p.map_or('.', Piece::to_char))
            .collect();
        self.rig.published().board_problem.is_empty()
            && self.rig.emu.pieces().to_piece_string() == placement
    }

    fn act(&mut self, action: &Action, restarts: bool) {
        match action {
            Action::Ply(n) => {
                if let Some(uci) = self.legal(*n) {
                    self.pieces(&uci);
                    self.rig.press();
                    self.wait(500);
                }
            }
            Action::Wait(ms) => self.wait(*ms),
            Action::Undo => {
                if self
                    .rig
                    .request(Request::Correct(Correction::Undo(1)))
                    .is_ok()
                {
                    let fen = self.fen();
                    self.set_pieces(&fen);
                }
            }
            Action::Force(n) => {
                if let Some(uci) = self.legal(*n)
                    && self
                        .rig
                        .request(Request::Correct(Correction::Force(uci.clone())))
                        .is_ok()
                {
                    self.pieces(&uci);
                }
            }
            Action::Position(i) => {
                if self
                    .rig
                    .request(Request::Correct(Correction::Position(POSITIONS[*i].into())))
                    .is_ok()
                {
                    self.set_pieces(POSITIONS[*i]);
                }
            }
            Action::Restart if restarts => self.restart(),
            // The run without restarts lets the same time pass.
            Action::Restart => self.wait(3_000),
        }
        self.journal();
    }

    /// The daemon stops and starts again: a new session rebuilt from the journal alone, as
    /// the actor's start does, on the same board; the time until the board answers passes.
    fn restart(&mut self) {
        let before = self.rig.session.pgn(self.rig.at());
        let mut entries = vec![self.start.clone()];
        entries.extend(self.records.iter().cloned());
        let fallback = GameStart {
            control: self.rig.session.engine().control().clone(),
            t_ms: 0,
            wall_ms: WALL0,
            game_id: None,
        };
        let now = Now {
            wall_ms: WALL0 + self.rig.now,
            boot: None,
        };
        let r = restore(None, entries, &fallback, &now).expect("a journaled game");
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        self.restarts += 1;
        // The journal writer goes on with what the restore kept.
        self.start = r.start.clone();
        self.records = r.fold.records.clone();
        let offset = r.now_ms - self.rig.now;
        self.rig.plugged = false;
        let restored = Restored {
            offset_ms: offset,
            steps: r.fold.board_steps(),
            board_serial: r.fold.board_serial,
            lever_in_step: r.fold.lever_in_step,
            ..Restored::fresh(r.fold.engine)
        };
        let (session, _) = Session::resume(config(), DriverConfig::default(), restored);
        assert_eq!(
            session.pgn(self.rig.at()),
            before,
            "the journal rebuilds the game as it stood"
        );
        self.rig.session = session;
        // What the stopped daemon said last is journaled already.
        self.rig.events.clear();
        self.rig.plugged = true;
        self.rig.emu.reset_board(self.rig.now);
        let at = self.rig.at();
        self.rig.session.handle_event(at, ShellEvent::PortOpen);
        self.wait(3_000);
    }

    /// The record the journal writer would write now, folded from this run's journal, and
    /// the record of the events the session said.
    fn archive(&mut self) -> (Rendered, Rendered) {
        let at = self.rig.at();
        let session = &self.rig.session;
        let archive = Archive {
            name: session.name().to_owned(),
            port: session.port().to_owned(),
            snapshot: session.snapshot(at),
            board: session.has_board_moves().then(|| session.pgn_game(at)),
            info: session.pgn_info(),
            under_way_only: false,
        };
        let said = self.said.render(
            Some(&archive.snapshot),
            archive.board.clone(),
            &archive.info,
        );
        let folded = archive
            .render(&self.start, &self.records)
            .expect("a record");
        (folded, said)
    }
}

/// The 64 squares of `fen`'s placement, a8 ... h1.
fn squares(fen: &str) -> Vec<Option<Piece>> {
    let placement = fen.split(' ').next().unwrap_or_default();
    let mut squares = Vec::with_capacity(64);
    for c in placement.chars() {
        match c {
            '/' => {}
            d if d.is_ascii_digit() => {
                squares.extend(std::iter::repeat_n(None, d as usize - '0' as usize));
            }
            p => squares.push(Piece::from_char(p)),
        }
    }
    squares
}

/// Plays `actions` without a stop and with restarts; returns the restarts made.
fn same_game_with_and_without_restarts(actions: &[Action]) -> Result<usize, TestCaseError> {
    let mut straight = Run::new();
    let mut restarted = Run::new();
    for a in actions {
        straight.act(a, false);
        // A restart while the pieces disagree with the game is a board problem or a takeback
        // read from the pieces (the reconciling the resume tests cover): time passes instead.
        let restarts = !matches!(a, Action::Restart) || restarted.pieces_agree();
        restarted.act(a, restarts);
    }
    let at = straight.rig.at();
    prop_assert_eq!(
        straight.rig.session.pgn(at),
        restarted.rig.session.pgn(at),
        "the live PGN"
    );
    let (folded, said) = straight.archive();
    prop_assert_eq!(
        &folded,
        &said,
        "the record folded from the journal is the game's"
    );
    prop_assert_eq!(folded, restarted.archive().0, "the archived record");
    Ok(restarted.restarts)
}

#[test]
fn a_game_with_every_correction_and_restarts_between_them_is_one_record() {
    use Action::*;
    let actions = [
        Ply(0),
        Ply(3),
        Restart,
        Undo,
        Restart,
        Force(2),
        Restart,
        Ply(5),
        Wait(4_000),
        Restart,
        Position(1),
        Restart,
        Ply(1),
        Ply(7),
        Restart,
    ];
    let restarts = same_game_with_and_without_restarts(&actions).expect("the same game");
    assert!(restarts >= 5, "only {restarts} restarts were made");
}

/// Found by the property test: after a takeback the clock's next press times no move yet;
/// a move forced after a restart gets its times, as without the restart.
#[test]
fn a_press_whose_move_is_not_read_yet_survives_a_restart() {
    use Action::*;
    let actions = [
        Force(0),
        Force(11_856_631_715_842_417_855),
        Ply(10_785_713_143_108_780_265),
        Ply(8_580_856_232_215_694_288),
        Undo,
        Ply(17_278_580_576_585_926_020),
        Restart,
        Force(11_988_138_531_480_181_772),
    ];
    let restarts = same_game_with_and_without_restarts(&actions).expect("the same game");
    assert_eq!(restarts, 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn replaying_the_journal_gives_the_same_live_pgn_and_archived_record(
        actions in prop::collection::vec(action(), 4..24)
    ) {
        same_game_with_and_without_restarts(&actions)?;
    }
}
