//! How a session starts ([`Session::resume`]): on a fresh game or the one the journal
//! restored, with the clock's game information, default tags and place, and the rules a
//! resumed game's lever follows. Nothing else builds the IO shell's session.
//!
//! The shell reads the journal; this file decides what its facts mean. No IO.

use chessclock_engine::Engine;
use chessclock_engine::params::TimeControl;

use super::{Session, SessionConfig};
use crate::link::driver::{DriverConfig, Instant};
use crate::session::interface::ClockState;

/// What a session starts from besides its config: the game (fresh, or restored from the
/// journal) and the clock's facts at its start.
#[derive(Debug)]
pub struct Restored {
    /// The game's engine.
    pub engine: Engine,
    /// Engine time at the session's start (non-zero for a resumed game).
    pub offset_ms: u64,
    /// The serial number of the board the journaled game was played on, if it said.
    pub board_serial: Option<String>,
    /// The board's steps of the journal, with their engine time, in order.
    pub steps: Vec<(u64, chessclock_game::Step)>,
    /// When the journaled game's clock started (wall time), if it did.
    pub started_wall_ms: Option<u64>,
    /// The control the operator declared for the observed clock, as the journal said.
    pub declared: Option<TimeControl>,
    /// What the operator should know about the resumed game (problems of the restore).
    pub notices: Vec<String>,
    /// What the journal last said of the lever: `Some(true)`, in step (`None` for a journal
    /// cut at a damaged tail, which may have lost a press).
    pub lever_in_step: Option<bool>,
    /// The game's id (its journal's start's, or a fresh one) and the seed of the next ones.
    pub game_id: String,
    pub id_seed: u64,
    /// The board on the port has yet to show the game's position (a spare swapped in).
    pub pieces_awaited: bool,
    /// The port is open at the start.
    pub port_open: bool,
    /// The board is made anew with the daemon (a virtual clock's): its lever says nothing of
    /// a press made while the daemon was down.
    pub new_board: bool,
    /// The journal had something to replay: the live file is written again at once.
    pub replayed: bool,
    /// The clock's configured game information and default tags.
    pub game_info: Vec<(String, String)>,
    pub tag_defaults: Vec<(String, String)>,
    /// The round and board number the clock is, if known.
    pub place: Option<(u32, u32)>,
}

impl Restored {
    /// A new game on `engine`, nothing journaled.
    pub fn fresh(engine: Engine) -> Restored {
        Restored {
            engine,
            offset_ms: 0,
            board_serial: None,
            steps: Vec::new(),
            started_wall_ms: None,
            declared: None,
            notices: Vec::new(),
            lever_in_step: None,
            game_id: String::new(),
            id_seed: 0,
            pieces_awaited: false,
            port_open: false,
            new_board: false,
            replayed: false,
            game_info: Vec::new(),
            tag_defaults: Vec::new(),
            place: None,
        }
    }
}

impl Session {
    /// The session of `cfg` over `link` on the game `restored`, and its first published
    /// state.
    pub fn resume(
        cfg: SessionConfig,
        link: DriverConfig,
        restored: Restored,
    ) -> (Session, ClockState) {
        let mut session = Session::new(
            cfg,
            link,
            restored.engine,
            restored.offset_ms,
            restored.board_serial,
        );
        // Before the board's steps are replayed: a new game on the pieces since the journal's
        // start is told apart from it (record.rs).
        session.set_game_id(restored.game_id, restored.id_seed);
        match (restored.new_board, restored.lever_in_step) {
            (true, _) => session.lever_of_a_new_board(),
            (false, Some(true)) => session.resume_lever_in_step(),
            (false, _) => {}
        }
        if restored.port_open {
            session.connect_first(Instant::ZERO);
        }
        for notice in restored.notices {
            session.add_notice(notice);
        }
        let clock = session.cfg.clock;
        if let Err(e) = session.set_game_info(&restored.game_info) {
            tracing::warn!(clock, "game information not taken: {e}");
        }
        if let Some(control) = restored.declared {
            session.declare(control);
        }
        session.resume_board(restored.steps);
        if restored.pieces_awaited {
            session.await_pieces(Instant::ZERO, false);
        }
        if let Err(e) = session.set_tag_defaults(&restored.tag_defaults) {
            tracing::warn!(clock, "default tags not taken: {e}");
        }
        if let Some((round, board)) = restored.place {
            session.set_place(round, board);
        }
        if let Some(started_wall_ms) = restored.started_wall_ms {
            session.resume_record(started_wall_ms);
        }
        session.live_file_due(restored.replayed);
        let first = session.published(Instant::ZERO);
        (session, first)
    }
}
